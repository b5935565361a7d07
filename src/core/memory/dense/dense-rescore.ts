import { quickSelectDescending } from '../keyword/keyword-select';
import type { DenseHit } from './dense-index';
import type { VectorCopies } from './vector-copies';

export interface Scored {
  rid: number;
  score: number;
  /** |exact cosine − score| ≤ bound (0: exact). */
  bound: number;
  /** Candidates of one group have equal vectors (CopyScores.group); -1: none. */
  group: number;
}

/** Appends the exact cosines of the active records among `rids` to `into` (records gone are left out). */
export type ExactReader = (rids: number[], into: Scored[]) => void;

const byScore = (a: Scored, b: Scored): number => b.score - a.score || a.rid - b.rid;
const toHit = (s: Scored): DenseHit => ({ rid: s.rid, similarity: s.score, exact: s.bound === 0 });

/**
 * Exact cosines of one query vector already read, by record rowid: the passes of one search (a collapse
 * that looks again, deeper) share them, so a record's float vector is read from SQLite once per search.
 * Only valid for that query vector; emptied when the index catches up with changes (see knownAt).
 */
export type KnownCosines = Map<number, number>;

/** The state (change-log position) of the index each KnownCosines was filled at. */
const filledAt = new WeakMap<KnownCosines, number>();

/**
 * `known` for a rescoring of the index at change-log position `seq`: emptied first when the index caught up
 * with changes since it was filled (a record's vector may have changed between two passes of one search).
 */
export function knownAt(known: KnownCosines | undefined, seq: number): KnownCosines | undefined {
  if (!known) return undefined;
  if (filledAt.get(known) !== seq) known.clear();
  filledAt.set(known, seq);
  return known;
}

/**
 * The rescoring stage of a dense search: the `k` best of the coarse (Hamming)
 * candidates `rids` by cosine, in the exact order. A candidate with a copy
 * (int8 or float16) in `copies` is scored from it with a rigorous bound; the others, and
 * those whose bounds leave their order among the top `k` undecided, are read
 * exactly through `readExact`. Each round reads the undecided candidates (one
 * per group of equal vectors, whose cosine the group shares); it ends when the
 * first k are decided, usually after one round. With `known`, the exact cosines it
 * holds are used instead of a copy or a read, and every exact cosine read is added to it.
 */
export function rescore(vector: Float32Array, rids: readonly number[], k: number, copies: VectorCopies | null, readExact: ExactReader, known?: KnownCosines): DenseHit[] {
  const read: ExactReader = known ? (ask, into) => remember(readExact, ask, into, known) : readExact;
  const copied = copies ? rids.filter((rid) => copies.has(rid)) : [];
  let ranked: Scored[] = [];
  if (copies && copied.length > 0) {
    const { approx, bound, group } = copies.scores(vector, copied);
    copied.forEach((rid, i) => ranked.push({ rid, score: approx[i], bound: bound[i], group: group[i] }));
    if (known) settleKnown(ranked, known);
  }
  if (copied.length < rids.length) {
    const held = new Set(copied);
    const ask: number[] = [];
    for (const rid of rids) {
      if (held.has(rid)) continue;
      const score = known?.get(rid);
      if (score === undefined) ask.push(rid);
      else ranked.push({ rid, score, bound: 0, group: -1 });
    }
    read(ask, ranked);
  }
  ranked = sortHead(ranked, k);
  for (let undecided = undecidedOrder(ranked, k); undecided.length > 0; undecided = undecidedOrder(ranked, k)) {
    const exact: Scored[] = [];
    read(undecided, exact);
    const scoreOf = new Map(exact.map((s) => [s.rid, s.score]));
    const groupScore = new Map<number, number>();
    const asked = new Set(undecided);
    for (const s of ranked) {
      const score = scoreOf.get(s.rid);
      if (score !== undefined && s.group >= 0) groupScore.set(s.group, score);
    }
    // A candidate read but gone (no longer active) drops out.
    ranked = ranked.filter((s) => !asked.has(s.rid) || scoreOf.has(s.rid));
    for (const s of ranked) {
      const score = scoreOf.get(s.rid) ?? (s.group >= 0 ? groupScore.get(s.group) : undefined);
      if (score === undefined) continue;
      s.score = score;
      s.bound = 0;
    }
    ranked.sort(byScore);
  }
  return ranked.slice(0, k).map(toHit);
}

