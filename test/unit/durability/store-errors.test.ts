import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AgentMemoryError, isAgentMemoryError, type ErrorCode } from '../../../src/core/errors';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { sampleRecord } from '../../support/records';
import { mountTmpfs } from './tmpfs';

const sha = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

function expectCode(fn: () => unknown, code: ErrorCode, ...patterns: RegExp[]): AgentMemoryError {
  try {
    fn();
  } catch (error) {
    assert.ok(isAgentMemoryError(error, code), `expected ${code}, got ${String((error as { code?: string }).code)}: ${String(error)}`);
    for (const p of patterns) assert.match(error.message, p);
    return error;
  }
  assert.fail(`expected ${code}, nothing was thrown`);
}

/** A real memory file with enough records to span many pages, checkpointed into the main file. */
function makeDatabase(file: string, records = 300): void {
  const store = MemoryStore.open(file);
  store.add(Array.from({ length: records }, (_, i) => sampleRecord({ id: `r${i}`, question: `question ${i} ${'x'.repeat(200)}`, code: `answer = ${i} # ${'y'.repeat(300)}` })), { trigger: 'user', returnRecords: false });
  store.connectionForQueries().pragma('wal_checkpoint(TRUNCATE)');
  store.close();
}

describe('store integrity and typed errors (real files and conditions)', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-errors-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('not a database: a text file is refused and left as it was', () => {
    const file = path.join(dir, 'notes.sqlite');
    fs.writeFileSync(file, 'these are my notes, not a database\n'.repeat(200));
    const before = sha(file);
    expectCode(() => MemoryStore.open(file), 'NOT_A_DATABASE', /notes\.sqlite is not an Agent Memory database/, /agentMemory\.databasePath/);
    assert.equal(sha(file), before);
  });

  it('damaged: valid header, broken pages → refused at open, never written, message says how to restore', () => {
    const file = path.join(dir, 'memory.sqlite');
    makeDatabase(file);
    const bytes = fs.readFileSync(file);
    const pageSize = bytes.readUInt16BE(16);
    assert.ok(bytes.length / pageSize > 20, 'the file spans many pages');
    // Keep page 1 (header + schema); overwrite pages 3..6 (records' b-tree pages) with garbage.
    for (let p = 2; p < 6; p++) bytes.fill(0xa5, p * pageSize + 8, (p + 1) * pageSize - 8);
    fs.writeFileSync(file, bytes);
    assert.equal(fs.readFileSync(file).subarray(0, 16).toString('latin1'), 'SQLite format 3\0');
    const before = sha(file);
    expectCode(() => MemoryStore.open(file), 'DATABASE_DAMAGED', new RegExp(`${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is damaged`), /agent-memory restore --from/, /nothing was written/);
    assert.equal(sha(file), before, 'a damaged file is never written');
  });

  it('a directory given as the database file', () => {
    expectCode(() => MemoryStore.open(dir), 'IS_DIRECTORY', /is a directory, not a database file/, /memory\.sqlite/);
  });

  it('read-only file system: existing memory and new memory', () => {
    const fsx = mountTmpfs(2048);
    try {
      const file = path.join(fsx.dir, 'memory.sqlite');
      makeDatabase(file, 5);
      fsx.readOnly();
      expectCode(() => MemoryStore.open(file), 'READ_ONLY', /read-only/, /Make both writable/);
      expectCode(() => MemoryStore.open(path.join(fsx.dir, 'new.sqlite')), 'READ_ONLY', /read-only/);
    } finally {
      fsx.unmount();
    }
  });

  it('locked past the busy wait by another process: typed error, nothing changed', async () => {
    const file = path.join(dir, 'memory.sqlite');
    makeDatabase(file, 3);
    const holder = spawn(process.execPath, ['-e', `const D = require('better-sqlite3'); const d = new D(${JSON.stringify(file)}); d.exec('BEGIN IMMEDIATE'); d.prepare("INSERT INTO meta(key, value) VALUES ('held', '1')").run(); process.stdout.write('locked\\n'); setTimeout(() => {}, 60000);`], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await new Promise<void>((resolve, reject) => {
        holder.stdout.on('data', (d: Buffer) => d.toString().includes('locked') && resolve());
        holder.on('exit', (code) => reject(new Error(`lock holder exited with ${code}`)));
      });
      const store = MemoryStore.open(file, { busyTimeoutMs: 300 });
      try {
        expectCode(() => store.add([sampleRecord({ id: 'late' })], { trigger: 'user' }), 'LOCKED', /stayed locked by another process for 300 ms/, /try again/);
        assert.equal(store.get('late'), undefined);
      } finally {
        store.close();
      }
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it('disk full mid-write: the batch is rolled back whole and DISK_FULL is reported', () => {
    const fsx = mountTmpfs(1024);
    try {
      const file = path.join(fsx.dir, 'memory.sqlite');
      const store = MemoryStore.open(file);
      let committed = 0;
      let error: unknown;
      for (let batch = 0; batch < 200 && !error; batch++) {
        try {
          store.add(Array.from({ length: 20 }, (_, i) => sampleRecord({ id: `b${batch}-${i}`, code: `answer = ${i} # ${String(batch).repeat(2000)}` })), { trigger: 'user', returnRecords: false });
          committed += 20;
        } catch (e) {
          error = e;
        }
      }
      assert.ok(isAgentMemoryError(error, 'DISK_FULL'), `expected DISK_FULL, got ${String(error)}`);
      assert.match((error as Error).message, /is full/);
      assert.match((error as Error).message, /rolled back/);
      assert.ok(committed > 0);
      assert.equal(store.counts().active, committed, 'no partial batch');
      store.close();
      const reopened = MemoryStore.open(file);
      assert.equal(reopened.counts().active, committed);
      reopened.close();
    } finally {
      fsx.unmount();
    }
  });
});
