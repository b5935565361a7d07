/**
 * Signed feature hashing ("hashing trick"): a feature string maps to one
 * bucket and a ±1 sign, so collisions cancel out on average instead of
 * piling up. Deterministic across processes and platforms (FNV-1a + murmur3 finaliser).
 *
 * @example
 * ```ts
 * const { index, sign } = hashFeature('b:how many', 256); // 0 <= index < 256, sign = ±1
 * ```
 */
export interface HashedFeature {
  index: number;
  sign: 1 | -1;
}

/** 32-bit FNV-1a over UTF-16 code units, then a murmur3 avalanche. */
export function hash32(text: string, seed = 0): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Bucket in `[0, buckets)` and sign of a feature. */
export function hashFeature(feature: string, buckets: number, seed = 0): HashedFeature {
  const h = hash32(feature, seed);
  return { index: (h >>> 1) % buckets, sign: h & 1 ? -1 : 1 };
}

/** Scales `vector` in place to unit L2 norm (a zero vector stays zero); returns it. */
export function normalizeInPlace(vector: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < vector.length; i++) s += vector[i] * vector[i];
  if (s > 0) {
    const inv = 1 / Math.sqrt(s);
    for (let i = 0; i < vector.length; i++) vector[i] *= inv;
  }
  return vector;
}
