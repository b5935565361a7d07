import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { SyntheticRecords } from '../../../src/core/bench/synthetic-records';
import { DenseIndex } from '../../../src/core/memory/dense/dense-index';
import { HalfVectorCache } from '../../../src/core/memory/dense/half-vector-cache';
import { float32AtLeast, Int8VectorCache } from '../../../src/core/memory/dense/int8-vector-cache';
import { dot } from '../../../src/core/memory/dense/vector-index';
import { memoryBudget } from '../../../src/core/memory/memory-budget';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { HashingEmbedder } from '../../../src/core/similarity/hashing-embedder';
import { sampleRecord, unitVector } from '../../support/records';

const TASKS = path.join(__dirname, '..', '..', '..', 'data', 'ehr', 'ehrsql-mimic3-tasks.jsonl');

function normalised(v: Float32Array): Float32Array {
  let norm = 0;
  for (const x of v) norm += x * x;
  return v.map((x) => x / Math.sqrt(norm));
}

/** Every |exact − approx| within its bound; returns the mean bound. */
function checkBounds(cache: Int8VectorCache, vectors: Float32Array[], queries: Float32Array[]): number {
  const rids = vectors.map((_, i) => i);
  let total = 0;
  for (const [qi, q] of queries.entries()) {
    const { approx, bound } = cache.scores(q, rids);
    for (const rid of rids) {
      const error = Math.abs(dot(q, vectors[rid]) - approx[rid]);
      assert.ok(error <= bound[rid], `query ${qi} record ${rid}: error ${error} above its bound ${bound[rid]}`);
      total += bound[rid];
    }
  }
  return total / (rids.length * queries.length);
}

