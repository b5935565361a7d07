/**
 * Reading one term of the compact keyword index (keyword-compact.ts): its per-field postings (the base
 * range, then the delta entries oldest first, document ordinals ascending in each) scored with MiniSearch
 * 7.1's BM25+ operation for operation (keyword-postings.ts), either all of them (`readTermView`: what the
 * scorer caches and combines), or only the best few (`topOfTermView`: a query of that term alone).
 */
import { bm25Score } from './keyword-postings';
import { quickSelectDescending, TermResults } from './keyword-select';

/** One field's postings of a term, and what scores them. */
export interface SlotView {
  field: number;
  idf: number;
  boost: number;
  avg: number;
  bm25: { k: number; b: number; d: number };
  lengths: Uint32Array;
  docs: Int32Array;
  tfs: Uint16Array | Uint32Array;
  /** Its base postings: docs/tfs[from, to). */
  from: number;
  to: number;
  /** Then its delta entries (indexes into dOrd/dTf), oldest first. */
  delta: number[];
  dOrd: Int32Array;
  dTf: Uint32Array;
}

/** A term's postings in the fields holding it (field order), and the documents they name. */
export interface TermView {
  alive: Uint8Array;
  rid: Float64Array;
  slots: SlotView[];
  /** Its postings over all fields (live documents). */
  capacity: number;
}

export const EMPTY_RESULTS: TermResults = { ords: new Int32Array(0), scores: new Float64Array(0), field: new Uint8Array(0) };

/** `term`'s results, as MiniSearch's `search(term)` scores them (see PostingsReader): ordinals are `ordinalOf`'s. */
export function readTermView(v: TermView, ordinalOf: ReadonlyMap<number, number>, only?: (rid: number) => boolean): TermResults {
  const capacity = v.capacity;
  const ords = new Int32Array(capacity);
  const scores = new Float64Array(capacity);
  const field = new Uint8Array(capacity);
  // A document matched in several fields sums its fields' scores in field order, as MiniSearch's result map does.
  const slotOf = v.slots.length > 1 ? new Map<number, number>() : null;
  const { alive, rid: ridOf } = v;
  let n = 0;
  for (const s of v.slots) {
    const { docs, tfs, dOrd, dTf, delta, to, lengths } = s;
    for (let i = s.from - to; i < delta.length; i++) {
      const o = i < 0 ? docs[to + i] : dOrd[delta[i]];
      if (!alive[o]) continue;
      const rid = ridOf[o];
      if (only && !only(rid)) continue;
      const ordinal = ordinalOf.get(rid);
      if (ordinal === undefined) continue;
      const tf = i < 0 ? tfs[to + i] : dTf[delta[i]];
      const weighted = s.boost * bm25Score(s.idf, tf, lengths[o], s.avg, s.bm25);
      const at = slotOf?.get(o);
      if (at !== undefined) {
        scores[at] += weighted;
        continue;
      }
      if (n >= capacity) throw new Error('keyword index: postings disagree with the document frequencies; delete the keyword index file to rebuild it');
      slotOf?.set(o, n);
      ords[n] = ordinal;
      scores[n] = weighted;
      field[n] = s.field;
      n++;
    }
  }
  return n === capacity ? { ords, scores, field } : { ords: ords.slice(0, n), scores: scores.slice(0, n), field: field.slice(0, n) };
}

/**
 * The documents of `term` that may rank in the best `limit` of a query of that term alone: every document
 * scoring at least the `limit`-th best score (ties included), with the same scores `readTermView` gives
 * (fields summed in field order). One pass over the postings in typed arrays, merging the fields by
 * document ordinal (no map per posting), and `ordinalOf` asked only for those kept. Null when the postings
 * are not in ascending document order (a file written otherwise) or a kept document has no ordinal: read
 * the whole term instead.
 */
export function topOfTermView(v: TermView, limit: number, ordinalOf: ReadonlyMap<number, number>): TermResults | null {
  const capacity = v.capacity;
  const docOf = new Int32Array(capacity);
  const scores = new Float64Array(capacity);
  const field = new Uint8Array(capacity);
  const { alive, slots } = v;
  // Per field a cursor over its postings (base range, then delta entries); the smallest ordinal next.
  const at = slots.map((s) => s.from - s.to);
  const next = (k: number): number => {
    const s = slots[k];
    const i = at[k];
    return i < 0 ? s.docs[s.to + i] : i < s.delta.length ? s.dOrd[s.delta[i]] : 0x7fffffff;
  };
  const heads = slots.map((_, k) => next(k));
  let n = 0;
  for (;;) {
    let o = 0x7fffffff;
    for (const h of heads) if (h < o) o = h;
    if (o === 0x7fffffff) break;
    let first = true;
    for (let k = 0; k < slots.length; k++) {
      if (heads[k] !== o) continue;
      const s = slots[k];
      const i = at[k]++;
      heads[k] = next(k);
      if (heads[k] <= o) return null;
      if (!alive[o]) continue;
      const tf = i < 0 ? s.tfs[s.to + i] : s.dTf[s.delta[i]];
      const weighted = s.boost * bm25Score(s.idf, tf, s.lengths[o], s.avg, s.bm25);
      if (first) {
        if (n >= capacity) return null;
        docOf[n] = o;
        scores[n] = weighted;
        field[n] = s.field;
        n++;
        first = false;
      } else scores[n - 1] += weighted;
    }
  }
  if (n === 0) return EMPTY_RESULTS;
  const kth = n <= limit ? -Infinity : quickSelectDescending(scores.slice(0, n), n, limit - 1);
  let kept = 0;
  for (let j = 0; j < n; j++) if (scores[j] >= kth) kept++;
  const out: TermResults = { ords: new Int32Array(kept), scores: new Float64Array(kept), field: new Uint8Array(kept) };
  let w = 0;
  for (let j = 0; j < n; j++) {
    if (!(scores[j] >= kth)) continue;
    const ordinal = ordinalOf.get(v.rid[docOf[j]]);
    if (ordinal === undefined) return null;
    out.ords[w] = ordinal;
    out.scores[w] = scores[j];
    out.field[w] = field[j];
    w++;
  }
  return out;
}
