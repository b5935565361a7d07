import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { TaskLog } from '../../../src/core/memory/sqlite/task-log';
import { openDatabase, schemaVersion } from '../../../src/core/memory/sqlite/database';
import { MIGRATIONS, SCHEMA_VERSION } from '../../../src/core/memory/sqlite/schema';
import { isAgentMemoryError } from '../../../src/core/errors';
import { sampleRecord, unitVector } from '../../support/records';

describe('MemoryStore', () => {
  let store: MemoryStore;
  beforeEach(() => {
    store = MemoryStore.open(':memory:');
  });
  afterEach(() => store.close());

  describe('add', () => {
    it('stores every field and returns the record', () => {
      const [rec] = store.add([sampleRecord({ id: 'r1', metadata: { template: 't1' } })], { trigger: 'user', reason: 'test' });
      assert.equal(rec.id, 'r1');
      assert.equal(rec.status, 'active');
      assert.equal(rec.provenance, 'seed');
      assert.deepEqual(rec.execution.answer, [[42]]);
      assert.deepEqual(rec.metadata, { template: 't1' });
      assert.equal(rec.stats.retrievalCount, 0);
      assert.equal(rec.stats.meanUtility, null);
    });

    it('writes nothing when any input is invalid, and names the record and field', () => {
      assert.throws(
        () => store.add([sampleRecord({ id: 'ok' }), sampleRecord({ question: '   ' })], { trigger: 'user' }),
        (e: unknown) => isAgentMemoryError(e, 'INVALID_INPUT') && /Record 2: field 'question'/.test(e.message),
      );
      assert.equal(store.counts().active, 0);
    });

    it('rolls back the whole batch on a duplicate id', () => {
      store.add([sampleRecord({ id: 'dup' })], { trigger: 'user' });
      assert.throws(() => store.add([sampleRecord({ id: 'new' }), sampleRecord({ id: 'dup' })], { trigger: 'user' }), /already exists/);
      assert.equal(store.get('new'), undefined);
    });

    it('refuses vectors from another embedder with the re-embed remedy', () => {
      store.add([sampleRecord()], { trigger: 'user', embeddings: [unitVector(1)], embedderId: 'hash-v1-16' });
      assert.throws(
        () => store.add([sampleRecord()], { trigger: 'user', embeddings: [unitVector(2)], embedderId: 'other' }),
        (e: unknown) => isAgentMemoryError(e, 'EMBEDDER_MISMATCH') && /Re-embed/.test(e.message),
      );
    });

    it('keeps pending records out of the vector index until approved', () => {
      const [p] = store.add([sampleRecord({ status: 'pending' })], { trigger: 'agent', embeddings: [unitVector(3)], embedderId: 'e' });
      assert.deepEqual(store.vectors.candidates(unitVector(3), 4), []);
      store.transition([p.id], 'approve', { trigger: 'user' });
      assert.deepEqual(store.vectors.candidates(unitVector(3), 4), [store.ridOf(p.id)]);
    });
  });

  describe('transitions', () => {
    it('approve, reject, delete, restore and purge follow the state rules and audit each change', () => {
      const [a, b] = store.add([sampleRecord({ id: 'a', status: 'pending' }), sampleRecord({ id: 'b', status: 'pending' })], { trigger: 'agent' });
      store.transition([a.id], 'approve', { trigger: 'user', reason: 'looks right' });
      store.transition([b.id], 'reject', { trigger: 'user', reason: 'wrong table' });
      assert.equal(store.require('a').status, 'active');
      assert.equal(store.require('b').status, 'deleted');
      assert.throws(() => store.transition(['a'], 'approve', { trigger: 'user' }), (e: unknown) => isAgentMemoryError(e, 'INVALID_STATE'));
      store.transition(['a'], 'delete', { trigger: 'rule:history', reason: 'low utility', evidence: { a: { meanUtility: 0.2 } } });
      store.transition(['a'], 'restore', { trigger: 'user' });
      assert.equal(store.require('a').status, 'active');
      store.transition(['b'], 'purge', { trigger: 'user' });
      assert.equal(store.get('b'), undefined);
      const ops = store.audit().map((e) => `${e.operation}:${e.recordId}:${e.trigger}`).reverse();
      assert.deepEqual(ops, ['add:a:agent', 'add:b:agent', 'approve:a:user', 'reject:b:user', 'delete:a:rule:history', 'restore:a:user', 'purge:b:user']);
      assert.equal(store.audit({ recordId: 'a' }).find((e) => e.operation === 'delete')?.evidence.meanUtility, 0.2);
    });

    it('a batch with one invalid id changes nothing', () => {
      store.add([sampleRecord({ id: 'x' }), sampleRecord({ id: 'y', status: 'pending' })], { trigger: 'user' });
      assert.throws(() => store.transition(['y', 'x'], 'approve', { trigger: 'user' }), /Nothing was changed/);
      assert.equal(store.require('y').status, 'pending');
    });

    it('restores a deleted pending record to pending, never to active', () => {
      store.add([sampleRecord({ id: 'p', status: 'pending' })], { trigger: 'agent' });
      store.transition(['p'], 'delete', { trigger: 'user' });
      store.transition(['p'], 'restore', { trigger: 'user' });
      assert.equal(store.require('p').status, 'pending');
    });

    it('fires change events after commit only', () => {
      const seen: string[] = [];
      store.onDidChange((e) => seen.push(e.kind));
      store.add([sampleRecord({ id: 'e' })], { trigger: 'user' });
      assert.throws(() => store.transition(['nope'], 'delete', { trigger: 'user' }));
      store.transition(['e'], 'delete', { trigger: 'user' });
      assert.deepEqual(seen, ['added', 'status']);
    });
  });

  describe('listing', () => {
    it('filters by status, text and language, sorts and pages', () => {
      store.add(
        Array.from({ length: 25 }, (_, i) => sampleRecord({ id: `r${i}`, question: i % 2 ? `count of drug ${i}` : `route of lab ${i}`, status: i < 5 ? 'pending' : 'active' })),
        { trigger: 'user' },
      );
      const page = store.list({ status: 'active', text: 'drug', limit: 3, offset: 0 });
      assert.equal(page.total, 10);
      assert.equal(page.items.length, 3);
      assert.ok(page.items.every((r) => r.status === 'active' && r.question.includes('drug')));
      assert.equal(store.list({ text: '100%_' }).total, 0);
      assert.equal(store.list({ language: 'javascript' }).total, 0);
    });
  });
});

