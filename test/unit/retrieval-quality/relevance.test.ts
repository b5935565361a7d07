import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MemoryRetriever } from '../../../src/core/agent/retriever';
import { refitAndReembed, storeEmbedder } from '../../../src/core/app/embedding';
import { nullLogger } from '../../../src/core/logger';
import { KeywordIndex } from '../../../src/core/memory/keyword/keyword-index';
import { InlineKeywords, WorkerKeywords } from '../../../src/core/memory/keyword/keyword-service';
import { DEFAULT_MIN_RELEVANCE, hasContentWords, queryContentTerms, recordTerms, relevanceOf, relevanceScorer, termWeight } from '../../../src/core/memory/search/relevance';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { CODING } from '../../support/coding-records';

/** Queries that share no task with the memory. */
const UNRELATED = ['how many patients were admitted to the icu in 2104', 'what was the last potassium lab value of patient 2238', 'train a neural network on mnist'];

describe('relevance (abstention: a score with one meaning in every memory, and its floor)', () => {
  it('is √(known × shared) of the query content words: in [0, 1], 0 for a query without words, never NaN', () => {
    const terms = queryContentTerms('Sort the list of dicts by key');
    assert.deepEqual(terms, ['sort', 'list', 'dict', 'key']);
    assert.equal(relevanceOf(terms, [true, true, true, true], new Set(terms)), 1);
    assert.equal(relevanceOf(terms, [true, true, true, true], new Set(['sort'])), 0.5);
    assert.equal(relevanceOf(terms, [true, false, false, false], new Set(['sort'])), 0.25);
    assert.equal(relevanceOf(terms, [false, false, false, false], new Set()), 0);
    assert.equal(relevanceOf([], [], new Set(['x'])), 0);
    for (const q of ['%_%', '   ', '?!', '42', 'the of and']) {
      assert.equal(hasContentWords(q), false, q);
      const score = relevanceScorer(q, () => [])('sort a list', 'rows.sort()');
      assert.equal(score, 0, q);
    }
  });

  it('a record holds its question words and its code identifiers split into words', () => {
    const terms = recordTerms('join paths', 'os.path.join(baseDir, file_name)');
    for (const t of ['join', 'path', 'os', 'base', 'dir', 'file', 'name']) assert.ok(terms.has(t), t);
  });

  it('weighs each word of the known share by its IDF in the memory: a word every record holds 1, an unseen word the most', () => {
    assert.equal(termWeight(100, 100), 1);
    assert.ok(Math.abs(termWeight(0, 100) - (Math.log(101) + 1)) < 1e-12);
    assert.ok(termWeight(0, 100) > termWeight(1, 100) && termWeight(1, 100) > termWeight(50, 100));
    assert.equal(termWeight(7, 0), 1, 'an empty memory weighs every word alike');
    const terms = ['list', 'value', 'kuberne', 'helm'];
    // Two everyday words known, two words the memory never saw: the unweighted known share is 1/2.
    const known = [true, true, false, false];
    const unweighted = relevanceOf(terms, known, new Set(['list', 'value']));
    const weighted = relevanceOf(terms, known, new Set(['list', 'value']), [termWeight(400, 1000), termWeight(300, 1000), termWeight(0, 1000), termWeight(0, 1000)]);
    assert.equal(unweighted, 0.5);
    assert.ok(weighted < DEFAULT_MIN_RELEVANCE && unweighted >= DEFAULT_MIN_RELEVANCE, `${weighted} / ${unweighted}`);
    // Every word known: the weights change nothing.
    assert.equal(relevanceOf(terms, [true, true, true, true], new Set(terms), [2, 3, 9, 9]), 1);
  });

  it('the scorer reads the frequencies once and weighs with the memory size it is given', () => {
    let calls = 0;
    const frequencies = (terms: readonly string[]): number[] => {
      calls += 1;
      return terms.map((t) => (t === 'list' ? 600 : t === 'value' ? 500 : 0));
    };
    const score = relevanceScorer('deploy a list of values to kubernetes', frequencies, 1000);
    const record = ['a list of values', 'values = list(items)'] as const;
    const small = relevanceScorer('deploy a list of values to kubernetes', frequencies, 600)(...record);
    assert.ok(score(...record) > small, 'in a larger memory the same frequencies are rarer, so the known words count more');
    score('x', 'y');
    assert.equal(calls, 2);
  });

  it('without document frequencies a word counts as known when the record holds it', () => {
    const score = relevanceScorer('sort dicts by age', () => null);
    assert.equal(score('sort a list of dicts', "rows.sort(key=lambda r: r['age'])"), 1);
    assert.equal(score('parse a date', 'datetime.fromisoformat(text)'), 0);
  });

  describe('on a real store (SQLite file, sqlite-vec, keyword index inline and in a worker)', () => {
    let dir: string;
    let store: MemoryStore;
    let retriever: MemoryRetriever;

    before(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-relevance-'));
      store = MemoryStore.open(path.join(dir, 'memory.sqlite'));
      store.add(
        CODING.map((c) => ({ question: c.question, execution: { code: c.code, language: c.language, outcome: 'success' as const }, provenance: 'seed' as const })),
        { trigger: 'user', reason: 'test seed' },
      );
      refitAndReembed(store, 'user');
      retriever = MemoryRetriever.open(store, { file: null, logger: nullLogger });
    });
    after(() => {
      retriever.close();
      store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    const retrieve = (q: string, k: number, minRelevance?: number) => retriever.retrieve(q, storeEmbedder(store, nullLogger).embedSync(q), k, minRelevance === undefined ? {} : { minRelevance });

    it('unrelated tasks get no record at the default floor; a paraphrase of a recorded task gets it first', () => {
      for (const q of UNRELATED) {
        assert.equal(retrieve(q, 4).length, 4, 'without a floor every search answers k');
        assert.deepEqual(retrieve(q, 4, DEFAULT_MIN_RELEVANCE), [], q);
      }
      const found = retrieve('paginate() is off by one in the pager', 4, DEFAULT_MIN_RELEVANCE);
      assert.ok(found.length >= 1);
      assert.equal(found[0].question, CODING[0].question);
      assert.ok(found[0].relevance! >= DEFAULT_MIN_RELEVANCE);
    });

    it('floor semantics: every result at or above it, ranks renumbered, a higher floor keeps a subset, 0 keeps all; scores never negative or NaN', () => {
      const q = 'sort dicts in a list by their age key';
      const all = retrieve(q, 6, 0);
      assert.equal(all.length, 6);
      for (const d of all) assert.ok(Number.isFinite(d.relevance) && d.relevance! >= 0 && d.relevance! <= 1, String(d.relevance));
      let previous = all.map((d) => d.recordId);
      for (const floor of [0.1, 0.3, 0.5, 0.9]) {
        const kept = retrieve(q, 6, floor);
        assert.ok(kept.every((d) => d.relevance! >= floor));
        assert.deepEqual(kept.map((d) => d.rank), kept.map((_, i) => i));
        assert.ok(kept.every((d) => previous.includes(d.recordId)), `floor ${floor} keeps a subset`);
        previous = kept.map((d) => d.recordId);
      }
      assert.equal(all[0].question, CODING[2].question);
    });

    it('a query without words answers nothing (no NaN)', () => {
      assert.deepEqual(retrieve('%_%', 4, 0), []);
      assert.deepEqual(retrieve('%_%', 4, DEFAULT_MIN_RELEVANCE), []);
    });

    it('the keyword index answers document frequencies the same inline and from its worker thread', async () => {
      const terms = ['sort', 'dict', 'paginat', 'csv', 'potassium', 'total', 'event'];
      const inline = new InlineKeywords(KeywordIndex.open(store, { file: null }), nullLogger);
      const worker = new WorkerKeywords(store, { file: null }, nullLogger);
      try {
        await worker.ready;
        const expected = inline.documentFrequencies(terms);
        assert.deepEqual(expected.map((n) => n > 0), [true, true, true, true, false, true, true]);
        assert.deepEqual(worker.documentFrequencies(terms), expected);
      } finally {
        inline.close();
        worker.close();
        await worker.stopped;
      }
    });
  });
});
