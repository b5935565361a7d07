/**
 * Agreement of programs (issue 35): what a task needs is what its program calls, and among the best
 * candidates of a hybrid search the records whose programs make the same calls support each other.
 * The records in the top {@link AGREEMENT_DEPTH} of either side (dense, keyword: the keyword side finds
 * programs by their code identifiers too) take part. Every call set (the names a program calls, as
 * `codeCallNames` extracts them: calls inside string literals left out) is scored by its programs'
 * places on each side, (c / (c + rank))³ with the fusion's c = 5, each program once per side, plus one
 * first place's worth for each of its calls the query names as an identifier ("split", "to_csv"). The
 * best-supported set's best-ranked record (fused order) then comes first; the rest of the order stands.
 *
 * - A program that calls nothing supports nothing (it is never moved; it can be passed over).
 * - Where every candidate makes the same calls it is a no-op: EHR agent programs all call only `sql`
 *   (the SQL's own functions sit in a string), so EHR rankings are unchanged.
 * - Places are cubed so that the top stays first unless agreement below it is real: two programs
 *   agreeing at ranks 2 and 3 outweigh a lone first one; two at ranks 4 and 5 do not.
 * - Not in team spaces (PostgreSQL search) nor in the vector and keyword modes; recency re-weighting,
 *   which re-sorts the fused scores, may undo the move.
 *
 * - Cost: call sets come from a bounded per-connection cache (call-set-cache.ts); one call set among those
 *   taking part returns before any scoring. 100k EHR records, 200 queries, fused p50 with vs without it:
 *   +0.023, +0.007, +0.038 ms (`npm run bench:retrieval -- --sizes 100000 --queries 200 --dir D --json`,
 *   hybrid_agreement_p50_ms − hybrid_no_agreement_p50_ms, 28 Nov, load 1.1–1.9).
 *
 * Chosen on dev splits of the CoNaLa memory only (scripts/conala-dev-folds.ts), from a small grid
 * (depth 5/10/15/20, power 2/3/4, named-call weight 0/0.5/1/2: a plateau; the round values kept).
 *
 * @example
 * ```ts
 * const callSets = (keys: readonly string[]) => callSetCacheOf(db).callSets(keys, programsReader(db));
 * agreeOnCalls(fused, [denseRank, keywordRank], 'split a string by commas', callSets); // same list, one entry moved first
 * ```
 */
import { normalizeText } from '../text-processing';
import { DEFAULT_RANK_CONSTANT } from './fusion';
import type { AgreementProgram, CallSet } from './call-set-cache';
import type { Database } from '../sqlite/database';

export { callSetKey, callSetCacheOf, uncachedCallSets, type AgreementProgram, type CallSet } from './call-set-cache';

/** How many of the fused best records take part (the best-ranked record of each program among them). */
export const AGREEMENT_DEPTH = 10;
/** A program supports its call set by its fused score to this power. */
export const SUPPORT_POWER = 3;
/** Each call of a set that the query names as a word adds this many top records' support. */
export const NAMED_CALL_SUPPORT = 1;

export interface AgreementRanked {
  key: string;
  score: number;
}

/** The identifiers a query names (`to_csv`, `df.groupby` → df, groupby), lower-cased: the words a call name can equal. */
export function namedIdentifiers(query: string): Set<string> {
  return new Set(normalizeText(query).match(/[a-z_][a-z0-9_]*/g) ?? []);
}

/** A side's place score of a 1-based rank, as the fusion scores ranks: c / (c + rank). */
function place(rank: number): number {
  return DEFAULT_RANK_CONSTANT / (DEFAULT_RANK_CONSTANT + rank);
}

/** `fused` with its entry at `index` first (the same array when `index` is 0 or none). */
function moveFirst<T>(fused: T[], index: number): T[] {
  if (index <= 0) return fused;
  return [fused[index], ...fused.slice(0, index), ...fused.slice(index + 1)];
}