describe('TaskLog', () => {
  it('writes Φ onto every retrieval row and keeps the record counters in step', () => {
    const store = MemoryStore.open(':memory:');
    const tasks = new TaskLog(store);
    store.add([sampleRecord({ id: 'a' }), sampleRecord({ id: 'b' })], { trigger: 'user' });
    const t1 = tasks.begin('q1');
    tasks.logRetrievals(t1, [{ recordId: 'a', rank: 0, inputSimilarity: 0.9 }, { recordId: 'b', rank: 1, inputSimilarity: 0.5 }]);
    tasks.setUtility(t1, 1);
    const t2 = tasks.begin('q2');
    tasks.logRetrievals(t2, [{ recordId: 'a', rank: 0, inputSimilarity: 0.7 }]);
    tasks.setUtility(t2, 0);
    tasks.setUtility(t2, 0.5); // re-evaluation replaces, never double-counts
    tasks.setOutputSimilarity(t2, 'a', 0.25);
    const a = store.require('a');
    assert.equal(a.stats.retrievalCount, 2);
    assert.equal(a.stats.evaluatedCount, 2);
    assert.equal(a.stats.meanUtility, 0.75);
    assert.equal(a.stats.lastRetrievedTask, t2);
    assert.ok(Math.abs(a.stats.meanInputSimilarity! - 0.8) < 1e-9);
    assert.equal(a.stats.meanOutputSimilarity, 0.25);
    assert.equal(store.require('b').stats.meanUtility, 1);
    assert.deepEqual(tasks.retrievalsOf('a').map((r) => r.taskIndex), [t2, t1]);
    assert.equal(tasks.get(t2)?.utility, 0.5);
    store.close();
  });
});

