import { strict as assert } from 'node:assert';
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';

const WRITER = path.join(__dirname, 'writer.ts');
const REPO = path.resolve(__dirname, '..', '..', '..');

function startWriter(db: string, prefix: string, batches: number, size: number): ChildProcess {
  return spawn(process.execPath, ['--require', 'tsx/cjs', WRITER, db, prefix, String(batches), String(size)], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Collects the ids the child acknowledged (complete `ok …` lines only). */
function acknowledged(child: ChildProcess): { ids: string[]; lines: () => number } {
  const ids: string[] = [];
  let buffer = '';
  let lines = 0;
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line.startsWith('ok ')) {
        ids.push(...line.slice(3).split(' '));
        lines++;
      }
    }
  });
  return { ids, lines: () => lines };
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (c: string) => (stderr += c));
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stderr })));
}

describe('durability with real processes', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'durability-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a writer killed with SIGKILL mid-burst loses no acknowledged record and the database stays intact', async () => {
    const db = path.join(dir, 'memory.sqlite');
    MemoryStore.open(db).close(); // create and migrate before the burst
    const child = startWriter(db, 'k', 0, 25);
    const acks = acknowledged(child);
    const done = exited(child);
    await new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        if (acks.lines() >= 12) {
          clearInterval(timer);
          child.kill('SIGKILL');
          resolve();
        }
      }, 5);
      child.on('exit', () => {
        clearInterval(timer);
        if (acks.lines() < 12) reject(new Error('writer exited before the kill'));
      });
    });
    const result = await done;
    assert.equal(result.signal, 'SIGKILL');
    const acked = [...acks.ids];
    assert.ok(acked.length >= 12 * 25);
    const store = MemoryStore.open(db);
    try {
      assert.equal(store.connectionForQueries().pragma('integrity_check', { simple: true }), 'ok');
      const present = new Set((store.connectionForQueries().prepare('SELECT id FROM records').all() as { id: string }[]).map((r) => r.id));
      const missing = acked.filter((id) => !present.has(id));
      assert.deepEqual(missing, []);
      // Whole batches only: the row count is a multiple of the batch size.
      assert.equal(present.size % 25, 0);
      // The vector index holds exactly the committed active records.
      assert.equal((store.connectionForQueries().prepare('SELECT COUNT(*) AS n FROM vec_bits').get() as { n: number }).n, present.size);
      assert.equal(store.audit({ limit: 100_000 }).length, present.size);
    } finally {
      store.close();
    }
  });

  it('two processes writing the same database at once both succeed with no lost rows', async () => {
    const db = path.join(dir, 'memory.sqlite');
    MemoryStore.open(db).close();
    const batches = 40;
    const size = 20;
    const a = startWriter(db, 'a', batches, size);
    const b = startWriter(db, 'b', batches, size);
    const acksA = acknowledged(a);
    const acksB = acknowledged(b);
    const [ra, rb] = await Promise.all([exited(a), exited(b)]);
    assert.equal(ra.code, 0, ra.stderr);
    assert.equal(rb.code, 0, rb.stderr);
    assert.doesNotMatch(ra.stderr + rb.stderr, /SQLITE_BUSY|database is locked/);
    assert.equal(acksA.ids.length, batches * size);
    assert.equal(acksB.ids.length, batches * size);
    const store = MemoryStore.open(db);
    try {
      assert.equal(store.connectionForQueries().pragma('integrity_check', { simple: true }), 'ok');
      const present = new Set((store.connectionForQueries().prepare('SELECT id FROM records').all() as { id: string }[]).map((r) => r.id));
      assert.equal(present.size, 2 * batches * size);
      for (const id of [...acksA.ids, ...acksB.ids]) assert.ok(present.has(id), id);
      assert.equal(store.changeId, 2 * batches);
    } finally {
      store.close();
    }
  });
});
