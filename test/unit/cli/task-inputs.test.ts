import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../../support/team-processes';

describe('agent-memory task: its inputs as the help describes them (real child processes)', function () {
  this.timeout(180_000);
  let dir: string;
  before(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-task-inputs-'))));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('refuses a --data file that is no SQLite database before anything is written', async () => {
    const db = path.join(dir, 'refused.sqlite');
    for (const [name, bytes] of [['notes.txt', 'id,name\n1,x\n'], ['empty.sqlite', '']] as const) {
      const data = path.join(dir, name);
      fs.writeFileSync(data, bytes);
      const r = await runCli(['task', '--db', db, '--question', 'how many patients are there?', '--data', data]);
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, new RegExp(`CONFIG: The database the agent queries, .*${name.replace('.', '\\.')}, cannot be used: .*Set agentMemory\\.agent\\.dataPath \\(CLI: --data\\)`));
      assert.equal(fs.existsSync(db), false, 'no memory was created');
    }
  });

  it('reads --tasks lines of {"question", "answer"} (no gold program needed), one task each', async () => {
    const db = path.join(dir, 'memory.sqlite');
    const tasks = path.join(dir, 'tasks.jsonl');
    fs.writeFileSync(tasks, [{ question: 'How many patients are there?', answer: [[100]] }, { question: 'How many admissions are there?' }].map((t) => JSON.stringify(t)).join('\n') + '\n');
    const r = await runCli(['task', '--db', db, '--tasks', tasks]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim().split('\n').filter((l) => /^task \d+: /.test(l)).length, 2, r.stdout);
    const bad = path.join(dir, 'bad.jsonl');
    fs.writeFileSync(bad, JSON.stringify({ answer: [[1]] }) + '\n');
    const refused = await runCli(['task', '--db', db, '--tasks', bad]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /bad\.jsonl:1: field 'question': question is required: a non-empty string/);
  });
});