describe('openDatabase', () => {
  it('migrates an older database in place after backing it up', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-mig-'));
    const file = path.join(dir, 'memory.sqlite');
    // A real v3 memory (the first three shipped migrations) holding one record.
    const raw = new (require('better-sqlite3'))(file);
    for (const m of MIGRATIONS.filter((m) => m.version <= 3)) {
      raw.exec(m.sql ?? '');
      raw.pragma(`user_version = ${m.version}`);
    }
    raw.prepare("INSERT INTO records(id, question, code, language, outcome, status, provenance, created_at, updated_at) VALUES ('r1', 'how many?', 'print(1)', 'python', 'success', 'active', 'seed', 'now', 'now')").run();
    raw.close();
    const db = openDatabase(file);
    assert.equal(schemaVersion(db), SCHEMA_VERSION);
    assert.equal((db.prepare("SELECT question FROM records WHERE id = 'r1'").get() as { question: string }).question, 'how many?');
    assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
    const backup = new (require('better-sqlite3'))(`${file}.v3.bak`, { readonly: true });
    assert.equal((backup.prepare('SELECT COUNT(*) AS n FROM records').get() as { n: number }).n, 1);
    assert.equal(backup.pragma('user_version', { simple: true }), 3);
    backup.close();
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("refuses another program's SQLite database and writes nothing to it or beside it", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-mig-'));
    const file = path.join(dir, 'clinical.sqlite');
    const raw = new (require('better-sqlite3'))(file);
    raw.exec("CREATE TABLE patients (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO patients VALUES (1, 'x');");
    raw.close();
    const before = crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
    assert.throws(() => openDatabase(file), (e: unknown) => isAgentMemoryError(e, 'NOT_A_DATABASE') && /another program \(tables: patients\)/.test(e.message) && /--data/.test(e.message));
    assert.throws(() => openDatabase(file, { readonly: true }), (e: unknown) => isAgentMemoryError(e, 'NOT_A_DATABASE'));
    assert.equal(crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex'), before);
    assert.deepEqual(fs.readdirSync(dir), ['clinical.sqlite']);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('two processes creating the same new memory at once both open it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-mig-'));
    const file = path.join(dir, 'new.sqlite');
    const script = `require('tsx/cjs'); const { openDatabase } = require(${JSON.stringify(path.resolve(__dirname, '../../../src/core/memory/sqlite/database.ts'))}); const db = openDatabase(process.argv[1]); process.stdout.write(String(db.pragma('user_version', { simple: true }))); db.close();`;
    for (let round = 0; round < 4; round++) {
      fs.rmSync(file, { force: true });
      for (const suffix of ['-wal', '-shm', '.clean.json']) fs.rmSync(file + suffix, { force: true });
      const runs = await Promise.all([0, 1, 2].map(() => new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
        const child = spawn(process.execPath, ['-e', script, file], { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.stderr.on('data', (d: Buffer) => (err += d.toString()));
        child.on('close', (code) => resolve({ code, out, err }));
      })));
      for (const r of runs) assert.deepEqual([r.code, r.out], [0, String(SCHEMA_VERSION)], r.err);
      assert.deepEqual(fs.readdirSync(dir).filter((f) => f.endsWith('.bak')), []);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a database from a newer version with an actionable message', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-mig-'));
    const file = path.join(dir, 'memory.sqlite');
    const raw = new (require('better-sqlite3'))(file);
    raw.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    raw.close();
    assert.throws(() => openDatabase(file), (e: unknown) => isAgentMemoryError(e, 'MIGRATION') && /Update the Agent Memory extension/.test(e.message));
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('mean input similarity', () => {
  it('ignores retrievals without a cosine (keyword-only hits) instead of counting them as 0', () => {
    const store = MemoryStore.open(':memory:');
    const tasks = new TaskLog(store);
    store.add([sampleRecord({ id: 'k' })], { trigger: 'user' });
    tasks.logRetrievals(tasks.begin('q1'), [{ recordId: 'k', rank: 0, inputSimilarity: 0.8 }]);
    tasks.logRetrievals(tasks.begin('q2'), [{ recordId: 'k', rank: 0, inputSimilarity: null }]);
    const stats = store.require('k').stats;
    assert.equal(stats.retrievalCount, 2);
    assert.ok(Math.abs(stats.meanInputSimilarity! - 0.8) < 1e-9);
    store.close();
  });
});