/** Reads `ask` exactly into `into` and keeps what was read in `known`. */
function remember(readExact: ExactReader, ask: number[], into: Scored[], known: KnownCosines): void {
  const from = into.length;
  readExact(ask, into);
  for (let i = from; i < into.length; i++) known.set(into[i].rid, into[i].score);
}

/** Copy-scored candidates whose exact cosine is known, or that of an equal vector (same group), take it. */
function settleKnown(ranked: Scored[], known: KnownCosines): void {
  const groupScore = new Map<number, number>();
  for (const s of ranked) {
    const score = known.get(s.rid);
    if (score !== undefined && s.group >= 0) groupScore.set(s.group, score);
  }
  for (const s of ranked) {
    const score = known.get(s.rid) ?? (s.group >= 0 ? groupScore.get(s.group) : undefined);
    if (score === undefined) continue;
    s.score = score;
    s.bound = 0;
  }
}

/**
 * `ranked` ordered for a first `undecidedOrder(…, k)` and `slice(0, k)`: best
 * first (as `sort(byScore)` orders them) down to 4 × the widest bound (plus a
 * margin) below the (k + 1)-th best score, the rest after them unsorted. Both
 * read only that head: undecidedOrder compares a record of the first k + 1
 * places with those at most its bound + the widest bound below it. Sorting
 * the head only (a few tens of the ~1,000 candidates of a small memory) is
 * most of the saving. A few candidates are sorted whole, in place.
 */
export function sortHead(ranked: Scored[], k: number): Scored[] {
  if (ranked.length <= Math.max(2 * (k + 1), 64)) return ranked.sort(byScore);
  let widest = 0;
  for (const s of ranked) widest = Math.max(widest, s.bound);
  const scores = Float64Array.from(ranked, (s) => s.score);
  const floor = quickSelectDescending(scores, scores.length, k) - 4 * widest - 1e-12;
  const head: Scored[] = [];
  const tail: Scored[] = [];
  for (const s of ranked) (s.score >= floor ? head : tail).push(s);
  head.sort(byScore);
  for (const s of tail) head.push(s);
  return head;
}

/**
 * The approximately scored candidates (sorted best first) whose place among
 * the first `k` their bounds leave undecided: each pair, one of them in the
 * first k + 1 places, whose intervals [score ± bound] overlap (pairs of two
 * exact values, or two equal vectors, are ordered already), one record per
 * group of equal vectors. Once none is left, the first k are the
 * exact top k in the exact order: a record of the exact top k ranked below
 * place k would overlap some record above it that belongs below it, and
 * within the first k every misordered pair overlaps.
 */
export function undecidedOrder(sorted: readonly Scored[], k: number): number[] {
  let widest = 0;
  for (const s of sorted) widest = Math.max(widest, s.bound);
  if (widest === 0) return [];
  const out = new Set<number>();
  const groups = new Set<number>();
  const mark = (s: Scored) => {
    if (s.bound === 0 || (s.group >= 0 && groups.has(s.group))) return;
    out.add(s.rid);
    if (s.group >= 0) groups.add(s.group);
  };
  const head = Math.min(sorted.length, k + 1);
  for (let i = 0; i < head; i++) {
    const a = sorted[i];
    for (let j = i + 1; j < sorted.length; j++) {
      const b = sorted[j];
      if (a.score - b.score > a.bound + widest) break;
      if ((a.bound === 0 && b.bound === 0) || (a.group >= 0 && a.group === b.group)) continue;
      if (a.score - b.score <= a.bound + b.bound) {
        mark(a);
        mark(b);
      }
    }
  }
  return [...out];
}
