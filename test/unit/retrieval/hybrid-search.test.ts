import { strict as assert } from 'node:assert';
import { HybridSearch } from '../../../src/core/memory/search/hybrid-search';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { dot } from '../../../src/core/memory/dense/vector-index';
import { HashingEmbedder } from '../../../src/core/similarity/hashing-embedder';
import { SAMPLE_QUESTIONS, sampleRecord, unitVector } from '../../support/records';

const QUESTIONS = SAMPLE_QUESTIONS.slice(0, 8);

describe('HybridSearch', () => {
  const embedder = new HashingEmbedder();
  let store: MemoryStore;
  let search: HybridSearch;
  beforeEach(() => {
    store = MemoryStore.open(':memory:');
    search = HybridSearch.open(store);
  });
  afterEach(() => {
    search.close();
    store.close();
  });

  function seedWithVectors(): void {
    store.add(QUESTIONS.map((q, i) => sampleRecord({ id: `r${i}`, question: q })), {
      trigger: 'user',
      embeddings: QUESTIONS.map((q) => embedder.embedSync(q)),
      embedderId: embedder.id,
    });
  }

  it('works keyword-only on a memory without vectors', () => {
    store.add(QUESTIONS.map((q, i) => sampleRecord({ id: `r${i}`, question: q })), { trigger: 'user' });
    const hits = search.search({ text: 'intake method for danazol' }, 3);
    assert.equal(hits[0].recordId, 'r1');
    assert.equal(hits[0].inputSimilarity, null);
    assert.equal(hits[0].keywordRank, 1);
    assert.equal(hits[0].denseRank, undefined);
  });

  it('dense mode returns the nearest record with its exact cosine', () => {
    seedWithVectors();
    const q = 'what was the mean heart rate of patient 3125 today?';
    const v = embedder.embedSync(q);
    const hits = search.search({ text: q, vector: v }, 4, { mode: 'vector' });
    const exact = QUESTIONS.map((x, i) => ({ id: `r${i}`, cos: dot(v, embedder.embedSync(x)) })).sort((a, b) => b.cos - a.cos);
    assert.deepEqual(hits.map((h) => h.recordId), exact.slice(0, 4).map((e) => e.id));
    hits.forEach((h, i) => assert.ok(Math.abs((h.inputSimilarity ?? NaN) - exact[i].cos) < 1e-6));
  });

  it('dense candidates agree with an exact scan on clustered vectors (as templated questions are)', () => {
    const dim = 128;
    const mix = (a: Float32Array, b: Float32Array, wb: number) => {
      const out = new Float32Array(dim);
      let norm = 0;
      for (let d = 0; d < dim; d++) norm += (out[d] = a[d] + wb * b[d]) ** 2;
      for (let d = 0; d < dim; d++) out[d] /= Math.sqrt(norm);
      return out;
    };
    const centers = Array.from({ length: 100 }, (_, c) => unitVector(50_000 + c, dim));
    const vectors = Array.from({ length: 3000 }, (_, i) => mix(centers[i % 100], unitVector(i + 1, dim), 0.6));
    store.add(vectors.map((_, i) => sampleRecord({ id: `v${i}` })), { trigger: 'user', embeddings: vectors, embedderId: 'random-128' });
    let hits = 0;
    const queries = 20;
    for (let qi = 0; qi < queries; qi++) {
      const q = mix(centers[(qi * 37) % 100], unitVector(100_000 + qi, dim), 0.6);
      const exact = vectors.map((v, i) => ({ id: `v${i}`, cos: dot(q, v) })).sort((a, b) => b.cos - a.cos).slice(0, 4).map((e) => e.id);
      const got = search.search({ text: '', vector: q }, 4, { mode: 'vector' }).map((h) => h.recordId);
      hits += got.filter((id) => exact.includes(id)).length;
    }
    assert.ok(hits / (queries * 4) >= 0.95, `recall ${hits / (queries * 4)}`);
  });

  it('fuses both rankings without duplicates and keeps both ranks', () => {
    seedWithVectors();
    const q = QUESTIONS[1];
    const hits = search.search({ text: q, vector: embedder.embedSync(q) }, 8);
    const ids = hits.map((h) => h.recordId);
    assert.equal(new Set(ids).size, ids.length);
    assert.equal(hits[0].recordId, 'r1');
    assert.equal(hits[0].denseRank, 1);
    assert.equal(hits[0].keywordRank, 1);
    assert.ok(Math.abs((hits[0].inputSimilarity ?? 0) - 1) < 1e-6);
    for (let i = 1; i < hits.length; i++) assert.ok(hits[i - 1].score >= hits[i].score);
  });

  it('reports the exact cosine of keyword-only hits that have a vector', () => {
    seedWithVectors();
    const v = embedder.embedSync('a totally different question about wards');
    const hits = search.search({ text: 'danazol', vector: v }, 2, { mode: 'keyword' });
    assert.equal(hits[0].recordId, 'r1');
    assert.ok(Math.abs((hits[0].inputSimilarity ?? NaN) - dot(v, embedder.embedSync(QUESTIONS[1]))) < 1e-6);
  });

  it('never returns pending or deleted records', () => {
    seedWithVectors();
    const q = 'zebra stripes count question';
    store.add([sampleRecord({ id: 'pending', question: q, status: 'pending' })], { trigger: 'agent', embeddings: [embedder.embedSync(q)], embedderId: embedder.id });
    store.transition(['r1'], 'delete', { trigger: 'user' });
    for (const mode of ['hybrid', 'vector', 'keyword'] as const) {
      const ids = search.search({ text: q, vector: embedder.embedSync(q) }, 8, { mode }).map((h) => h.recordId);
      assert.ok(!ids.includes('pending') && !ids.includes('r1'), `${mode}: ${ids.join(',')}`);
    }
    store.transition(['pending'], 'approve', { trigger: 'user' });
    assert.equal(search.search({ text: q, vector: embedder.embedSync(q) }, 1)[0].recordId, 'pending');
  });

  it('recency weighting ω = exp(−λ(T − t)) favours newer records', () => {
    const q = 'how many patients were prescribed aspirin in 2104?';
    const v = embedder.embedSync(q);
    store.add([sampleRecord({ id: 'old', question: q, createdTask: 1 }), sampleRecord({ id: 'new', question: q, createdTask: 90 })], {
      trigger: 'user',
      embeddings: [v, v],
      embedderId: embedder.id,
    });
    const plain = search.search({ text: q, vector: v }, 2, { mode: 'vector' });
    assert.ok(Math.abs(plain[0].score - plain[1].score) < 1e-9);
    const lambda = 0.01;
    const weighted = search.search({ text: q, vector: v }, 2, { mode: 'vector', recency: { lambda, currentTask: 100 } });
    assert.deepEqual(weighted.map((h) => h.recordId), ['new', 'old']);
    const cos = plain[0].score;
    assert.ok(Math.abs(weighted[0].score - cos * Math.exp(-lambda * 10)) < 1e-9);
    assert.ok(Math.abs(weighted[1].score - cos * Math.exp(-lambda * 99)) < 1e-9);
    // Input similarity is the unweighted cosine (clamped to [-1, 1] against float32 rounding).
    assert.ok(Math.abs((weighted[1].inputSimilarity ?? 0) - Math.min(1, cos)) < 1e-9, 'input similarity stays the raw cosine');
  });

  it('answers a query vector of another dimension from the keyword side, and says so', () => {
    seedWithVectors();
    const answer = search.answer({ text: 'intake method for danazol', vector: unitVector(1, 16) }, 4);
    assert.deepEqual(answer.sides, ['keyword']);
    assert.equal(answer.hits[0].recordId, 'r1');
    assert.deepEqual(search.answer({ text: 'intake method for danazol', vector: embedder.embedSync('intake method for danazol') }, 4).sides, ['dense', 'keyword']);
    // Vector-only mode has no backup: it names the remedy.
    assert.throws(() => search.search({ text: 'x', vector: unitVector(1, 16) }, 4, { mode: 'vector' }), /Re-embed/);
  });
});
