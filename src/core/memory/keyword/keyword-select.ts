/**
 * Typed per-term results of the keyword scorer and the selection helpers it
 * ranks with (a k-th largest score by quick-select, a bounded top-k insertion
 * list): pure functions over arrays, apart from the scorer's cache logic.
 */

/** MiniSearch's results for one term, in typed arrays. */
export interface TermResults {
  /** Ordinal (MiniSearch's document order) of each matching document. */
  ords: Int32Array;
  /** The term's score in each document (MiniSearch, summed over the boosted fields). */
  scores: Float64Array;
  /** Index of the first field (in MiniSearch's field order) the term matched in. */
  field: Uint8Array;
}

/** One term's results from its pieces (the order of documents within a term does not matter to the scorer). */
export function concatResults(parts: readonly TermResults[]): TermResults {
  if (parts.length === 1) return parts[0];
  const n = parts.reduce((s, p) => s + p.ords.length, 0);
  const out: TermResults = { ords: new Int32Array(n), scores: new Float64Array(n), field: new Uint8Array(n) };
  let at = 0;
  for (const p of parts) {
    out.ords.set(p.ords, at);
    out.scores.set(p.scores, at);
    out.field.set(p.field, at);
    at += p.ords.length;
  }
  return out;
}

/** The k-th largest (0-based) of the first `n` values (reorders them). */
export function quickSelectDescending(values: Float64Array, n: number, k: number): number {
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const pivot = values[(lo + hi) >>> 1];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (values[i] > pivot) i++;
      while (values[j] < pivot) j--;
      if (i <= j) {
        const t = values[i];
        values[i] = values[j];
        values[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return values[k];
  }
  return values[k];
}

export const single = (term: string): string[] => [term];

/** Deepest top `selectTop` keeps in an insertion list (cheapest when shallow); deeper ones in a heap. */
const INSERTION_TOP = 64;

/**
 * The best `limit` of `items` by `better` (negative: a before b), in order; of items `better` finds equal, the
 * earlier in `items` first (a stable sort's first `limit`). One pass: a shallow top in a sorted insertion list,
 * a deep one (thousands: a collapse's last passes) in a bounded heap whose root is the worst item kept, so an
 * item costs log(limit) comparisons instead of up to `limit` moves (4,096 of 6,589: ~2 ms instead of ~37 ms).
 */
export function selectTop(items: readonly number[], limit: number, better: (a: number, b: number) => number): number[] {
  if (limit <= 0) return [];
  if (limit <= INSERTION_TOP) return insertionTop(items, limit, better);
  // Positions in `items`; `worse(i, j)`: item i ranks after item j (equal ones: the later position after).
  const worse = (i: number, j: number): boolean => {
    const c = better(items[i], items[j]);
    return c > 0 || (c === 0 && i > j);
  };
  const heap: number[] = [];
  for (let i = 0; i < items.length; i++) {
    if (heap.length < limit) {
      heap.push(i);
      siftUp(heap, heap.length - 1, worse);
    } else if (worse(heap[0], i)) {
      heap[0] = i;
      siftDown(heap, 0, worse);
    }
  }
  return heap.sort((i, j) => (worse(i, j) ? 1 : -1)).map((i) => items[i]);
}

/** Max-heap by `worse` (the worst at the root): moves entry `at` up to its place. */
function siftUp(heap: number[], at: number, worse: (i: number, j: number) => boolean): void {
  const item = heap[at];
  while (at > 0) {
    const up = (at - 1) >> 1;
    if (!worse(item, heap[up])) break;
    heap[at] = heap[up];
    at = up;
  }
  heap[at] = item;
}

/** Max-heap by `worse`: moves entry `at` down to its place. */
function siftDown(heap: number[], at: number, worse: (i: number, j: number) => boolean): void {
  const item = heap[at];
  const n = heap.length;
  for (;;) {
    let child = 2 * at + 1;
    if (child >= n) break;
    if (child + 1 < n && worse(heap[child + 1], heap[child])) child++;
    if (!worse(heap[child], item)) break;
    heap[at] = heap[child];
    at = child;
  }
  heap[at] = item;
}

/** selectTop of a shallow top: a sorted list of at most `limit`, each item placed after those equal to it. */
function insertionTop(items: readonly number[], limit: number, better: (a: number, b: number) => number): number[] {
  const best: number[] = [];
  for (const item of items) {
    if (best.length === limit && better(item, best[limit - 1]) >= 0) continue;
    let i = best.length < limit ? best.length : limit - 1;
    if (best.length < limit) best.push(item);
    while (i > 0 && better(item, best[i - 1]) < 0) {
      best[i] = best[i - 1];
      i--;
    }
    best[i] = item;
  }
  return best;
}
