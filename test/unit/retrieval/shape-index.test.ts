import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { HybridSearch } from '../../../src/core/memory/search/hybrid-search';
import { QuestionShapes } from '../../../src/core/memory/search/rerank';
import { DomainValues } from '../../../src/core/memory/search/domain-values';
import { SHAPE_PAGE_ROWS, ShapeIndex } from '../../../src/core/memory/search/shape-index';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { HashingEmbedder } from '../../../src/core/similarity/hashing-embedder';
import { sampleRecord } from '../../support/records';

/** EHR-style records of a few shapes: value phrases in their programs, question words of their own. */
/** Values of a database the programs query: with them attached the re-ranking applies (rerankApplies). */
const VALUES = new DomainValues([['aspirin', 'prescriptions.drug']]);

const RECORDS = [
  { id: 'drug', question: 'What is the intake method of danazol?', code: `answer = sql("select route from prescriptions where drug = 'danazol'")` },
  { id: 'lab', question: 'When did patient 10006 last get a blood glucose test?', code: `answer = sql("select charttime from labevents where itemid in (select itemid from d_labitems where label = 'blood glucose') and subject_id = 10006")` },
  { id: 'ward', question: 'What was the first ward of patient 7 this year?', code: 'answer = sql("select wardid from transfers where subject_id = 7")' },
  { id: 'careunit', question: 'What was the first care unit of patient 7 this year?', code: 'answer = sql("select careunit from transfers where subject_id = 7")' },
  { id: 'cost', question: 'What is the cost of a procedure named knee replacement?', code: `answer = sql("select cost from cost where event_type = 'procedures_icd' and title = 'knee replacement'")` },
  { id: 'okapi', question: 'How many okapi sightings were logged at the zoo?', code: `rows = db.all("select count(*) from sightings where animal = 'okapi'")` },
];

const QUERIES = ['What is the intake method of heparin?', 'How many okapi sightings last week?', 'Which ward did patient 9 stay in first?', 'cost of knee replacement surgery?'];

function embedded(store: MemoryStore, records: typeof RECORDS): void {
  const embedder = new HashingEmbedder();
  store.add(
    records.map((r) => sampleRecord({ id: r.id, question: r.question, code: r.code })),
    { trigger: 'user', embeddings: records.map((r) => embedder.embedSync(r.question)), embedderId: embedder.id },
  );
}

/** The state kept incrementally must equal a rebuild from the store's active records. */
function assertSameAsRebuild(store: MemoryStore, kept: QuestionShapes, label: string): void {
  const rebuilt = ShapeIndex.open(store);
  try {
    const fresh = rebuilt.shapes()!;
    assert.deepEqual(kept.snapshot(), fresh.snapshot(), `${label}: counts`);
    for (const q of QUERIES) assert.deepEqual(kept.maskQuery(q), fresh.maskQuery(q), `${label}: masked view of '${q}'`);
  } finally {
    rebuilt.dispose();
  }
}

describe('QuestionShapes upkeep (set / delete keyed by rid)', () => {
  it('add, delete, restore and a text change leave the same state as a rebuild from the survivors', () => {
    const kept = new QuestionShapes();
    RECORDS.forEach((r, i) => kept.set(i, r.question, r.code));
    kept.delete(0);
    kept.delete(5);
    kept.delete(5); // twice: nothing more happens
    kept.set(5, RECORDS[5].question, RECORDS[5].code); // restored
    kept.set(2, 'Which ward was patient 7 moved to first this year?', RECORDS[2].code); // text changed
    const rebuilt = new QuestionShapes();
    RECORDS.forEach((r, i) => {
      if (i === 0) return;
      rebuilt.set(i, i === 2 ? 'Which ward was patient 7 moved to first this year?' : r.question, r.code);
    });
    assert.deepEqual(kept.snapshot(), rebuilt.snapshot());
    assert.equal(kept.size, 5);
    for (const q of QUERIES) {
      const candidates = RECORDS.map((r, i) => ({ key: i, score: 1 - i / 10, question: r.question, code: r.code }));
      assert.deepEqual(kept.rerank(q, candidates).map((c) => c.key), rebuilt.rerank(q, candidates).map((c) => c.key), q);
    }
  });

  it('masks the query with the live vocabulary and question words: a value leaves with its last record', () => {
    const shapes = new QuestionShapes();
    RECORDS.forEach((r, i) => shapes.set(i, r.question, r.code));
    // 'danazol' is a literal of record 0's program; 'heparin' no stored question uses: both are value slots.
    assert.deepEqual(shapes.maskQuery('What is the intake method of danazol?'), ['what', 'is', 'the', 'intake', 'method', 'of', '<value>']);
    assert.deepEqual(shapes.maskQuery('Blood glucose of patient 12 at 2104-03-01?'), ['<value>', 'of', 'patient', '<number>', 'at', '<date>']);
    assert.deepEqual(shapes.maskQuery('okapi sightings'), ['<value>', 'sightings']);
    shapes.delete(5);
    // 'sightings' was a question word of record 5 only: now it is an unknown word, merged into the value slot.
    assert.deepEqual(shapes.maskQuery('okapi sightings'), ['<value>']);
    shapes.delete(0);
    // 'intake method' now appears in no stored question, 'danazol' in no program: two value slots.
    assert.deepEqual(shapes.maskQuery('What is the intake method of danazol?'), ['what', 'is', 'the', '<value>', 'of', '<value>']);
  });
});

