import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SyntheticRecords } from '../../../src/core/bench/synthetic-records';
import { nullLogger } from '../../../src/core/logger';
import { seededRandom } from '../../../src/core/random';
import { QuestionShapes } from '../../../src/core/memory/search/rerank';
import { SHAPES_TABLE, loadShapes } from '../../../src/core/memory/search/shape-persist';
import { ShapeIndex } from '../../../src/core/memory/search/shape-index';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';

const TASKS = path.join(__dirname, '..', '..', '..', 'data', 'ehr', 'ehrsql-mimic3-tasks.jsonl');
const QUESTIONS = SyntheticRecords.fromFile(TASKS, 99);
const QUERIES = Array.from({ length: 12 }, () => QUESTIONS.question());

function fill(store: MemoryStore, gen: SyntheticRecords, n: number): void {
  store.add(gen.records(n), { trigger: 'import', returnRecords: false });
}

/** Shapes computed from the records with no saved copy in the way (a state built from scratch). */
function fromScratch(store: MemoryStore): QuestionShapes {
  const shapes = new QuestionShapes();
  const rows = store.connectionForQueries().prepare("SELECT rid, question, code, language FROM records WHERE status = 'active'").all() as { rid: number; question: string; code: string; language: string }[];
  for (const r of rows) shapes.set(r.rid, r.question, r.code, r.language);
  return shapes;
}

/** The rerank order of 12 queries over candidate lists drawn from the active records (the same lists for both states). */
function rerankOrders(store: MemoryStore, shapes: QuestionShapes): number[][] {
  const rows = store.connectionForQueries().prepare("SELECT rid, question, code FROM records WHERE status = 'active' ORDER BY rid").all() as { rid: number; question: string; code: string }[];
  const rand = seededRandom(5);
  return QUERIES.map((q) => {
    const candidates = Array.from({ length: 12 }, (_, i) => {
      const r = rows[Math.floor(rand() * rows.length)];
      return { key: r.rid, score: 1 - i / 20, question: r.question, code: r.code };
    });
    return shapes.rerank(q, candidates).map((c) => c.key);
  });
}

function assertSameAsScratch(store: MemoryStore, index: ShapeIndex, label: string): void {
  const held = index.shapes()!;
  const scratch = fromScratch(store);
  assert.deepEqual(held.snapshot(), scratch.snapshot(), `${label}: records and memory-wide counts`);
  assert.deepEqual(rerankOrders(store, held), rerankOrders(store, scratch), `${label}: rerank order`);
  for (const q of QUERIES) assert.deepEqual(held.maskQuery(q), scratch.maskQuery(q), `${label}: masked '${q}'`);
}

function capture(): { logger: typeof nullLogger; lines: string[] } {
  const lines: string[] = [];
  return { lines, logger: { ...nullLogger, debug: (m: string) => lines.push(m), info: (m: string) => lines.push(m), warn: (m: string) => lines.push(m) } };
}

/** Opens, checks where the shapes came from and that they equal a state computed from scratch, disposes. */
function reopen(store: MemoryStore, expected: 'saved' | 'computed', label: string): string[] {
  const { logger, lines } = capture();
  const index = ShapeIndex.open(store, { saveMinRecords: 1, logger });
  try {
    assert.equal(index.origin, expected, `${label}: origin (${lines.join(' | ')})`);
    assertSameAsScratch(store, index, label);
  } finally {
    index.dispose();
  }
  return lines;
}

