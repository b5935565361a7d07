import { strict as assert } from 'node:assert';
import { fromHalf, HalfVectorCache, toHalf } from '../../../src/core/memory/dense/half-vector-cache';
import { dot } from '../../../src/core/memory/dense/vector-index';
import { unitVector } from '../../support/records';

/** Deterministic float32 values over many magnitudes, signs and subnormal float16s. */
function* sampleFloats(count: number): Generator<number> {
  let x = 12345;
  for (let i = 0; i < count; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    const mantissa = x / 2147483648;
    const exponent = (i % 44) - 30;
    yield Math.fround((i % 2 ? -1 : 1) * mantissa * 2 ** exponent);
  }
}

describe('HalfVectorCache (float16 copies for rescoring)', () => {
  it('decodes every float16 and encodes each finite one back to itself', () => {
    for (let h = 0; h < 0x10000; h++) {
      const value = fromHalf(h);
      if (Number.isNaN(value)) continue;
      // -0 and +0 are both zero; every other value maps back to its own bits.
      if (value === 0) assert.equal(toHalf(value) & 0x7fff, 0);
      else assert.equal(toHalf(value), h, `bits ${h.toString(16)} → ${value}`);
    }
    assert.equal(toHalf(1), 0x3c00);
    assert.equal(toHalf(65504), 0x7bff);
    assert.equal(toHalf(2 ** -24), 0x0001);
    assert.equal(toHalf(70000), 0x7c00);
  });

  it('rounds to the nearest float16, ties to even', () => {
    // 1 + 2^-11 lies halfway between 1 (even mantissa) and 1 + 2^-10: it rounds to 1; 1 + 3·2^-11 rounds up to the even 1 + 2^-9.
    assert.equal(toHalf(1 + 2 ** -11), 0x3c00);
    assert.equal(toHalf(1 + 3 * 2 ** -11), 0x3c02);
    for (const x of sampleFloats(20_000)) {
      const h = toHalf(x);
      const error = Math.abs(fromHalf(h) - x);
      // No neighbour of h is nearer to x.
      for (const n of [h - 1, h + 1]) {
        if (n < 0 || (n & 0x7c00) === 0x7c00 || (n ^ h) & 0x8000) continue;
        assert.ok(Math.abs(fromHalf(n) - x) >= error, `${x}: ${fromHalf(h)} vs neighbour ${fromHalf(n)}`);
      }
    }
  });

  it('bounds the difference between the float16 and the float32 dot product', () => {
    const dim = 384;
    const cache = new HalfVectorCache(dim);
    const vectors = Array.from({ length: 300 }, (_, i) => {
      const v = unitVector(i + 1, dim);
      // Sparse vectors too (as hashing embedders make), with tiny components in float16's subnormal range.
      if (i % 3 === 0) for (let d = 0; d < dim; d++) if (d % 7 !== 0) v[d] = d % 11 === 0 ? 1e-6 : 0;
      return v;
    });
    vectors.forEach((v, i) => cache.set(i, v));
    let widest = 0;
    for (let qi = 0; qi < 20; qi++) {
      const q = unitVector(10_000 + qi, dim);
      const rids = vectors.map((_, i) => i);
      const { approx, bound } = cache.scores(q, rids);
      rids.forEach((rid) => {
        const error = Math.abs(dot(q, vectors[rid]) - approx[rid]);
        assert.ok(error <= bound[rid], `record ${rid}: error ${error} above its bound ${bound[rid]}`);
        widest = Math.max(widest, bound[rid]);
      });
    }
    assert.ok(widest < 2 ** -10, `bounds stay below 2^-10 for unit vectors (widest ${widest})`);
  });

  it('replaces, deletes (moving the last copy into the hole) and drops what float16 cannot hold', () => {
    const cache = new HalfVectorCache(4);
    const q = new Float32Array([1, 0, 0, 0]);
    cache.set(1, new Float32Array([0.5, 0, 0, 0]));
    cache.set(2, new Float32Array([0.25, 0, 0, 0]));
    cache.set(3, new Float32Array([0.125, 0, 0, 0]));
    cache.set(1, new Float32Array([0.75, 0, 0, 0]));
    assert.deepEqual([...cache.scores(q, [1, 2, 3]).approx], [0.75, 0.25, 0.125]);
    cache.delete(1);
    assert.equal(cache.size, 2);
    assert.equal(cache.has(1), false);
    assert.deepEqual([...cache.scores(q, [3, 2]).approx], [0.125, 0.25]);
    cache.set(2, new Float32Array([1e6, 0, 0, 0]));
    assert.equal(cache.has(2), false, 'a component beyond ±65504 is not copied');
    assert.throws(() => cache.scores(q, [2]), /no float16 copy of record 2/);
    assert.throws(() => cache.set(9, new Float32Array(3)), /3 dimensions in a 4-dimension cache/);
  });

  it('groups exactly the equal vectors, also when two different vectors share the first of their two hashes', () => {
    const cache = new HalfVectorCache(4);
    const a = Float32Array.from([0.5, -0.25, 0.125, 1]);
    const b = Float32Array.from([0.5, -0.25, 0.125, 0.75]);
    cache.set(1, a);
    cache.set(2, b);
    cache.set(3, Float32Array.from(a));
    cache.set(4, Float32Array.from(b));
    const q = Float32Array.from([1, 1, 1, 1]);
    const same = (g: Int32Array) => [g[0] === g[2], g[1] === g[3], g[0] === g[1]];
    assert.deepEqual(same(cache.scores(q, [1, 2, 3, 4]).group), [true, true, false]);
    // Force a collision of the first hash between a and b (odds ~2^-32 otherwise): the second still tells them apart.
    const prints = (cache as unknown as { prints: Uint32Array }).prints;
    prints[1 * 2] = prints[0];
    prints[3 * 2] = prints[0];
    const g = cache.scores(q, [1, 2, 3, 4]).group;
    assert.deepEqual(same(g), [true, true, false]);
    assert.deepEqual(same(cache.scores(q, [2, 1, 4, 3]).group), [true, true, false]);
  });
});
