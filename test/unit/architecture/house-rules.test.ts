import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(__dirname, '..', '..', '..');

function tsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

const rel = (f: string): string => path.relative(root, f).split(path.sep).join('/');

/** Relative module specifiers a TypeScript source imports. */
function imports(source: string): string[] {
  return [...source.matchAll(/(?:from\s*|import\s*\(\s*|require\s*\(\s*)['"](\.[^'"]+)['"]/g)].map((m) => m[1]);
}

describe('architecture: who owns what', () => {
  it('the store owns its connection: only src/core/memory reaches it', () => {
    const offenders = tsFiles(path.join(root, 'src'))
      .filter((f) => !rel(f).startsWith('src/core/memory/'))
      .filter((f) => /\.connectionForQueries\s*\(|\bstore\.db\b/.test(fs.readFileSync(f, 'utf8')))
      .map(rel);
    assert.deepEqual(offenders, []);
  });

  it('the editor side (src/core/app, src/core/data, src/vscode) never imports the bench', () => {
    const dirs = ['src/core/app', 'src/core/data', 'src/vscode'].map((d) => path.join(root, d));
    const offenders = dirs.flatMap(tsFiles).filter((f) =>
      imports(fs.readFileSync(f, 'utf8')).some((spec) => rel(path.resolve(path.dirname(f), spec)).startsWith('src/core/bench')),
    );
    assert.deepEqual(offenders.map(rel), []);
  });

  it('one task path: only the task pipeline calls the agent loop', () => {
    const callers = tsFiles(path.join(root, 'src')).filter((f) => /\brunAgentLoop\s*\(/.test(fs.readFileSync(f, 'utf8'))).map(rel);
    assert.deepEqual(callers.sort(), ['src/core/agent/loop/agent-loop.ts', 'src/core/agent/task-pipeline.ts']);
  });

  it('one deletion step: only deleteWithinFloor soft-deletes (so the memory floor holds on every path)', () => {
    const callers = tsFiles(path.join(root, 'src'))
      .filter((f) => !rel(f).startsWith('src/core/memory/'))
      .filter((f) => /\.transition\(\s*[^,]+,\s*'delete'/.test(fs.readFileSync(f, 'utf8')))
      .map(rel);
    assert.deepEqual(callers, ['src/core/policy/deletion/floor.ts']);
  });

  it('no source file over 450 lines anywhere in src (issues 11 and 37)', () => {
    const dirs = ['src'].map((d) => path.join(root, d));
    const long = dirs.flatMap(tsFiles).map((f) => ({ file: rel(f), lines: fs.readFileSync(f, 'utf8').split('\n').length })).filter((x) => x.lines > 450);
    assert.deepEqual(long, []);
  });
});
