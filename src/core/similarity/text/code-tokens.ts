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

/** Identifiers (dotted paths kept whole), keywords and comparison operators, literals and numbers removed. */
export function codeStructureTokens(code: string): Set<string> {
  const stripped = code.toLowerCase().replace(STRING_LITERAL, ' ').replace(/\b\d+(?:\.\d+)?\b/g, ' ');
  return new Set(stripped.match(/[a-z_][a-z_0-9]*(?:\.[a-z_][a-z_0-9]*)*|[<>!=]=?/g) ?? []);
}

/** Lower-cased words found inside the string literals of the code. */
export function codeLiteralWords(code: string): Set<string> {
  const out = new Set<string>();
  for (const m of code.matchAll(STRING_LITERAL)) {
    for (const t of lexTokens(m[0].slice(1, -1))) if (t.kind === 'word') out.add(t.text);
  }
  return out;
}
