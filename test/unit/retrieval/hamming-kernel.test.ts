import { strict as assert } from 'node:assert';
import { BinaryCodeCache, quantizeBinary } from '../../../src/core/memory/dense/binary-code-cache';
import { createHammingKernel } from '../../../src/core/memory/dense/hamming-kernel';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { unitVector } from '../../support/records';

function naiveDistance(a: Uint8Array, b: Uint8Array): number {
  let d = 0;
  for (let i = 0; i < a.length; i++) for (let x = a[i] ^ b[i]; x; x >>= 1) d += x & 1;
  return d;
}

describe('Hamming scan', () => {
  it('quantises like sqlite-vec vec_quantize_binary', () => {
    const store = MemoryStore.open(':memory:');
    for (let seed = 1; seed <= 5; seed++) {
      const v = unitVector(seed, 384);
      const row = store.connectionForQueries().prepare('SELECT vec_quantize_binary(?) AS b').get(Buffer.from(v.buffer)) as { b: Buffer };
      assert.deepEqual(Buffer.from(quantizeBinary(v)), row.b);
    }
    store.close();
  });

  for (const preferJs of [false, true]) {
    it(`${preferJs ? 'JS' : 'default (WASM SIMD)'} kernel matches a naive popcount`, () => {
      const kernel = createHammingKernel({ preferJs });
      if (!preferJs) assert.equal(kernel.kind, 'wasm-simd');
      const dim = 384;
      const blocks = 3;
      const codes = Array.from({ length: 300 }, (_, i) => quantizeBinary(unitVector(i + 7, dim)));
      const area = kernel.reserve(codes.length, blocks);
      codes.forEach((c, i) => area.set(c, i * blocks * 16));
      const q = quantizeBinary(unitVector(99, dim));
      kernel.query.set(q);
      const dist = kernel.scan(codes.length, blocks);
      codes.forEach((c, i) => assert.equal(dist[i], naiveDistance(c, q), `code ${i}`));
    });
  }

  for (const preferJs of [false, true]) {
    it(`${preferJs ? 'JS' : 'WASM'} kernel scans a range of slots (an inverted-file list) in place`, () => {
      const kernel = createHammingKernel({ preferJs });
      const blocks = 3;
      const codes = Array.from({ length: 500 }, (_, i) => quantizeBinary(unitVector(i + 1000, 384)));
      const area = kernel.reserve(codes.length, blocks);
      codes.forEach((c, i) => area.set(c, i * blocks * 16));
      kernel.query.set(quantizeBinary(unitVector(5, 384)));
      kernel.scanRange(10, 40, blocks);
      const dist = kernel.scanRange(300, 120, blocks);
      for (const [from, to] of [[10, 50], [300, 420]]) for (let i = from; i < to; i++) assert.equal(dist[i], naiveDistance(codes[i], kernel.query), `slot ${i}`);
    });
  }

  it('the code cache returns the nearest codes and survives deletes and growth', () => {
    const dim = 200; // not a multiple of 128: padded
    const cache = new BinaryCodeCache(dim);
    const codes = new Map<number, Uint8Array>();
    for (let rid = 1; rid <= 3000; rid++) {
      const c = quantizeBinary(unitVector(rid, dim));
      codes.set(rid, c);
      cache.set(rid, c);
    }
    for (let rid = 1; rid <= 3000; rid += 3) {
      cache.delete(rid);
      codes.delete(rid);
    }
    assert.equal(cache.size, codes.size);
    const q = quantizeBinary(unitVector(424242, dim));
    const got = cache.nearest(q, 10);
    const expected = [...codes].map(([rid, c]) => ({ rid, d: naiveDistance(c, q) })).sort((a, b) => a.d - b.d);
    assert.equal(got.length, 10);
    const cutoff = expected[9].d;
    for (const rid of got) assert.ok(naiveDistance(codes.get(rid)!, q) <= cutoff);
    assert.ok(!got.some((rid) => rid % 3 === 1), 'deleted codes never come back');
  });

  it('selects the nearest codes exactly as a stable sort by distance does (ties to the earlier code), sampled cutoff or not', () => {
    const dim = 128;
    const base = quantizeBinary(unitVector(5, dim));
    /** `base` with the first `flips` bits flipped: distance `flips` from it. */
    const at = (flips: number) => {
      const c = Uint8Array.from(base);
      for (let b = 0; b < flips; b++) c[b >>> 3] ^= 1 << (b & 7);
      return c;
    };
    const check = (distances: number[], count: number) => {
      const cache = new BinaryCodeCache(dim);
      distances.forEach((d, i) => cache.set(i + 1, at(d)));
      const expected = distances.map((d, i) => ({ rid: i + 1, d })).sort((a, b) => a.d - b.d || a.rid - b.rid).slice(0, count);
      assert.deepEqual(cache.nearest(base, count), expected.map((e) => e.rid));
    };
    // Few distinct distances: heavy ties at the cutoff.
    check(Array.from({ length: 5000 }, (_, i) => (i * 7919) % 9), 128);
    // The sampled codes (every 16th) all nearest: the sample's cutoff collects too few, the full histogram decides.
    check(Array.from({ length: 1600 }, (_, i) => (i % 16 === 0 ? 0 : 5 + (i % 3))), 128);
    // More wanted than the memory holds.
    check([3, 1, 2, 1], 10);
  });
});
