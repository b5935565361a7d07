/** Seeded, deterministic randomness for benchmarks (mulberry32). */

/**
 * A PRNG returning floats in [0, 1); the same seed gives the same sequence on every platform.
 *
 * @example
 * const rand = seededRandom(42); rand(); // 0.6011…
 */
export function seededRandom(seed: number): () => number {
  return mulberry32(Math.trunc(seed) ^ 0x9e3779b9);
}

/** The mulberry32 generator itself, started from `state` as it is (seededRandom mixes its seed first). */
export function mulberry32(state: number): () => number {
  let a = state >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` distinct items drawn uniformly (partial Fisher–Yates), in draw order. */
export function sampleWithoutReplacement<T>(items: readonly T[], count: number, seed: number): T[] {
  const rand = seededRandom(seed);
  const pool = [...items];
  const n = Math.min(count, pool.length);
  for (let i = 0; i < n; i++) {
    const j = i + Math.floor(rand() * (pool.length - i));
    [pool[i], pool[j]] = [pool[j], pool[i]];
  }
  return pool.slice(0, n);
}
