import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import MiniSearch from 'minisearch';
import { SyntheticRecords } from '../../../src/core/bench/synthetic-records';
import { KeywordIndex } from '../../../src/core/memory/keyword-index';
import { KeywordScorer } from '../../../src/core/memory/keyword-scorer';
import { MemoryStore } from '../../../src/core/memory/store';
import { sampleRecord } from '../../support/records';

const TASKS = path.join(__dirname, '..', '..', '..', 'data', 'ehr', 'ehrsql-mimic3-tasks.jsonl');

/** Every query answered by the scorer exactly as by one MiniSearch search of the whole query: same records, scores and order. */
function assertSameAsMiniSearch(index: KeywordIndex, queries: string[], limits = [1, 4, 32, 200]): void {
  for (const q of queries) {
    for (const limit of limits) assert.deepEqual(index.search(q, limit), index.searchDirect(q, limit), `${q} (top ${limit})`);
  }
}

describe('KeywordScorer (MiniSearch per-term results, combined)', () => {
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
});
