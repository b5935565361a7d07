import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DenseIndex } from '../../../src/core/memory/dense/dense-index';
import { Scored, sortHead, undecidedOrder } from '../../../src/core/memory/dense/dense-rescore';
import { seededRandom } from '../../../src/core/random';
import { HybridSearch } from '../../../src/core/memory/search/hybrid-search';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { dot } from '../../../src/core/memory/dense/vector-index';
import { VECTOR_COPY_FORMS, type VectorCopyForm } from '../../../src/core/memory/dense/vector-copies';
import { sampleRecord, unitVector } from '../../support/records';

const DIM = 64;

function normalised(v: Float32Array): Float32Array {
  let norm = 0;
  for (const x of v) norm += x * x;
  return v.map((x) => x / Math.sqrt(norm));
}

/** Clusters of near-duplicates: copies of a few vectors nudged far below float16's resolution, so only the exact vectors order them. */
function clusteredVectors(count: number): Float32Array[] {
  const bases = Array.from({ length: 12 }, (_, i) => unitVector(500 + i, DIM));
  return Array.from({ length: count }, (_, i) => {
    const v = Float32Array.from(bases[i % bases.length]);
    v[i % DIM] += (i % 5) * 1e-6;
    return normalised(v);
  });
}

/** The exact top k of `rids` by float32 cosine, ties to the lower rid (the order DenseIndex promises). */
function exactTop(q: Float32Array, rids: number[], vectorOf: Map<number, Float32Array>, k: number): { rid: number; cos: number }[] {
  return rids
    .map((rid) => ({ rid, cos: dot(q, vectorOf.get(rid)!) }))
    .sort((a, b) => b.cos - a.cos || a.rid - b.rid)
    .slice(0, k);
}

/** The widest error bound of a copy of a unit vector: float16 2^-10; int8 √dim · max|v_i| / 254 ≤ √dim / 254. */
const WIDEST_BOUND: Record<VectorCopyForm, number> = { float16: 2 ** -10, int8: Math.sqrt(DIM) / 254 };
/** Of the candidates a query compares, at most this share is read exactly (the measured share is well below). */
const MOST_READ: Record<VectorCopyForm, number> = { float16: 1 / 4, int8: 1 / 2 };