describe('ShapeIndex (the re-ranking state kept with the store)', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shapes-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('follows add, delete, restore, purge and a new record through the change log, equal to a rebuild each time', () => {
    const store = MemoryStore.open(path.join(dir, 'm.sqlite'));
    const search = HybridSearch.open(store, { file: null, background: false, domainValues: VALUES });
    try {
      embedded(store, RECORDS.slice(0, 4));
      const shapes = search.shapes.shapes()!;
      assert.equal(shapes.size, 4);
      assertSameAsRebuild(store, shapes, 'after add');
      store.transition(['drug', 'ward'], 'delete', { trigger: 'user' });
      assert.equal(search.shapes.shapes()!.size, 2);
      assert.ok(!search.shapes.shapes()!.has(store.ridOf('drug')!));
      assertSameAsRebuild(store, shapes, 'after delete');
      store.transition(['ward'], 'restore', { trigger: 'user' });
      assertSameAsRebuild(store, search.shapes.shapes()!, 'after restore');
      store.transition(['drug'], 'purge', { trigger: 'user' });
      embedded(store, RECORDS.slice(4));
      assert.equal(search.shapes.shapes()!.size, 5);
      assertSameAsRebuild(store, search.shapes.shapes()!, 'after purge and add');
      // Searching uses the kept state: the hybrid answer is re-ranked and holds active records only.
      const embedder = new HashingEmbedder();
      const q = 'Which ward did patient 9 stay in first?';
      const hits = search.search({ text: q, vector: embedder.embedSync(q) }, 3, { rerank: true });
      assert.equal(hits[0].recordId, 'ward');
      assert.ok(!hits.some((h) => h.recordId === 'drug'));
    } finally {
      search.close();
      store.close();
    }
  });

  it('loads in pages across event-loop turns when opened in the background: no state until complete, then every active record', async () => {
    const file = path.join(dir, 'big.sqlite');
    const store = MemoryStore.open(file);
    const many = Array.from({ length: SHAPE_PAGE_ROWS * 2 + 7 }, (_, i) => ({ id: `r${i}`, question: `How many okapi sightings were logged at zoo ${i}?`, code: `rows = db.all("select count(*) from sightings where zoo = 'zoo ${i}'")` }));
    embedded(store, many);
    const index = ShapeIndex.open(store, { background: true });
    try {
      assert.equal(index.shapes(), null, 'no state while the load runs');
      assert.equal(index.loaded, false);
      await index.ready;
      assert.equal(index.shapes()!.size, many.length);
      assertSameAsRebuild(store, index.shapes()!, 'background load');
    } finally {
      index.dispose();
      store.close();
    }
  });

  it('a background load starts only once `after` settles (a search passes its dense and keyword loads): the first answers of a cold start do not share turns with it', async () => {
    const store = MemoryStore.open(path.join(dir, 'after.sqlite'));
    embedded(store, RECORDS);
    let release!: () => void;
    const sides = new Promise<void>((resolve) => (release = resolve));
    const index = ShapeIndex.open(store, { background: true, after: sides });
    try {
      for (let turn = 0; turn < 20; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
      assert.equal(index.loaded, false, 'nothing read while the sides load');
      release();
      await index.ready;
      assert.equal(index.shapes()!.size, RECORDS.length);
      assertSameAsRebuild(store, index.shapes()!, 'load after the sides');
    } finally {
      index.dispose();
      store.close();
    }
  });

  it('off by default: nothing is read until a search asks for the re-ranking with the data\'s values; before the background load completes it keeps the fused order, and re-ranks once loaded', async () => {
    const store = MemoryStore.open(path.join(dir, 'm.sqlite'));
    embedded(store, RECORDS);
    const search = HybridSearch.open(store, { file: null, background: true });
    try {
      const embedder = new HashingEmbedder();
      const q = 'Which care unit did patient 9 stay in first?';
      const query = { text: q, vector: embedder.embedSync(q) };
      await search.ready;
      assert.equal((search as unknown as { shapeIndex: unknown }).shapeIndex, null, 'no shapes read while the re-ranking is off');
      assert.deepEqual(search.search(query, 4, { rerank: true }), search.search(query, 4), 'without the data\'s values a re-ranked search is the fused one');
      assert.equal((search as unknown as { shapeIndex: unknown }).shapeIndex, null, 'and reads no shapes');
      search.setDomainValues(VALUES);
      const early = search.search(query, 4, { rerank: true });
      assert.deepEqual(early.map((h) => h.recordId), search.search(query, 4).map((h) => h.recordId), 'fused order while loading');
      await search.ready;
      assert.equal(search.shapes.shapes()!.size, RECORDS.length);
      assert.equal(search.search(query, 4, { rerank: true })[0].recordId, 'careunit');
    } finally {
      search.close();
      store.close();
    }
  });
});
