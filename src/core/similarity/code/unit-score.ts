/**
 * pycode_similar's unit matching: for every reference unit, the candidate unit
 * with the most matched lines (difflib matching blocks) is chosen;
 * score = Σ matched / Σ reference lines.
 */
import { matchInterned } from './sequence-matcher';

export interface UnitScore {
  matched: number;
  total: number;
}

/**
 * Scores reference units against candidate units (each unit = dump lines).
 *
 * @example
 * scoreUnits([['a\n', 'b']], [['a\n', 'c']]); // { matched: 1, total: 2 }
 */
export function scoreUnits(reference: readonly string[][], candidate: readonly string[][]): UnitScore {
  const ids = new Map<string, number>();
  const intern = (lines: readonly string[]): Int32Array => {
    const out = new Int32Array(lines.length);
    for (let i = 0; i < lines.length; i++) {
      let id = ids.get(lines[i]);
      if (id === undefined) {
        id = ids.size;
        ids.set(lines[i], id);
      }
      out[i] = id;
    }
    return out;
  };
  const ref = reference.map(intern);
  const cand = candidate.map(intern);
  let matched = 0;
  let total = 0;
  for (const r of ref) {
    let best = 0;
    for (const c of cand) {
      const m = matchInterned(r, c, ids.size);
      if (m > best) best = m;
      if (best === r.length) break; // entire unit found, as pycode_similar stops on a zero diff
    }
    matched += best;
    total += r.length;
  }
  return { matched, total };
}