/**
 * `fused` (best first) with the best-ranked record of the best-supported call set moved to the front;
 * the same array when that record is already first (or when no program makes calls). `sideRanks`: each
 * side's 1-based rank by key (the dense and the keyword ranking); the records in some side's top
 * {@link AGREEMENT_DEPTH} take part. `callSetsOf` gives their call sets in one go (a key it leaves out
 * or maps to null: gone, takes no part; see CallSetCache, uncachedCallSets).
 *
 * Early exits, same result: fewer than two taking part; one call set among them (EHR: all `sql`), or none:
 * its best-ranked record comes first, nothing scored.
 */
export function agreeOnCalls<T extends AgreementRanked>(fused: T[], sideRanks: readonly ReadonlyMap<string, number>[], query: string, callSetsOf: (keys: readonly string[]) => ReadonlyMap<string, CallSet | null>): T[] {
  if (fused.length < 2) return fused;
  const taking: number[] = [];
  for (let i = 0; i < fused.length; i++) {
    const key = fused[i].key;
    for (const side of sideRanks) {
      if ((side.get(key) ?? Infinity) <= AGREEMENT_DEPTH) {
        taking.push(i);
        break;
      }
    }
  }
  if (taking.length < 2) return fused;
  const calls = callSetsOf(taking.map((i) => fused[i].key));
  // One call set (or none) among those taking part: its best-ranked record is the best-supported one's.
  let only: string | null = null;
  let onlyAt = -1;
  let several = false;
  for (const i of taking) {
    const set = calls.get(fused[i].key);
    if (!set || set.calls === '') continue;
    if (only === null) {
      only = set.calls;
      onlyAt = i;
    } else if (set.calls !== only) {
      several = true;
      break;
    }
  }
  if (!several) return moveFirst(fused, onlyAt);
  const named = namedIdentifiers(query);
  const seen = sideRanks.map(() => new Set<number>());
  /** call set → [support, index in `fused` of its best-ranked record] */
  const sets = new Map<string, [number, number]>();
  for (const i of taking) {
    const set = calls.get(fused[i].key);
    if (!set || set.calls === '') continue;
    // Copies are told apart by their code as stored (layout-noise copies, rare, count apart: normalising costs more than the stage may).
    const identity = set.identity;
    let support = 0;
    sideRanks.forEach((side, s) => {
      const r = side.get(fused[i].key) ?? Infinity;
      // A program supports once per side (its best rank there), copies of it adding nothing.
      if (r > AGREEMENT_DEPTH || seen[s].has(identity)) return;
      seen[s].add(identity);
      support += place(r) ** SUPPORT_POWER;
    });
    const entry = sets.get(set.calls);
    if (entry) entry[0] += support;
    else sets.set(set.calls, [support + NAMED_CALL_SUPPORT * place(1) ** SUPPORT_POWER * set.calls.split(',').filter((c) => named.has(c)).length, i]);
  }
  let best: [number, number] | null = null;
  for (const entry of sets.values()) if (!best || entry[0] > best[0]) best = entry;
  return best ? moveFirst(fused, best[1]) : fused;
}

const readers = new WeakMap<Database, (keys: readonly string[]) => Map<string, AgreementProgram>>();

/**
 * The programs of active records by key (rid as a string) in one read of the two columns, for the
 * call sets {@link agreeOnCalls} reads (CallSetCache.callSets); one prepared statement per connection. (Only `code` and `language`: the
 * columns after the embedding would make each row read its overflow pages.)
 */
export function programsReader(db: Database): (keys: readonly string[]) => Map<string, AgreementProgram> {
  let reader = readers.get(db);
  if (!reader) {
    const stmt = db.prepare("SELECT rid, code, language FROM records WHERE rid IN (SELECT value FROM json_each(?)) AND +status = 'active'");
    reader = (keys) => new Map((stmt.all(JSON.stringify(keys.map(Number))) as { rid: number; code: string; language: string }[]).map((r) => [String(r.rid), { code: r.code, language: r.language }]));
    readers.set(db, reader);
  }
  return reader;
}