describe('dense rescoring from vector copies', () => {
  for (const form of VECTOR_COPY_FORMS) it(`ranks exactly as the float vectors do from ${form} copies, reading only the candidates the copies leave undecided`, () => {
    const store = MemoryStore.open(':memory:');
    const vectors = [...clusteredVectors(600), ...Array.from({ length: 600 }, (_, i) => unitVector(9000 + i, DIM))];
    store.add(vectors.map((_, i) => sampleRecord({ id: `v${i}` })), { trigger: 'user', embeddings: vectors, embedderId: 'random-64' });
    const vectorOf = new Map(vectors.map((v, i) => [store.ridOf(`v${i}`)!, v]));
    const dense = DenseIndex.open(store, { copyForm: form });
    assert.equal(dense.vectorCopies.records, vectors.length, 'a synchronous open fills the copies at once');
    let candidates = 0;
    let refined = 0;
    for (let qi = 0; qi < 40; qi++) {
      // Half the queries land inside a near-duplicate cluster (their order is decided by 1e-6 nudges).
      const q = qi % 2 ? unitVector(20_000 + qi, DIM) : normalised(Float32Array.from(vectors[qi * 7], (x, d) => x + (d === qi % DIM ? 1e-3 : 0)));
      const pool = dense.candidates(q, 128)!;
      const before = dense.rescoreReads;
      const got = dense.search(q, 16, 128)!;
      refined += dense.rescoreReads - before;
      candidates += pool.length;
      const want = exactTop(q, pool, vectorOf, 16);
      assert.deepEqual(got.map((h) => h.rid), want.map((w) => w.rid), `query ${qi}`);
      got.forEach((h, i) => {
        const bound = h.exact ? 0 : WIDEST_BOUND[form];
        assert.ok(Math.abs(h.similarity - want[i].cos) <= bound, `query ${qi} rank ${i}: ${h.similarity} vs ${want[i].cos} (exact: ${h.exact})`);
      });
    }
    assert.ok(refined > 0, 'near-duplicates were read exactly');
    assert.ok(refined < candidates * MOST_READ[form], `most candidates are scored from the copies (${refined} of ${candidates} read)`);
    dense.dispose();
    store.close();
  });

  it('passes of one search sharing the exact cosines read (KnownCosines) answer as fresh searches, each vector read at most once', () => {
    const store = MemoryStore.open(':memory:');
    const vectors = [...clusteredVectors(600), ...Array.from({ length: 600 }, (_, i) => unitVector(9000 + i, DIM))];
    store.add(vectors.map((_, i) => sampleRecord({ id: `v${i}` })), { trigger: 'user', embeddings: vectors, embedderId: 'random-64' });
    // Copies of a third of the records only (as at 1M under the default budget): the others are read exactly.
    const dense = DenseIndex.open(store, { copyForm: 'int8', vectorCopyBytes: 400 * (DIM + 16) });
    assert.equal(dense.vectorCopies.records, 400);
    let sharedReads = 0;
    let freshReads = 0;
    for (let qi = 0; qi < 20; qi++) {
      const q = qi % 2 ? unitVector(30_000 + qi, DIM) : normalised(Float32Array.from(vectors[qi * 13], (x, d) => x + (d === qi % DIM ? 1e-3 : 0)));
      const known = new Map<number, number>();
      // A collapse looking deeper: 4 of 128, 16 of 128, 200 of 512, then the first pass again.
      for (const [k, candidates] of [[4, 128], [16, 128], [200, 512], [4, 128]]) {
        const before = dense.rescoreReads;
        const fresh = dense.search(q, k, candidates)!;
        freshReads += dense.rescoreReads - before;
        const sizeBefore = known.size;
        const readsBefore = dense.rescoreReads;
        const shared = dense.search(q, k, candidates, known)!;
        assert.deepEqual(shared.map((h) => [h.rid, h.similarity]), fresh.map((h) => [h.rid, h.similarity]), `query ${qi}, ${k} of ${candidates}`);
        // Every vector read is new to the search: none is read twice across its passes.
        assert.equal(dense.rescoreReads - readsBefore, known.size - sizeBefore, `query ${qi}, ${k} of ${candidates}: reads`);
        sharedReads += known.size - sizeBefore;
      }
      for (const [rid, cos] of known) assert.equal(cos, dot(q, vectors[Number(store.idOf(rid)!.slice(1))]), 'a known cosine is the exact one');
    }
    assert.ok(sharedReads > 0, 'the passes read vectors');
    assert.ok(sharedReads < freshReads * 0.7, `shared passes read fewer vectors (${sharedReads} vs ${freshReads})`);
    dense.dispose();
    store.close();
  });

  it('a search\'s known cosines are dropped when the index catches up with changed vectors between its passes', () => {
    const store = MemoryStore.open(':memory:');
    const vectors = Array.from({ length: 300 }, (_, i) => unitVector(4000 + i, DIM));
    store.add(vectors.map((_, i) => sampleRecord({ id: `v${i}` })), { trigger: 'user', embeddings: vectors, embedderId: 'random-64' });
    const dense = DenseIndex.open(store, { halfCopies: false });
    const q = vectors[5];
    const known = new Map<number, number>();
    assert.equal(dense.search(q, 8, 64, known)![0].rid, store.ridOf('v5'));
    // Re-embedded between two passes: every record takes the next one's vector (v4 now holds v5's).
    store.replaceEmbeddings(new Map(vectors.map((_, i) => [`v${i}`, vectors[(i + 1) % vectors.length]])), 'random-64', { trigger: 'user' });
    const after = dense.search(q, 8, 64, known)!;
    assert.equal(after[0].rid, store.ridOf('v4'));
    assert.deepEqual(after.map((h) => [h.rid, h.similarity]), dense.search(q, 8, 64)!.map((h) => [h.rid, h.similarity]));
    for (const [rid, cos] of known) assert.equal(cos, dot(q, store.getEmbedding(store.idOf(rid)!)!), 'only cosines of the vectors as they are now');
    dense.dispose();
    store.close();
  });

  it('orders only the head that the first round reads: the same undecided records and top k as a full sort', () => {
    const random = seededRandom(3);
    let partial = 0;
    for (let trial = 0; trial < 300; trial++) {
      const n = 50 + Math.floor(random() * 1500);
      const k = 1 + Math.floor(random() * 20);
      const widest = [0, 1e-5, 1e-3, 0.05][trial % 4];
      // Many ties and equal-vector groups, as a templated memory has.
      const ranked: Scored[] = Array.from({ length: n }, (_, i) => ({ rid: i + 1, score: Math.round(random() * 200) / 200, bound: random() < 0.2 ? 0 : random() * widest, group: random() < 0.3 ? Math.floor(random() * 10) : -1 }));
      const full = ranked.map((s) => ({ ...s })).sort((a, b) => b.score - a.score || a.rid - b.rid);
      const head = sortHead(ranked.map((s) => ({ ...s })), k);
      assert.equal(head.length, n);
      assert.deepEqual(new Set(undecidedOrder(head, k)), new Set(undecidedOrder(full, k)), `trial ${trial}`);
      assert.deepEqual(head.slice(0, k), full.slice(0, k));
      if (head.some((s, i) => s.rid !== full[i].rid)) partial++;
    }
    assert.ok(partial > 100, `the tail is left unsorted in most trials (${partial})`);
  });

  it('marks for exact reading every overlapping pair reaching the first k + 1 places, and nothing when all is exact', () => {
    const s = (rid: number, score: number, bound: number, group = -1) => ({ rid, score, bound, group });
    assert.deepEqual(undecidedOrder([s(1, 0.9, 0), s(2, 0.8, 0), s(3, 0.8, 0)], 1), []);
    assert.deepEqual(undecidedOrder([s(1, 0.9, 0.01), s(2, 0.85, 0.01), s(3, 0.7, 0.01)], 2), []);
    assert.deepEqual(undecidedOrder([s(1, 0.9, 0.01), s(2, 0.895, 0), s(3, 0.7, 0.01)], 2).sort(), [1]);
    // Place 3 (k = 1: places 1 and 2 decide) overlaps place 2: both; places 4 and 5 overlap only each other: neither.
    const sorted = [s(1, 0.9, 0.001), s(2, 0.8, 0.001), s(3, 0.7995, 0.001), s(4, 0.5, 0.001), s(5, 0.4995, 0.001)];
    assert.deepEqual(undecidedOrder(sorted, 1).sort(), [2, 3]);
    // Equal vectors (one group) need no reading between them, and one read per group against others.
    assert.deepEqual(undecidedOrder([s(1, 0.9, 0.001, 0), s(2, 0.9, 0.001, 0), s(3, 0.5, 0.001, 1)], 2), []);
    assert.deepEqual(undecidedOrder([s(1, 0.9, 0.001, 0), s(2, 0.9, 0.001, 0), s(3, 0.8995, 0.001, 1)], 2).sort(), [1, 3]);
  });

  it('fills the copies in the background after the codes, and keeps them fresh through the change log', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'halves-'));
    const store = MemoryStore.open(path.join(dir, 'm.sqlite'));
    let search: HybridSearch | undefined;
    try {
      const vectors = Array.from({ length: 2500 }, (_, i) => unitVector(i + 1, DIM));
      store.add(vectors.map((_, i) => sampleRecord({ id: `v${i}` })), { trigger: 'user', embeddings: vectors, embedderId: 'random-64' });
      search = HybridSearch.open(store, { file: null, background: true });
      await search.ready;
      await search.warmed;
      assert.equal(search.dense.vectorCopies.records, 2500);
      assert.equal(search.dense.vectorCopies.bytes >= 2500 * (DIM + 16), true);
      // Not one of the seeded vectors (unitVector's generator repeats across far seeds).
      const fresh = normalised(Float32Array.from({ length: DIM }, (_, d) => Math.sin(d * 1.7 + 0.3)));
      store.add([sampleRecord({ id: 'fresh' })], { trigger: 'user', embeddings: [fresh], embedderId: 'random-64' });
      store.transition(['v0', 'v1'], 'delete', { trigger: 'user' });
      const before = search.dense.rescoreReads;
      const hits = search.search({ text: '', vector: fresh }, 4, { mode: 'vector' });
      assert.equal(hits[0].recordId, 'fresh');
      assert.ok(Math.abs(hits[0].score - dot(fresh, fresh)) < 1e-12, 'vector mode scores by the exact cosine');
      assert.equal(search.dense.vectorCopies.records, 2500 - 2 + 1);
      assert.ok(search.dense.rescoreReads - before < 128, 'the new record was scored from its copy');
    } finally {
      search?.close();
      store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
