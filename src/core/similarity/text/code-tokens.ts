/**
 * What the hashing embedder learns from the code of stored records: the
 * structural tokens of a program (identifiers, keywords, operators) and the
 * words of its literals (the values a question mentions).
 *
 * @example
 * ```ts
 * codeStructureTokens("select count(*) from lab where lab.name = 'potassium'");
 * // Set {'select', 'count', 'from', 'lab', 'where', 'lab.name', '='}
 * codeLiteralWords("select … where lab.name = 'potassium'"); // Set {'potassium'}
 * ```
 */
import { lexTokens } from '../../memory/text-processing';

const STRING_LITERAL = /'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"/g;
const SQL_STRING = /"((?:[^"\\]|\\.)*)"|`((?:[^`\\]|\\.)*)`/g;

/**
 * Agent programs keep their logic in SQL strings (`answer = sql("select …")`): the SQL
 * text is code, not a value, so it is unwrapped before tokenising (its own quoted
 * literals stay literals).
 */
export function unwrapSqlStrings(code: string): string {
  return code.replace(SQL_STRING, (whole, dq: string | undefined, bt: string | undefined) => {
    const body = dq ?? bt ?? '';
    return /^\s*(select|with)\b/i.test(body) ? ` ${body.replace(/\\(["\\`])/g, '$1')} ` : whole;
  });
}

/** Identifiers (dotted paths kept whole), keywords and comparison operators, literals and numbers removed. */
export function codeStructureTokens(code: string): Set<string> {
  const stripped = unwrapSqlStrings(code).toLowerCase().replace(STRING_LITERAL, ' ').replace(/\b\d+(?:\.\d+)?\b/g, ' ');
  return new Set(stripped.match(/[a-z_][a-z_0-9]*(?:\.[a-z_][a-z_0-9]*)*|[<>!=]=?/g) ?? []);
}

/** Prefix of a call token in a code-structure set ({@link codeCallTokens}). */
export const CALL_TOKEN_PREFIX = 'call:';

/**
 * The functions and methods the program itself calls, as `call:<name>` tokens (the last name before
 * `(`, lower-cased: `df.groupby(…)` and `data.groupby(…)` both give `call:groupby`). Calls inside
 * string literals do not count: the SQL functions of `sql("select count(*) …")` are the SQL's
 * structure ({@link codeStructureTokens}), and a call every program makes (`sql`) carries no weight
 * once IDF-weighted.
 */
export function codeCallTokens(code: string): Set<string> {
  const out = new Set<string>();
  for (const name of codeCallNames(code)) out.add(CALL_TOKEN_PREFIX + name);
  return out;
}

/** A string literal (skipped; STRING_LITERAL unrolled), or a name followed by `(` (group 1): one pass, no copy of the code. */
const CALL_OR_LITERAL = /'[^'\\]*(?:\\.[^'\\]*)*'|"[^"\\]*(?:\\.[^"\\]*)*"|([A-Za-z_][A-Za-z_0-9]*)\s*\(/g;

/** The names the program calls, lower-cased, each once ({@link codeCallTokens} without the prefix). */
export function codeCallNames(code: string): Set<string> {
  const out = new Set<string>();
  // exec over the one shared pattern (matchAll would copy it each call: ~10× slower on a search's path).
  CALL_OR_LITERAL.lastIndex = 0;
  for (let m = CALL_OR_LITERAL.exec(code); m !== null; m = CALL_OR_LITERAL.exec(code)) if (m[1] !== undefined) out.add(m[1].toLowerCase());
  return out;
}

/** Lower-cased words found inside the string literals of the code. */
export function codeLiteralWords(code: string): Set<string> {
  const out = new Set<string>();
  for (const m of unwrapSqlStrings(code).matchAll(STRING_LITERAL)) {
    for (const t of lexTokens(m[0].slice(1, -1))) if (t.kind === 'word') out.add(t.text);
  }
  return out;
}
