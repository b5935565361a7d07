import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as ts from 'typescript';

const root = path.resolve(__dirname, '..', '..', '..');

/** The members an interface declares itself (not inherited), as `name: type` text. */
export function ownMembers(file: string, name: string): Map<string, string> {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
  const found = source.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === name);
  if (!found) throw new Error(`interface ${name} not found in ${file}`);
  const members = new Map<string, string>();
  for (const m of found.members) {
    if (ts.isPropertySignature(m) && m.type) members.set(m.name.getText(source), m.type.getText(source));
  }
  return members;
}

/** Fields declared with the same name and the same type text in both interfaces. */
function duplicated(a: Map<string, string>, b: Map<string, string>): string[] {
  return [...a].filter(([k, t]) => b.get(k) === t).map(([k]) => k);
}

describe('architecture: AgentTaskResult and AgentRunResult', () => {
  it('the duplicate check itself can fail', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dup-'));
    const file = path.join(dir, 'x.ts');
    fs.writeFileSync(file, 'interface A { id: number; name: string; x: A[] }\ninterface B { id: number; name: number }\n');
    assert.deepEqual(duplicated(ownMembers(file, 'A'), ownMembers(file, 'B')), ['id']);
  });

  it('AgentTaskResult takes the fields it shares with AgentRunResult from it instead of repeating them', () => {
    const task = ownMembers(path.join(root, 'src/core/app/types.ts'), 'AgentTaskResult');
    const run = ownMembers(path.join(root, 'src/core/agent/loop/agent-loop.ts'), 'AgentRunResult');
    assert.deepEqual(duplicated(task, run), []);
    for (const field of ['taskIndex', 'question', 'model', 'language', 'code', 'answer', 'outcome']) assert.ok(!task.has(field), `AgentTaskResult redeclares ${field}`);
  });
});