describe('Int8VectorCache (int8 copies for rescoring)', () => {
  it('takes dim + 16 bytes a record (measured): a 100k memory at 384 dimensions fits the default budget, twice the float16 records', () => {
    const cache = new Int8VectorCache(384);
    cache.reserve(3000);
    for (let rid = 1; rid <= 3000; rid++) cache.set(rid, unitVector(rid, 384));
    assert.equal(cache.bytes / cache.size, 400);
    assert.equal(cache.bytesPerRecord, 400);
    const share = memoryBudget().vectorCopyBytes;
    assert.ok(new Int8VectorCache(384, { maxBytes: share }).capacity >= 100_000);
    assert.equal(new HalfVectorCache(384).bytesPerRecord, 776);
    const capped = new Int8VectorCache(384, { maxBytes: 1000 * 400 });
    for (let rid = 1; rid <= 1200; rid++) capped.set(rid, unitVector(rid, 384));
    assert.deepEqual([capped.size, capped.bytes], [1000, 1000 * 400]);
  });

  it('bounds the difference from the float32 dot product for dense, sparse, tiny, huge and zero vectors', () => {
    const dim = 384;
    const embedder = new HashingEmbedder();
    const gen = SyntheticRecords.fromFile(TASKS, 5);
    const sparse = gen.records(300).map((r) => embedder.embedSync(r.question));
    const dense = Array.from({ length: 200 }, (_, i) => unitVector(i + 1, dim));
    const odd = [
      new Float32Array(dim),
      Float32Array.from({ length: dim }, (_, d) => (d % 2 ? 1e30 : -3e29)),
      Float32Array.from({ length: dim }, (_, d) => (d % 3 ? 1e-40 : 0)),
      Float32Array.from({ length: dim }, (_, d) => Math.fround(Math.sin(d) * 2 ** -(d % 30))),
    ];
    const vectors = [...sparse, ...dense, ...odd];
    const cache = new Int8VectorCache(dim);
    vectors.forEach((v, i) => assert.equal(cache.set(i, v), true));
    const queries = [...gen.records(20).map((r) => embedder.embedSync(r.question)), ...Array.from({ length: 10 }, (_, i) => unitVector(5000 + i, dim))];
    checkBounds(cache, vectors, queries);
    // Sparse vectors err only where they have codes: their bounds stay near ~0.003 (dense unit vectors: ~0.006).
    const sparseOnly = new Int8VectorCache(dim);
    sparse.forEach((v, i) => sparseOnly.set(i, v));
    const mean = checkBounds(sparseOnly, sparse, queries.slice(0, 20));
    assert.ok(mean < 0.004, `mean bound of hashing-embedder vectors ${mean}`);
    assert.equal(cache.set(9999, Float32Array.from({ length: dim }, (_, d) => (d === 3 ? NaN : 0))), false, 'a non-finite vector is not copied');
  });

  it('keeps the bound where a nonzero component codes to 0 (the error then lies outside the coded dimensions)', () => {
    const dim = 384;
    // One large component; the others (1e-3) lie below half a step (1/254) and code to 0, each erring by 1e-3.
    const v = Float32Array.from({ length: dim }, (_, d) => (d === 0 ? 1 : 1e-3));
    const q = normalised(Float32Array.from({ length: dim }, (_, d) => (d === 0 ? 0 : 1)));
    const cache = new Int8VectorCache(dim);
    cache.set(1, v);
    const { approx, bound } = cache.scores(q, [1]);
    assert.equal(approx[0], 0, 'only component 0 has a code, and the query has none there');
    const error = Math.abs(dot(q, v) - approx[0]);
    assert.ok(error > 0.019, `the error is real (${error})`);
    assert.ok(error <= bound[0], `error ${error} within its bound ${bound[0]}`);
  });

  it('rounds scales and error norms up to float32, moves copies on delete and groups equal vectors', () => {
    for (const x of [1 / 127, 0.3 / 127, 1e-45, 3.3e38 / 127]) {
      const up = float32AtLeast(x);
      assert.ok(up >= x && Math.fround(up) === up, `${x} → ${up}`);
    }
    const cache = new Int8VectorCache(4);
    const q = Float32Array.from([1, 0.5, 0, 0]);
    const a = Float32Array.from([0.5, 0.25, 0, 0.125]);
    const b = Float32Array.from([0.25, -1, 0.5, 0]);
    cache.set(1, a);
    cache.set(2, b);
    cache.set(3, Float32Array.from(a));
    const fresh = new Int8VectorCache(4);
    fresh.set(3, a);
    fresh.set(2, b);
    cache.delete(1);
    assert.deepEqual([cache.has(1), cache.size], [false, 2]);
    assert.deepEqual([...cache.scores(q, [3, 2]).approx], [...fresh.scores(q, [3, 2]).approx]);
    cache.set(1, Float32Array.from(a));
    const { group } = cache.scores(q, [1, 2, 3]);
    assert.deepEqual([group[0] === group[2], group[0] === group[1]], [true, false]);
    assert.throws(() => cache.scores(q, [7]), /no int8 copy of record 7/);
  });

  it('a dense search from int8 copies gives the exact top k in the exact order on a real store (hashing-embedder vectors, equal vectors and near-ties)', () => {
    const store = MemoryStore.open(':memory:');
    try {
      const embedder = new HashingEmbedder();
      const gen = SyntheticRecords.fromFile(TASKS, 11);
      const records = gen.records(2000);
      const vectors = records.map((r) => embedder.embedSync(r.question));
      // Near-ties: copies nudged far below int8's (and float16's) resolution, which only the exact vectors order.
      for (let i = 0; i < 200; i++) {
        const v = Float32Array.from(vectors[i * 7]);
        v[(i * 13) % v.length] += (1 + (i % 4)) * 1e-7;
        vectors.push(normalised(v));
      }
      store.add(vectors.map((_, i) => sampleRecord({ id: `r${i}` })), { trigger: 'user', embeddings: vectors, embedderId: embedder.id });
      const vectorOf = new Map(vectors.map((v, i) => [store.ridOf(`r${i}`)!, v]));
      const int8 = DenseIndex.open(store, { copyForm: 'int8' });
      const halves = DenseIndex.open(store, { copyForm: 'float16' });
      assert.equal(int8.vectorCopies.records, vectors.length);
      let reads = 0;
      let compared = 0;
      for (let qi = 0; qi < 60; qi++) {
        const q = qi % 3 === 0 ? vectors[qi * 11] : embedder.embedSync(gen.question());
        const pool = int8.candidates(q, 128)!;
        const want = pool.map((rid) => ({ rid, cos: dot(q, vectorOf.get(rid)!) })).sort((x, y) => y.cos - x.cos || x.rid - y.rid).slice(0, 32);
        const before = int8.rescoreReads;
        const got = int8.search(q, 32, 128)!;
        reads += int8.rescoreReads - before;
        compared += pool.length;
        assert.deepEqual(got.map((h) => h.rid), want.map((w) => w.rid), `query ${qi}`);
        assert.deepEqual(got.map((h) => h.rid), halves.search(q, 32, 128)!.map((h) => h.rid), `query ${qi}: as from float16 copies`);
        got.forEach((h, i) => assert.ok(Math.abs(h.similarity - want[i].cos) <= (h.exact ? 1e-12 : 0.05), `query ${qi} place ${i}`));
      }
      assert.ok(reads > 0 && reads < compared / 4, `read ${reads} of ${compared} candidates exactly`);
    } finally {
      store.close();
    }
  });
});
