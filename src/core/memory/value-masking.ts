/**
 * A value-masked view of a question (issue 18 item 1, after DAIL-SQL's
 * question masking): the domain values a question mentions (drug, lab and
 * diagnosis names, ids, numbers, dates) are replaced by placeholders, so that
 * two questions of the same shape look alike whatever values they carry.
 *
 * - The value vocabulary comes from the literals of stored programs, in any
 *   language: every quoted string of the code (SQL held in a string is
 *   unwrapped first, so its own literals count), split into words. It is kept
 *   incrementally with counts: `add(code)` when a record comes, `remove(code)`
 *   when it goes; a phrase stays while one record still has it.
 * - Generic literal patterns need no vocabulary: quoted strings, dates,
 *   times, decimals and integers (ids, counts, years).
 * - Phrases are matched longest first on word boundaries; a single function
 *   word ("a", "of", "last") or a one-letter literal is never masked alone.
 * - `mask(question, ownCode)` also masks the literals of the record's own
 *   program (index time: a record's question is masked with its own values
 *   even before the vocabulary has them).
 *
 * @example
 * ```ts
 * const vocabulary = new ValueVocabulary();
 * vocabulary.add(`answer = sql("select route from prescriptions where drug = 'danazol'")`);
 * vocabulary.mask('What is the intake method of danazol since 2104-03-01?');
 * // { text: 'what is the intake method of <value> since <date>?', masked: ['danazol', '2104-03-01'] }
 * ```
 */
import { FUNCTION_WORDS, normalizeText } from './text-processing';

/** Placeholder of a masked vocabulary value or quoted string. */
export const VALUE_PLACEHOLDER = '<value>';

