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

/** The best `limit` of `items` by `better` (negative: a before b), in order; one pass with a bounded insertion list. */
export function selectTop(items: readonly number[], limit: number, better: (a: number, b: number) => number): number[] {
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