describe('question shape storage', () => {
  it('holds equal shapes once, counted per record, and frees a shape with its last record', () => {
    const shapes = new QuestionShapes();
    const code = `answer = sql("select route from prescriptions where drug = 'danazol'")`;
    shapes.set(1, 'What is the intake method of danazol?', code);
    shapes.set(2, 'What is the intake method of danazol?', code);
    shapes.set(3, 'How is danazol taken?', code);
    assert.equal(shapes.size, 3);
    assert.equal(shapes.distinctShapes, 2);
    shapes.delete(1);
    assert.equal(shapes.distinctShapes, 2);
    shapes.delete(2);
    assert.equal(shapes.distinctShapes, 1);
    assert.deepEqual(shapes.snapshot().phrases, [['danazol', 1]]);
    const copy = new QuestionShapes();
    copy.restore(shapes.exportShapes());
    assert.deepEqual(copy.snapshot(), shapes.snapshot());
    assert.equal(copy.programId(3), shapes.programId(3));
  });
});

describe('saved question shapes (the re-ranking state kept in the memory)', function () {
  this.timeout(120_000);
  let dir: string;
  let store: MemoryStore;
  let gen: SyntheticRecords;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shapes-saved-'));
    store = MemoryStore.open(path.join(dir, 'memory.sqlite'));
    gen = SyntheticRecords.fromFile(TASKS, 7);
    fill(store, gen, 600);
  });
  afterEach(() => {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a computed state is saved; a reopen reads it and re-ranks exactly as shapes computed from scratch', () => {
    const first = ShapeIndex.open(store, { saveMinRecords: 1 });
    assert.equal(first.origin, 'computed');
    first.dispose();
    const read = loadShapes(store.connectionForQueries());
    assert.ok('saved' in read, 'saved after the computation');
    assert.equal(read.saved.rids.length, 600);
    reopen(store, 'saved', 'reopen');
  });

  it('a memory smaller than saveMinRecords is not saved', () => {
    ShapeIndex.open(store, { saveMinRecords: 601 }).dispose();
    assert.ok('missing' in loadShapes(store.connectionForQueries()));
  });

  it('adds, deletes, a purge, a restore and text edits since the save are applied to the saved copy on open', () => {
    ShapeIndex.open(store, { saveMinRecords: 1 }).dispose();
    fill(store, gen, 40);
    const ids = store.list({ limit: 30 }).items.map((r) => r.id);
    store.transition(ids.slice(0, 10), 'delete', { trigger: 'user' });
    store.transition(ids.slice(0, 3), 'restore', { trigger: 'user' });
    store.transition(ids.slice(8, 10), 'purge', { trigger: 'user' });
    const db = store.connectionForQueries();
    db.prepare('UPDATE records SET question = ? WHERE id = ?').run('What is the intake method of danazol since 2104-03-01?', ids[20]);
    db.prepare('UPDATE records SET code = ? WHERE id = ?').run(`answer = sql("select route from prescriptions where drug = 'heparin sodium'")`, ids[21]);
    reopen(store, 'saved', 'after changes');
  });

  it('follows changes after a saved open like after a computed one', () => {
    ShapeIndex.open(store, { saveMinRecords: 1 }).dispose();
    const index = ShapeIndex.open(store, { saveMinRecords: 1 });
    try {
      assert.equal(index.origin, 'saved');
      fill(store, gen, 25);
      store.transition(store.list({ limit: 5 }).items.map((r) => r.id), 'delete', { trigger: 'user' });
      assertSameAsScratch(store, index, 'caught up');
    } finally {
      index.dispose();
    }
  });

  it('saves again once a twentieth of the records changed, so the next open applies few changes', async () => {
    const index = ShapeIndex.open(store, { saveMinRecords: 1 });
    try {
      const before = loadShapes(store.connectionForQueries());
      fill(store, gen, 40);
      index.shapes();
      await new Promise<void>((resolve) => setImmediate(resolve));
      const after = loadShapes(store.connectionForQueries());
      assert.ok('seq' in before && 'seq' in after);
      assert.ok(after.seq > before.seq, 'saved at the newer change');
      assert.equal(after.saved.rids.length, 640);
    } finally {
      index.dispose();
    }
  });

  it('a stale copy (the change log no longer reaches back to it, or it is newer than the memory) is computed anew', () => {
    ShapeIndex.open(store, { saveMinRecords: 1 }).dispose();
    fill(store, gen, 10);
    const db = store.connectionForQueries();
    db.prepare('DELETE FROM record_changes WHERE seq <= (SELECT MAX(seq) - 5 FROM record_changes)').run();
    assert.ok(reopen(store, 'computed', 'log pruned').some((l) => l.includes('no longer reaches back')));
    reopen(store, 'saved', 'saved again after computing');
    const header = JSON.parse((db.prepare(`SELECT value FROM ${SHAPES_TABLE} WHERE name = 'header'`).get() as { value: Buffer }).value.toString('utf8')) as { seq: number };
    db.prepare(`UPDATE ${SHAPES_TABLE} SET value = ? WHERE name = 'header'`).run(Buffer.from(JSON.stringify({ ...header, seq: header.seq + 1000 })));
    assert.ok(reopen(store, 'computed', 'copy from the future').some((l) => l.includes('newer than')));
  });

  it("a foreign copy (another memory's shapes under the same rids) is computed anew", () => {
    const otherStore = MemoryStore.open(path.join(dir, 'other.sqlite'));
    try {
      fill(otherStore, SyntheticRecords.fromFile(TASKS, 8), 600);
      ShapeIndex.open(otherStore, { saveMinRecords: 1 }).dispose();
      const rows = otherStore.connectionForQueries().prepare(`SELECT name, value FROM ${SHAPES_TABLE}`).all() as { name: string; value: Buffer }[];
      const db = store.connectionForQueries();
      db.exec(`CREATE TABLE ${SHAPES_TABLE} (name TEXT PRIMARY KEY, value BLOB NOT NULL)`);
      for (const r of rows) db.prepare(`INSERT INTO ${SHAPES_TABLE}(name, value) VALUES (?, ?)`).run(r.name, r.value);
    } finally {
      otherStore.close();
    }
    assert.ok(reopen(store, 'computed', 'foreign').some((l) => l.includes('differs from the saved one') || l.includes('not an active record')));
  });

  it('a corrupt copy (truncated part, words out of range, a part missing, a header not JSON) is computed anew', () => {
    const db = store.connectionForQueries();
    const corruptions: [string, () => void][] = [
      ['truncated pool', () => db.prepare(`UPDATE ${SHAPES_TABLE} SET value = substr(value, 1, length(value) - 6) WHERE name = 'pool'`).run()],
      ['words out of range', () => {
        const pool = new Uint32Array(new Uint8Array((db.prepare(`SELECT value FROM ${SHAPES_TABLE} WHERE name = 'pool'`).get() as { value: Buffer }).value).buffer);
        pool[pool.length - 1] = 0xffffff;
        db.prepare(`UPDATE ${SHAPES_TABLE} SET value = ? WHERE name = 'pool'`).run(Buffer.from(pool.buffer));
      }],
      ['a part missing', () => db.prepare(`DELETE FROM ${SHAPES_TABLE} WHERE name = 'programs'`).run()],
      ['header not JSON', () => db.prepare(`UPDATE ${SHAPES_TABLE} SET value = ? WHERE name = 'header'`).run(Buffer.from('{"format": 1,'))],
    ];
    for (const [label, corrupt] of corruptions) {
      ShapeIndex.open(store, { saveMinRecords: 1 }).dispose();
      corrupt();
      assert.ok(reopen(store, 'computed', label).some((l) => l.includes('do not fit')), label);
    }
  });

  it('a background open reads the saved copy across turns: null until loaded, then the saved state', async () => {
    ShapeIndex.open(store, { saveMinRecords: 1 }).dispose();
    const index = ShapeIndex.open(store, { background: true, saveMinRecords: 1 });
    try {
      assert.equal(index.shapes(), null);
      await index.ready;
      assert.equal(index.origin, 'saved');
      assertSameAsScratch(store, index, 'background');
    } finally {
      index.dispose();
    }
  });
});