/** Generic literal patterns, tried in this order at each position (each becomes its placeholder). */
const GENERIC_PATTERNS: readonly [RegExp, string][] = [
  [/^(?:'[^']{1,80}'|"[^"]{1,80}")/, VALUE_PLACEHOLDER],
  [/^(?:\d{4}-\d{1,2}-\d{1,2}|\d{1,2}\/\d{1,2}\/\d{2,4}|\d{1,2}\/\d{4}|\d{4}-\d{1,2})(?![\d])/, '<date>'],
  [/^\d{1,2}:\d{2}(?::\d{2})?(?!\d)/, '<time>'],
  [/^\d+\.\d+(?!\d)/, '<number>'],
  [/^\d+(?:st|nd|rd|th)?(?![\p{L}\p{N}])/u, '<number>'],
];

const STRING_LITERAL = /'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g;
const WORD = /[\p{L}\p{N}]+/gu;

/** Lower-cased words of a text (letters and digits). */
function wordsOf(text: string): string[] {
  return normalizeText(text).match(WORD) ?? [];
}

/**
 * The string literals of a program, in any language; a literal that holds code
 * (SQL: `select …`/`with …`) is opened and its own literals are taken instead.
 */
export function programLiterals(code: string): string[] {
  const out: string[] = [];
  const visit = (text: string, depth: number): void => {
    for (const m of text.matchAll(STRING_LITERAL)) {
      const body = m[0].slice(1, -1).replace(/\\(["'`\\])/g, '$1');
      if (depth < 2 && /^\s*(select|with|insert|update|delete)\b/i.test(body)) visit(body, depth + 1);
      else if (body.trim() !== '') out.push(body);
    }
  };
  visit(code, 0);
  return out;
}

export interface MaskedQuestion {
  /** The masked view: lower case, values replaced by placeholders. */
  text: string;
  /** The words replaced, in order, as they appear in the question (lower case). */
  masked: string[];
}

/** Value phrases of stored programs with the number of records holding each; see the module comment. */
export class ValueVocabulary {
  private readonly phrases = new Map<string, number>();
  /** First word → lengths (in words) of the phrases starting with it. */
  private readonly lengths = new Map<string, Map<number, number>>();

  /** Number of distinct value phrases. */
  get size(): number {
    return this.phrases.size;
  }

  has(phrase: string): boolean {
    return this.phrases.has(wordsOf(phrase).join(' '));
  }

  /** Counts the literal phrases of one record's program. */
  add(code: string): void {
    for (const words of phrasesOf(code)) {
      const key = words.join(' ');
      this.phrases.set(key, (this.phrases.get(key) ?? 0) + 1);
      const byLength = this.lengths.get(words[0]) ?? new Map<number, number>();
      byLength.set(words.length, (byLength.get(words.length) ?? 0) + 1);
      this.lengths.set(words[0], byLength);
    }
  }

  /** Un-counts them (the record went); a phrase leaves with its last record. */
  remove(code: string): void {
    for (const words of phrasesOf(code)) {
      const key = words.join(' ');
      const n = this.phrases.get(key);
      if (n === undefined) continue;
      if (n > 1) this.phrases.set(key, n - 1);
      else this.phrases.delete(key);
      const byLength = this.lengths.get(words[0]);
      const m = byLength?.get(words.length);
      if (!byLength || m === undefined) continue;
      if (m > 1) byLength.set(words.length, m - 1);
      else byLength.delete(words.length);
      if (byLength.size === 0) this.lengths.delete(words[0]);
    }
  }

  /** The masked view of `question`; `ownCode`: the record's program, whose literals are masked too. */
  mask(question: string, ownCode?: string): MaskedQuestion {
    const own = ownCode ? new ValueVocabulary() : null;
    if (own && ownCode) own.add(ownCode);
    const source = normalizeText(question);
    const parts: string[] = [];
    const masked: string[] = [];
    const placeholder = (token: string, original: string): void => {
      masked.push(original);
      if (parts[parts.length - 1] !== token) parts.push(token);
    };
    let i = 0;
    while (i < source.length) {
      const rest = source.slice(i);
      const generic = GENERIC_PATTERNS.find(([re]) => re.test(rest));
      if (generic && (i === 0 || !/[\p{L}\p{N}]/u.test(source[i - 1]))) {
        const m = generic[0].exec(rest)!;
        placeholder(generic[1], m[0].replace(/^['"]|['"]$/g, ''));
        i += m[0].length;
        continue;
      }
      WORD.lastIndex = i;
      const w = WORD.exec(source);
      if (!w || w.index !== i) {
        parts.push(source[i]);
        i += 1;
        continue;
      }
      const span = this.match(source, i, own);
      if (span > i) {
        placeholder(VALUE_PLACEHOLDER, source.slice(i, span));
        i = span;
        continue;
      }
      parts.push(w[0]);
      i += w[0].length;
    }
    return { text: parts.join('').replace(/\s+/g, ' ').trim(), masked };
  }

  /** End of the longest vocabulary phrase starting at `start` (a word start), or `start`. */
  private match(source: string, start: number, own: ValueVocabulary | null): number {
    const ends: number[] = [];
    const words: string[] = [];
    WORD.lastIndex = start;
    for (let m = WORD.exec(source); m !== null && words.length < 12; m = WORD.exec(source)) {
      // Words of a phrase are separated by blanks or light punctuation only.
      const gap = source.slice(ends.length ? ends[ends.length - 1] : start, m.index);
      if (ends.length && !/^[\s\-/,.%&+()[\]]*$/.test(gap)) break;
      words.push(m[0]);
      ends.push(m.index + m[0].length);
    }
    for (let n = words.length; n >= 1; n--) {
      const key = words.slice(0, n).join(' ');
      if (n === 1 && !maskableAlone(key)) continue;
      if (this.phrases.has(key) || own?.phrases.has(key)) return ends[n - 1];
    }
    return start;
  }
}

/** A single word is masked alone only if it is not a function word and has two or more characters. */
function maskableAlone(word: string): boolean {
  return word.length >= 2 && !FUNCTION_WORDS.has(word);
}

/** Word sequences of a program's literals (digits-only literals are left to the generic patterns). */
function phrasesOf(code: string): string[][] {
  const out: string[][] = [];
  for (const literal of programLiterals(code)) {
    const words = wordsOf(literal);
    if (words.length === 0 || words.length > 12 || words.every((w) => /^\d+$/.test(w))) continue;
    if (words.length === 1 && !maskableAlone(words[0])) continue;
    out.push(words);
  }
  return out;
}

/** Stand-ins the tokeniser of the embedder and the keyword index reads as one term each (shape tokens for numbers, dates, times). */
const INDEX_STAND_INS: Record<string, string> = { [VALUE_PLACEHOLDER]: ' valuemask ', '<number>': ' 0 ', '<date>': ' 2000-01-01 ', '<time>': ' 00:00 ' };

/** The masked view as text for the embedder and the keyword index (see text-processing.ts: numbers become shape tokens there). */
export function indexableMaskedText(masked: MaskedQuestion): string {
  return masked.text.replace(/<value>|<number>|<date>|<time>/g, (p) => INDEX_STAND_INS[p]).replace(/\s+/g, ' ').trim();
}
