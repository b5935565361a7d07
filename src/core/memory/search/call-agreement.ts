/**
 * Agreement of programs (issue 35): what a task needs is what its program calls, and among the best
 * candidates of a hybrid search the records whose programs make the same calls support each other.
 * Over the fused top {@link AGREEMENT_DEPTH} records (each distinct program once), every call set (the
 * names a program calls, as `codeCallTokens` extracts them: calls inside string literals left out) is
 * scored by the cubed fused scores of its programs, plus one top record's worth (the first's cubed
 * score) for each of its calls the query names as a word ("split", "strftime"); the best-supported
 * set's best-ranked record then comes first. The rest of the order stands.
 *
 * - A program that calls nothing supports nothing (it is never moved; it can be passed over).
 * - Where every candidate makes the same calls it is a no-op: EHR agent programs all call only `sql`
 *   (the SQL's own functions sit in a string), so EHR rankings are unchanged.
 * - The scores are cubed so that the top stays first unless agreement below it is real: two programs
 *   agreeing at ranks 2 and 3 outweigh a lone first one, a lone one further down never does.
 *
 * Chosen on a dev split of the CoNaLa memory only (scripts/conala-dev-folds.ts); measured figures in
 * docs/benchmarks.md. Depth, power and the named-call weight are round numbers, not fitted.
 *
 * @example
 * ```ts
 * agreeOnCalls(fused, 'split a string by commas', (key) => programOf(key)); // same list, one entry moved first
 * ```
 */
import { normalizeText } from '../text-processing';
import { CALL_TOKEN_PREFIX, codeCallTokens } from '../../similarity/text/code-tokens';
import { programKey } from './program-collapse';

/** How many of the fused best records take part (the best-ranked record of each program among them). */
export const AGREEMENT_DEPTH = 10;
/** A program supports its call set by its fused score to this power. */
export const SUPPORT_POWER = 3;
/** Each call of a set that the query names as a word adds this many top records' support. */
export const NAMED_CALL_SUPPORT = 1;

/** A record's program as the stage needs it. */
export interface AgreementProgram {
  code: string;
  language: string;
}

export interface AgreementRanked {
  key: string;
  score: number;
}

/** The names a program calls, sorted, joined: two programs agree when their keys are equal ('' for none). */
export function callSetKey(code: string): string {
  return [...codeCallTokens(code)]
    .map((t) => t.slice(CALL_TOKEN_PREFIX.length))
    .sort()
    .join(',');
}

/** The identifiers a query names (`to_csv`, `df.groupby` → df, groupby), lower-cased: the words a call name can equal. */
export function namedIdentifiers(query: string): Set<string> {
  return new Set(normalizeText(query).match(/[a-z_][a-z0-9_]*/g) ?? []);
}

/**
 * `ranked` (best first) with the best-ranked record of the best-supported call set moved to the front;
 * the same array when it is already first (or when no program makes calls). `programOf` reads a
 * record's program (null: the record is gone and takes no part).
 */
export function agreeOnCalls<T extends AgreementRanked>(ranked: T[], query: string, programOf: (key: string) => AgreementProgram | null): T[] {
  if (ranked.length < 2) return ranked;
  const head = ranked.slice(0, AGREEMENT_DEPTH);
  const top = Math.max(0, head[0].score) ** SUPPORT_POWER;
  const named = namedIdentifiers(query);
  const seenPrograms = new Set<string>();
  /** call set → [support, index in `ranked` of its best-ranked record] */
  const sets = new Map<string, [number, number]>();
  head.forEach((h, i) => {
    const program = programOf(h.key);
    if (!program) return;
    const identity = programKey(program.code, program.language);
    if (seenPrograms.has(identity)) return;
    seenPrograms.add(identity);
    const key = callSetKey(program.code);
    if (key === '') return;
    const support = Math.max(0, h.score) ** SUPPORT_POWER;
    const entry = sets.get(key);
    if (entry) entry[0] += support;
    else sets.set(key, [support + NAMED_CALL_SUPPORT * top * key.split(',').filter((c) => named.has(c)).length, i]);
  });
  let best: [number, number] | null = null;
  for (const entry of sets.values()) if (!best || entry[0] > best[0]) best = entry;
  if (!best || best[1] === 0) return ranked;
  const first = ranked[best[1]];
  return [first, ...ranked.slice(0, best[1]), ...ranked.slice(best[1] + 1)];
}

