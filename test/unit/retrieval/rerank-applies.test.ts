/**
 * Issue 35: the re-ranking applies only where its parts apply, with the values of the database the
 * programs query attached (rerankApplies, rerank.ts). Without them a search that asks for it is the fused
 * search: the same records, order, scores, ranks and copy counts.
 */
import { strict as assert } from 'node:assert';
import { loadEvalFile } from '../../../src/core/bench/eval-retrieval';
import { HybridSearch, type SearchHit, type SearchOptions } from '../../../src/core/memory/search/hybrid-search';
import { DomainValues } from '../../../src/core/memory/search/domain-values';
import { rerankApplies } from '../../../src/core/memory/search/rerank';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { HashingEmbedder } from '../../../src/core/similarity/hashing-embedder';
import { sampleRecord } from '../../support/records';
import { writeEhrSplit } from '../retrieval-quality/ehr-split';
import * as fs from 'node:fs';

const VALUES = new DomainValues([['potassium', 'd_labitems.label'], ['aspirin', 'prescriptions.drug']]);

describe('re-ranking applies only with the data\'s values (issue 35)', function () {
  // Hundreds of searches per case over a 400-record memory: minutes on a loaded 2-core machine.
  this.timeout(180_000);
  const embedder = new HashingEmbedder();
  let store: MemoryStore;
  let questions: string[];

  before(function () {
    this.timeout(60_000);
    const files = writeEhrSplit(200);
    try {
      const memory = loadEvalFile(files.memory);
      questions = loadEvalFile(files.queries).map((q) => q.question);
      store = MemoryStore.open(':memory:');
      // Every program twice (the second under another id), so the collapse and its copy counts are exercised.
      const records = memory.flatMap((m, i) => [0, 1].map((c) => sampleRecord({ id: `m${i}-${c}`, question: m.question, code: m.code, createdTask: i })));
      store.add(records, { trigger: 'user', embeddings: records.map((r) => embedder.embedSync(r.question)), embedderId: embedder.id });
    } finally {
      fs.rmSync(files.dir, { recursive: true, force: true });
    }
  });
  after(() => store.close());

  const answers = (search: HybridSearch, options: SearchOptions, k: number): SearchHit[][] =>
    questions.map((q) => search.search({ text: q, vector: embedder.embedSync(q) }, k, options));

  it('rerankApplies: only a non-empty set of values', () => {
    assert.equal(rerankApplies(undefined), false);
    assert.equal(rerankApplies(null), false);
    assert.equal(rerankApplies(new DomainValues([])), false);
    assert.equal(rerankApplies(VALUES), true);
  });

  it('without values, every re-ranked search equals the fused one (ids, order, scores, ranks, copies) for k 1, 4 and 10, with recency and per-side collapse', () => {
    const search = HybridSearch.open(store, { file: null });
    try {
      assert.equal(search.rerankApplies, false);
      for (const k of [1, 4, 10]) {
        for (const extra of [{}, { recency: { lambda: 0.01, currentTask: 400 } }, { collapseSides: true }, { diversity: 0.3 }] as SearchOptions[]) {
          const fused = answers(search, extra, k);
          assert.deepEqual(answers(search, { ...extra, rerank: true }, k), fused, `k ${k} ${JSON.stringify(extra)}`);
          assert.deepEqual(answers(search, { ...extra, rerank: { slots: true, links: false, columns: false } }, k), fused, `slots only, k ${k}`);
        }
      }
      assert.equal((search as unknown as { shapeIndex: unknown }).shapeIndex, null, 'no question shape was read');
    } finally {
      search.close();
    }
  });

  it('with the values attached the same searches re-rank (the comparison above can fail), and detaching them gives the fused search back', () => {
    const search = HybridSearch.open(store, { file: null, domainValues: VALUES });
    try {
      assert.equal(search.rerankApplies, true);
      const fused = answers(search, {}, 4);
      const reranked = answers(search, { rerank: true }, 4);
      const changed = reranked.filter((hits, i) => hits.map((h) => h.recordId).join() !== fused[i].map((h) => h.recordId).join()).length;
      assert.ok(changed > 10, `${changed} of ${questions.length} orders changed re-ranked`);
      search.setDomainValues(null);
      assert.equal(search.rerankApplies, false);
      assert.deepEqual(answers(search, { rerank: true }, 4), fused);
    } finally {
      search.close();
    }
  });
});
