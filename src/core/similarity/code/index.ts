/**
 * Code similarity (SPEC §4): an asymmetric structural score in [0, 1] of a
 * candidate program relative to a reference program.
 *
 * - `pycode_similar` mode (Python only; JavaScript gets the same scheme without
 *   SQL lines): a port of pycode_similar v1.4 module-level mode — the normalised
 *   syntax tree of each unit (every function definition; the module body without
 *   definitions) is dumped as lines and matched with difflib's algorithm;
 *   score = Σ matched reference lines / Σ reference lines, each reference unit
 *   taking its best candidate unit. Constants are ignored exactly as the
 *   reference tool does.
 * - `structural` mode (default): the same, plus the SQL passed to the toolbox's
 *   `sql(...)` / `SQLInterpreter(...)` (and any string that starts like a query)
 *   appended to its unit as one line per structural token (keywords, tables,
 *   columns, operators; literal values removed).
 * - Code that does not parse (or uses syntax the models leave out) never throws:
 *   both sides fall back to a token-level line diff (see `line-fallback.ts`).
 * - Any other language (records from other agents carry any) has no structural
 *   measure: it always gets the token-level line diff, with a generic tokenizer.
 */
import { z } from 'zod';
import { AgentMemoryError } from '../../errors';
import { parsePython } from './py-parse-stmt';
import { pythonUnits } from './py-units';
import { javascriptUnits, parseJavaScript } from './js-units';
import { lineShapes } from './line-fallback';
import { isStructuralLanguage, StructuralLanguage } from './languages';
import { LanguageSchema } from '../../memory/types';
import { scoreUnits } from './unit-score';

export { sequenceMatcherMatches } from './sequence-matcher';
export { sqlStructureTokens } from './sql-structure';

/** Any record language; python and javascript have a structural measure (see ./languages.ts). */
export const CodeLanguageSchema = LanguageSchema;
export const SimilarityModeSchema = z.enum(['structural', 'pycode_similar']);
export type CodeLanguage = z.infer<typeof CodeLanguageSchema>;
export type SimilarityMode = z.infer<typeof SimilarityModeSchema>;

/** Default mode: structure plus the structure of the SQL strings. */
export const DEFAULT_SIMILARITY_MODE: SimilarityMode = 'structural';
/** Parsed programs kept in memory (a reference is usually compared many times). */
export const UNIT_CACHE_SIZE = 1024;

export interface CodeSimilarityOptions {
  mode?: SimilarityMode;
}

export interface CodeSimilarityDetail {
  /** matched / total, in [0, 1]. */
  score: number;
  /** matched reference lines. */
  matched: number;
  /** reference lines. */
  total: number;
  /** `structural` when both programs parsed, `line-fallback` otherwise. */
  method: 'structural' | 'line-fallback';
}

const unitCache = new Map<string, string[][] | null>();

/** Empties the parsed-program cache (benchmarks use it to measure cold pairs). */
export function clearCodeSimilarityCache(): void {
  unitCache.clear();
}

function structuralUnits(src: string, language: StructuralLanguage, withSql: boolean): string[][] | null {
  const key = `${language}\u0000${withSql ? 1 : 0}\u0000${src}`;
  const hit = unitCache.get(key);
  if (hit !== undefined) {
    unitCache.delete(key);
    unitCache.set(key, hit);
    return hit;
  }
  let units: string[][] | null;
  try {
    units = language === 'python' ? pythonUnits(parsePython(src), withSql) : javascriptUnits(parseJavaScript(src), withSql);
  } catch {
    units = null; // unparseable or unsupported syntax: the caller falls back to the line diff
  }
  unitCache.set(key, units);
  if (unitCache.size > UNIT_CACHE_SIZE) unitCache.delete(unitCache.keys().next().value as string);
  return units;
}

function validate(language: unknown, options: CodeSimilarityOptions | undefined): { language: CodeLanguage; mode: SimilarityMode } {
  const lang = CodeLanguageSchema.safeParse(language);
  if (!lang.success) {
    throw new AgentMemoryError('INVALID_INPUT', `Invalid code language '${String(language)}': ${lang.error.issues[0]?.message ?? 'use a name such as python or go'}.`);
  }
  const mode = SimilarityModeSchema.safeParse(options?.mode ?? DEFAULT_SIMILARITY_MODE);
  if (!mode.success) {
    throw new AgentMemoryError('INVALID_INPUT', `Unknown similarity mode '${String(options?.mode)}': use 'structural' or 'pycode_similar'.`);
  }
  return { language: lang.data, mode: mode.data };
}

/**
 * Similarity of `candidate` relative to `reference` with its integer parts.
 *
 * @example
 * const d = codeSimilarityDetail('a = f(x)\n', 'b = f(y)\n', 'python');
 * // { score: 1, matched: 6, total: 6, method: 'structural' }
 */
export function codeSimilarityDetail(
  reference: string,
  candidate: string,
  language: CodeLanguage,
  options?: CodeSimilarityOptions,
): CodeSimilarityDetail {
  const { language: lang, mode } = validate(language, options);
  const withSql = mode === 'structural';
  const structural = isStructuralLanguage(lang);
  const ref = structural ? structuralUnits(reference, lang, withSql) : null;
  const cand = ref && structural ? structuralUnits(candidate, lang, withSql) : null;
  if (ref && cand) {
    const { matched, total } = scoreUnits(ref, cand);
    return { score: total === 0 ? 0 : matched / total, matched, total, method: 'structural' };
  }
  const refLines = lineShapes(reference, lang);
  const candLines = lineShapes(candidate, lang);
  if (refLines.length === 0) {
    const same = candLines.length === 0 ? 1 : 0;
    return { score: same, matched: 0, total: 0, method: 'line-fallback' };
  }
  const { matched, total } = scoreUnits([refLines], [candLines]);
  return { score: matched / total, matched, total, method: 'line-fallback' };
}

/**
 * Similarity of `candidate` relative to `reference`, in [0, 1] (asymmetric).
 *
 * @example
 * codeSimilarity(refCode, agentCode, 'python'); // 0.8235
 * codeSimilarity(refCode, agentCode, 'python', { mode: 'pycode_similar' }); // oracle-compatible
 */
export function codeSimilarity(reference: string, candidate: string, language: CodeLanguage, options?: CodeSimilarityOptions): number {
  return codeSimilarityDetail(reference, candidate, language, options).score;
}
