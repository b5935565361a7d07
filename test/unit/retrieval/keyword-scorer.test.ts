import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import MiniSearch from 'minisearch';
import { SyntheticRecords } from '../../../src/core/bench/synthetic-records';
import { KeywordIndex, WARM_MIN_DF } from '../../../src/core/memory/keyword/keyword-index';
import { KeywordScorer, WARM_PIECE_POSTINGS } from '../../../src/core/memory/keyword/keyword-scorer';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { sampleRecord } from '../../support/records';

const TASKS = path.join(__dirname, '..', '..', '..', 'data', 'ehr', 'ehrsql-mimic3-tasks.jsonl');

/** Every query answered by the scorer exactly as by one MiniSearch search of the whole query: same records, scores and order. */
function assertSameAsMiniSearch(index: KeywordIndex, queries: string[], limits = [1, 4, 32, 200]): void {
  for (const q of queries) {
    for (const limit of limits) assert.deepEqual(index.search(q, limit), index.searchDirect(q, limit), `${q} (top ${limit})`);
  }
}

/** Warms the whole cache, one piece per step (a zero slice); the number of steps. */
function warmFully(index: KeywordIndex): number {
  let steps = 1;
  while (index.warmStep(0)) steps++;
  return steps;
}

/** The terms the scorer looks up in the index (its postings, or MiniSearch's `search`: one term per call) while `run` runs. */
function termLookups(run: () => void): string[] {
  const proto = KeywordScorer.prototype as unknown as { fetch: (term: string, only?: unknown) => unknown };
  const original = proto.fetch;
  const calls: string[] = [];
  proto.fetch = function (this: KeywordScorer, term: string, only?: unknown) {
    calls.push(term);
    return original.call(this, term, only);
  };
  try {
    run();
  } finally {
    proto.fetch = original;
  }
  return calls;
}

