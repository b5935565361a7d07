import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const TSX = path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');

function cli(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [TSX, path.join(ROOT, 'src', 'cli', 'main.ts'), ...args], { encoding: 'utf8', cwd: ROOT });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('CLI: seed and re-embed', function () {
  // Child processes / whole-memory rebuilds: their run time follows the machine's load (13 s seen under CI load); not a speed check.
  this.timeout(120_000);
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-cli-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('seeds the demo memory once (a second run adds nothing) and re-embeds it with an audit entry', () => {
    const db = path.join(dir, 'memory.sqlite');
    const first = cli('seed', '--db', db, '--count', '15', '--language', 'javascript');
    assert.equal(first.status, 0, first.stderr);
    assert.equal(first.stdout.trim(), '15');
    assert.equal(cli('seed', '--db', db, '--count', '15', '--language', 'javascript').stdout.trim(), '0');
    let store = MemoryStore.open(db);
    const seeded = store.list({ status: 'active' }).items;
    assert.equal(seeded.length, 15);
    assert.ok(seeded.every((r) => r.provenance === 'seed' && r.execution.language === 'javascript' && r.execution.code.startsWith('answer = sql(')));
    assert.match(store.embedder?.id ?? '', /^hash-v1-384-fit-/);
    store.close();

    const again = cli('re-embed', '--db', db);
    assert.equal(again.status, 0, again.stderr);
    assert.equal(again.stdout.trim(), '15');
    store = MemoryStore.open(db);
    assert.ok(store.audit().some((e) => e.operation === 're-embed' && e.trigger === 'user'));
    store.close();
  });

  it('refuses bad arguments with a usage message and a non-zero exit', () => {
    const r = cli('re-embed');
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /Usage: agent-memory re-embed --db FILE/);
    const s = cli('seed', '--count', 'many');
    assert.notEqual(s.status, 0);
    assert.match(s.stderr, /db|count/);
  });
});
