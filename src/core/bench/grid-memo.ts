/**
 * Process-wide memos of the paper grid's pure computations (issue 19, speed):
 * the 32 cells of a seed, and the seeds after it, score the same code pairs
 * and check the same mutated queries again and again. Each memo returns what
 * the computation itself returns (test/unit/bench/grid-speed.test.ts runs
 * cells with and without them and compares every figure).
 */
import type { CodeSimilarityFn } from '../policy/metrics';

/** Entries a memo holds before it starts over (bounds a worker's memory over a 10-seed grid). */
export const GRID_MEMO_MAX_ENTRIES = 200_000;

/** A map that starts over once it holds `max` entries. */
export class BoundedMemo<V> {
  private readonly map = new Map<string, V>();
  hits = 0;
  misses = 0;

  constructor(private readonly max = GRID_MEMO_MAX_ENTRIES) {}

  get(key: string, compute: () => V): V {
    const hit = this.map.get(key);
    if (hit !== undefined) {
      this.hits++;
      return hit;
    }
    this.misses++;
    const value = compute();
    if (this.map.size >= this.max) this.map.clear();
    this.map.set(key, value);
    return value;
  }
}

/**
 * `fn` memoised on (reference, candidate, language): code similarity is a pure
 * function of its arguments (src/core/similarity/code).
 *
 * @example
 * const sim = memoCodeSimilarity(codeSimilarity);
 * sim(a, b, 'python') === codeSimilarity(a, b, 'python');
 */
export function memoCodeSimilarity(fn: CodeSimilarityFn, memo = new BoundedMemo<number>()): CodeSimilarityFn & { memo: BoundedMemo<number> } {
  const memoised = (reference: string, candidate: string, language: Parameters<CodeSimilarityFn>[2]): number => memo.get(`${language}\u0000${reference}\u0000${candidate}`, () => fn(reference, candidate, language));
  return Object.assign(memoised, { memo });
}