describe('KeywordScorer (MiniSearch per-term results, combined)', function () {
  // Child processes / whole-memory rebuilds: their run time follows the machine's load (13 s seen under CI load); not a speed check.
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kw-scorer-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('answers like MiniSearch’s whole-query search on a templated corpus (ties included), through the postings budget', () => {
    const store = MemoryStore.open(':memory:');
    store.add(SyntheticRecords.fromFile(TASKS, 7).records(3000), { trigger: 'import' });
    const queries = Array.from({ length: 60 }, (_, i) => SyntheticRecords.fromFile(TASKS, 100 + i).question());
    // A small budget makes queries keep few terms; the default keeps all of them at this size.
    for (const maxPostings of [300, undefined]) {
      const index = KeywordIndex.open(store, { maxPostings });
      assertSameAsMiniSearch(index, queries);
      // Second pass: answered from cached term results.
      assertSameAsMiniSearch(index, queries);
      index.close();
    }
    store.close();
  });

  it('stays identical after discards and additions (a dirty MiniSearch index) and after a reload from the file', () => {
    const db = path.join(dir, 'm.sqlite');
    let store = MemoryStore.open(db);
    const gen = SyntheticRecords.fromFile(TASKS, 11);
    const ids = store.add(gen.records(1500), { trigger: 'import' }).map((r) => r.id);
    const queries = Array.from({ length: 40 }, () => gen.question());
    let index = KeywordIndex.open(store);
    assertSameAsMiniSearch(index, queries);
    store.transition(ids.filter((_, i) => i % 7 === 0), 'delete', { trigger: 'user' });
    store.add(gen.records(200), { trigger: 'import' });
    assertSameAsMiniSearch(index, queries);
    store.transition(ids.filter((_, i) => i % 7 === 0).slice(0, 50), 'restore', { trigger: 'user' });
    assertSameAsMiniSearch(index, queries);
    index.close();
    store.close();
    store = MemoryStore.open(db);
    index = KeywordIndex.open(store);
    assert.equal(index.origin, 'loaded');
    assertSameAsMiniSearch(index, queries);
    index.close();
    store.close();
  });

  it('answers the same from a warmed cache, and after a change, before and after re-warming (also when the change comes mid-warm)', () => {
    const store = MemoryStore.open(':memory:');
    const gen = SyntheticRecords.fromFile(TASKS, 21);
    const ids = store.add(gen.records(3000), { trigger: 'import' }).map((r) => r.id);
    const queries = Array.from({ length: 40 }, () => gen.question());
    const index = KeywordIndex.open(store);
    assert.equal(index.cacheStats.terms, 0);
    const steps = warmFully(index);
    const warmed = index.cacheStats;
    assert.ok(warmed.warmedTerms > 50, `${warmed.warmedTerms} terms warmed`);
    assert.equal(warmed.terms, warmed.warmedTerms);
    // Terms over WARM_PIECE_POSTINGS documents are searched in pieces, across steps.
    assert.ok(index.documentFrequency('patient') > WARM_PIECE_POSTINGS && steps > warmed.warmedTerms, `${steps} steps`);
    assert.equal(index.warmStep(0), false);
    assertSameAsMiniSearch(index, queries);

    // A change drops the cache (at the next catch-up); answers stay the same, cold and re-warmed.
    store.transition(ids.filter((_, i) => i % 5 === 0), 'delete', { trigger: 'user' });
    store.add(gen.records(300), { trigger: 'import' });
    const version = index.version;
    assert.ok(index.size > 0 && index.version > version);
    assert.equal(index.cacheStats.terms, 0);
    assertSameAsMiniSearch(index, queries);
    warmFully(index);
    assert.ok(index.cacheStats.warmedTerms > 50);
    assertSameAsMiniSearch(index, queries);

    // A change in the middle of warming (a term half searched in pieces) starts it over.
    store.transition(ids.filter((_, i) => i % 5 === 0).slice(0, 100), 'restore', { trigger: 'user' });
    index.size; // catch up: the cache is dropped, warming starts over
    while (index.cacheStats.warmedTerms < 1) index.warmStep(0);
    assert.equal(index.warmStep(0), true); // the first piece of the next term (the most frequent come first: in pieces)
    assert.equal(index.cacheStats.warmedTerms, 1);
    store.add(gen.records(50), { trigger: 'import' });
    assert.equal(index.warmStep(0), true);
    assert.equal(index.cacheStats.warmedTerms, 0);
    warmFully(index);
    assertSameAsMiniSearch(index, queries);
    index.close();
    store.close();
  });

  it('after warming, a query asks MiniSearch only about terms rarer than WARM_MIN_DF', () => {
    const store = MemoryStore.open(':memory:');
    const gen = SyntheticRecords.fromFile(TASKS, 5);
    store.add(gen.records(2000), { trigger: 'import' });
    const queries = Array.from({ length: 30 }, () => gen.question());
    const index = KeywordIndex.open(store);
    const cold = termLookups(() => queries.forEach((q) => index.search(q, 32)));
    assert.ok(cold.some((t) => index.documentFrequency(t) >= WARM_MIN_DF), 'unwarmed, frequent terms are searched on demand');
    store.add(gen.records(1), { trigger: 'import' }); // a change: the terms cached by these queries are dropped
    assert.equal(index.size, 2001);
    warmFully(index);
    const warm = termLookups(() => queries.forEach((q) => index.search(q, 32)));
    assert.deepEqual(warm.filter((t) => index.documentFrequency(t) >= WARM_MIN_DF), []);
    index.close();
    store.close();
  });

  it('orders exact ties as MiniSearch does (first matching query term, then field, then insertion order)', () => {
    const store = MemoryStore.open(':memory:');
    const same = 'how many patients were prescribed aspirin';
    store.add(
      [
        sampleRecord({ id: 'a', question: same }),
        sampleRecord({ id: 'b', question: 'unrelated text', code: "answer = sql('select aspirin from prescriptions')" }),
        sampleRecord({ id: 'c', question: same }),
        sampleRecord({ id: 'd', question: 'aspirin dose for patients' }),
        sampleRecord({ id: 'e', question: same }),
      ],
      { trigger: 'user' },
    );
    const index = KeywordIndex.open(store);
    assertSameAsMiniSearch(index, ['aspirin patients', 'patients aspirin', 'prescriptions aspirin', same], [1, 2, 3, 5]);
    index.close();
    store.close();
  });

  it('drops its cached terms when the index changes and keeps within its budget', async () => {
    type Doc = { id: number; question: string; code: string };
    const options = { fields: ['question', 'code'], storeFields: [] as string[], autoVacuum: false };
    const ms = new MiniSearch<Doc>(options);
    const docs: Doc[] = Array.from({ length: 40 }, (_, i) => ({ id: i + 1, question: `alpha beta ${i % 3 === 0 ? 'gamma' : 'delta'}`, code: i % 2 ? 'alpha' : '' }));
    ms.addAll(docs);
    const scorer = new KeywordScorer(ms, { fields: ['question', 'code'], boost: { question: 1, code: 1 }, bm25: { k: 1.2, b: 0.7, d: 0.5 }, maxTermFrequency: { question: Infinity, code: Infinity }, maxCachedPostings: 50 });
    const df = (term: string) => ['question', 'code'].map((f) => docs.filter((d) => d[f as 'question' | 'code'].split(' ').includes(term)).length);
    const reference = (terms: string[], limit: number) =>
      ms.search(terms.join(' '), { combineWith: 'OR' }).slice(0, limit).map((r) => ({ rid: r.id as number, score: r.score }));
    assert.deepEqual(scorer.search(['gamma', 'alpha'], 5, df), reference(['gamma', 'alpha'], 5));
    assert.ok(scorer.cachedTerms >= 1 && scorer.cachedTerms <= 2);
    ms.discard(4);
    await ms.vacuum(); // the scorer's contract: no discarded postings left
    docs.splice(3, 1);
    scorer.discarded([4]);
    assert.equal(scorer.cachedTerms, 0);
    ms.add({ id: 99, question: 'gamma gamma', code: '' });
    docs.push({ id: 99, question: 'gamma gamma', code: '' });
    scorer.added([99]);
    assert.deepEqual(scorer.search(['gamma', 'alpha'], 5, df), reference(['gamma', 'alpha'], 5));
    assert.deepEqual(scorer.search(['beta', 'delta'], 40, df), reference(['beta', 'delta'], 40));
  });

  it('reads a pruned term whole (and caches it) when it has no more postings than the documents left, else only for them; the same answers', () => {
    type Doc = { id: number; question: string; code: string };
    for (const [gammaDocs, whole] of [[10, true], [30, false]] as const) {
      const ms = new MiniSearch<Doc>({ fields: ['question', 'code'], storeFields: [] as string[], autoVacuum: false });
      // 20 documents hold alpha and beta (warmed): a document matching only gamma (not warmed, lower bound) cannot reach them.
      const docs: Doc[] = Array.from({ length: 60 }, (_, i) => ({ id: i + 1, question: i < 20 ? `alpha beta w${i % 7}` : i < 20 + gammaDocs ? `gamma w${i % 5}` : `delta w${i % 3}`, code: '' }));
      ms.addAll(docs);
      const scorer = new KeywordScorer(ms, { fields: ['question', 'code'], boost: { question: 1, code: 1 }, bm25: { k: 1.2, b: 0.7, d: 0.5 }, maxTermFrequency: { question: Infinity, code: Infinity } });
      const df = (term: string) => [docs.filter((d) => d.question.split(' ').includes(term)).length, 0];
      const reference = (terms: string[], limit: number) =>
        ms.search(terms.join(' '), { combineWith: 'OR' }).slice(0, limit).map((r) => ({ rid: r.id as number, score: r.score }));
      scorer.warm('alpha', df, Infinity);
      scorer.warm('beta', df, Infinity);
      const proto = KeywordScorer.prototype as unknown as { fetch: (term: string, only?: unknown) => unknown };
      const original = proto.fetch;
      const reads: { term: string; filtered: boolean }[] = [];
      proto.fetch = function (this: KeywordScorer, term: string, only?: unknown) {
        reads.push({ term, filtered: only !== undefined });
        return original.call(this, term, only);
      };
      try {
        for (const limit of [1, 2, 5]) assert.deepEqual(scorer.search(['alpha', 'beta', 'gamma'], limit, df), reference(['alpha', 'beta', 'gamma'], limit), `${gammaDocs} gamma documents, top ${limit}`);
      } finally {
        proto.fetch = original;
      }
      // Whole: read once, then cached (the next queries read nothing); filtered: read for the 20 documents left at each query.
      assert.deepEqual(reads, whole ? [{ term: 'gamma', filtered: false }] : Array.from({ length: 3 }, () => ({ term: 'gamma', filtered: true })), `${gammaDocs} gamma documents`);
      assert.equal(scorer.cachedTerms, whole ? 3 : 2);
    }
  });

  it('answers 300 templated queries as the whole-query scoring does, warmed (pruned terms read whole or filtered, selection skipped or not)', () => {
    const store = MemoryStore.open(':memory:');
    const gen = SyntheticRecords.fromFile(TASKS, 11);
    store.add(gen.records(4000), { trigger: 'import' });
    const queries = Array.from({ length: 300 }, () => gen.question());
    // A budget that leaves many mid-frequency terms uncached: queries prune them, read whole or for the documents left.
    const index = KeywordIndex.open(store, { termCachePostings: 20_000 });
    warmFully(index);
    const filtered: boolean[] = [];
    const proto = KeywordScorer.prototype as unknown as { fetch: (term: string, only?: unknown) => unknown };
    const original = proto.fetch;
    proto.fetch = function (this: KeywordScorer, term: string, only?: unknown) {
      filtered.push(only !== undefined);
      return original.call(this, term, only);
    };
    try {
      assertSameAsMiniSearch(index, queries, [1, 4, 20, 32]);
    } finally {
      proto.fetch = original;
    }
    assert.ok(filtered.includes(true) && filtered.includes(false), 'both reads of a pruned term happen');
    index.close();
    store.close();
  });

  it('keeps warmed terms until the index changes: queries cache others in the room left, never evicting them', () => {
    type Doc = { id: number; question: string; code: string };
    const ms = new MiniSearch<Doc>({ fields: ['question', 'code'], storeFields: [] as string[], autoVacuum: false });
    const docs: Doc[] = Array.from({ length: 40 }, (_, i) => ({ id: i + 1, question: `alpha ${i < 30 ? 'beta' : ''} ${i < 15 ? 'gamma' : ''} ${i < 5 ? 'delta' : ''}`, code: '' }));
    ms.addAll(docs);
    const scorer = new KeywordScorer(ms, { fields: ['question', 'code'], boost: { question: 1, code: 1 }, bm25: { k: 1.2, b: 0.7, d: 0.5 }, maxTermFrequency: { question: Infinity, code: Infinity }, maxCachedPostings: 59 });
    const df = (term: string) => [docs.filter((d) => d.question.split(' ').includes(term)).length, 0];
    const reference = (terms: string[], limit: number) =>
      ms.search(terms.join(' '), { combineWith: 'OR' }).slice(0, limit).map((r) => ({ rid: r.id as number, score: r.score }));
    assert.equal(scorer.warm('alpha', df, Infinity), true);
    assert.equal(scorer.warm('beta', df, Infinity), true); // 40 + 30 postings: over the budget, not cached
    assert.deepEqual(scorer.cacheStats, { terms: 1, postings: 40, warmedTerms: 1, warmedPostings: 40 });
    assert.deepEqual(scorer.search(['gamma', 'alpha'], 5, df), reference(['gamma', 'alpha'], 5));
    assert.deepEqual(scorer.cacheStats, { terms: 2, postings: 55, warmedTerms: 1, warmedPostings: 40 });
    // delta (5) evicts gamma (15), the least recently used queried term, never alpha.
    assert.deepEqual(scorer.search(['delta', 'alpha'], 5, df), reference(['delta', 'alpha'], 5));
    assert.deepEqual(scorer.cacheStats, { terms: 2, postings: 45, warmedTerms: 1, warmedPostings: 40 });
    // Warming a term a query cached keeps its results (no search).
    const calls = termLookups(() => assert.equal(scorer.warm('delta', df, Infinity), true));
    assert.deepEqual(calls, []);
    assert.deepEqual(scorer.cacheStats, { terms: 2, postings: 45, warmedTerms: 2, warmedPostings: 45 });
    assert.deepEqual(scorer.search(['beta', 'gamma', 'delta'], 40, df), reference(['beta', 'gamma', 'delta'], 40));
    scorer.added([]);
    assert.deepEqual(scorer.cacheStats, { terms: 0, postings: 0, warmedTerms: 0, warmedPostings: 0 });
  });
});
