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
 *   A vocabulary of the data's own values (`phrasesFirst`, DomainValues)
 *   matches its phrases before the generic patterns, so a value holding a
 *   number ("3 deg burn w loss-thigh") is found whole; one of program literals
 *   matches numbers first ('-1 year' is a quantity, not a value).
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
import { FUNCTION_WORDS, normalizeText } from '../text-processing';

/** Placeholder of a masked vocabulary value or quoted string. */
export const VALUE_PLACEHOLDER = '<value>';

/**
 * Generic literal patterns, tried in this order at a position that does not follow a letter or digit
 * (each becomes its placeholder). Sticky: each is tried exactly at `lastIndex`, without copying the rest.
 */
const GENERIC_PATTERNS: readonly [RegExp, string][] = [
  [/(?:'[^']{1,80}'|"[^"]{1,80}")/y, VALUE_PLACEHOLDER],
  [/(?:\d{4}-\d{1,2}-\d{1,2}|\d{1,2}\/\d{1,2}\/\d{2,4}|\d{1,2}\/\d{4}|\d{4}-\d{1,2})(?![\d])/y, '<date>'],
  [/\d{1,2}:\d{2}(?::\d{2})?(?!\d)/y, '<time>'],
  [/\d+\.\d+(?!\d)/y, '<number>'],
  [/\d+(?:st|nd|rd|th)?(?![\p{L}\p{N}])/uy, '<number>'],
];

const STRING_LITERAL = /'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g;
const WORD = /[\p{L}\p{N}]+/gu;
/** A word exactly at `lastIndex`. */
const WORD_AT = /[\p{L}\p{N}]+/uy;
const WORD_CHAR = /[\p{L}\p{N}]/u;
/** What may separate the words of one phrase: blanks or light punctuation. */
const PHRASE_GAP = /^[\s\-/,.%&+()[\]]*$/;
/** Longest phrase matched, in words. */
const MAX_PHRASE_WORDS = 12;

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

/**
 * Value phrases of stored programs with the number of records holding each; see the module comment.
 * Masking costs O(question words): one map lookup per word start (the phrase lengths that start with
 * that word), then one per such length; the vocabulary is never scanned.
 */
export class ValueVocabulary {
  /**
   * Whether its phrases are matched before the generic patterns. On for the values of the data (read from the
   * database's columns, DomainValues): each is a value whole, digits included ("3 deg burn w loss-thigh",
   * "0.9% sodium chloride", "24 hr creatinine"), so a question holding one names that value, not a number and
   * some words. Off for the literals of stored programs: they hold quantities as well as values ('-1 year',
   * '+2 day': datetime modifiers), and "until 1 year ago" is a number with its unit, not a value.
   */
  readonly phrasesFirst: boolean;
  private readonly phrases = new Map<string, number>();
  /** First word → lengths (in words) of the phrases starting with it, each with its number of phrases. */
  private readonly lengths = new Map<string, Map<number, number>>();

  constructor(options: { phrasesFirst?: boolean } = {}) {
    this.phrasesFirst = options.phrasesFirst ?? false;
  }

  /** Number of distinct value phrases. */
  get size(): number {
    return this.phrases.size;
  }

  has(phrase: string): boolean {
    return this.phrases.has(wordsOf(phrase).join(' '));
  }

  /** Counts the literal phrases of one record's program. */
  add(code: string): void {
    for (const key of valuePhrases(code)) this.addPhrase(key);
  }

  /** Un-counts them (the record went); a phrase leaves with its last record. */
  remove(code: string): void {
    for (const key of valuePhrases(code)) this.removePhrase(key);
  }

  /** Counts one phrase (a key of {@link valuePhrases}: lower-case words joined by single spaces), `times` times. */
  addPhrase(key: string, times = 1): void {
    const n = this.phrases.get(key) ?? 0;
    this.phrases.set(key, n + times);
    if (n > 0) return;
    const { first, length } = phraseShape(key);
    const byLength = this.lengths.get(first) ?? new Map<number, number>();
    byLength.set(length, (byLength.get(length) ?? 0) + 1);
    this.lengths.set(first, byLength);
  }

  /** Un-counts one phrase; nothing happens when it is not there. */
  removePhrase(key: string): void {
    const n = this.phrases.get(key);
    if (n === undefined) return;
    if (n > 1) {
      this.phrases.set(key, n - 1);
      return;
    }
    this.phrases.delete(key);
    const { first, length } = phraseShape(key);
    const byLength = this.lengths.get(first);
    const m = byLength?.get(length);
    if (!byLength || m === undefined) return;
    if (m > 1) byLength.set(length, m - 1);
    else byLength.delete(length);
    if (byLength.size === 0) this.lengths.delete(first);
  }

  /** Every phrase with its count, sorted (tests compare an incrementally kept vocabulary with a rebuilt one). */
  entries(): [string, number][] {
    return [...this.phrases.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  }

  /** The masked view of `question`; `ownCode`: the record's program, whose literals are masked too. */
  mask(question: string, ownCode?: string): MaskedQuestion {
    return this.maskWith(question, ownCode ? ValueVocabulary.of(valuePhrases(ownCode)) : null);
  }

  /** A vocabulary of these phrase keys (one record's program: see {@link valuePhrases}). */
  static of(phrases: readonly string[], options: { phrasesFirst?: boolean } = {}): ValueVocabulary {
    const out = new ValueVocabulary(options);
    for (const key of phrases) out.addPhrase(key);
    return out;
  }

  /** The masked view of `question`, with `own` (a record's own phrases) masked too. */
  maskWith(question: string, own: ValueVocabulary | null): MaskedQuestion {
    const source = normalizeText(question);
    const parts: string[] = [];
    const masked: string[] = [];
    const placeholder = (token: string, original: string): void => {
      masked.push(original);
      if (parts[parts.length - 1] !== token) parts.push(token);
    };
    let i = 0;
    next: while (i < source.length) {
      WORD_AT.lastIndex = i;
      const w = WORD_AT.exec(source);
      // Values of the data first (see `phrasesFirst`): "3 deg burn w loss-thigh" is one value, not a number and words.
      let span = w && this.phrasesFirst ? this.match(source, i, w[0], own) : i;
      if (span === i && (i === 0 || !WORD_CHAR.test(source[i - 1]))) {
        for (const [re, token] of GENERIC_PATTERNS) {
          re.lastIndex = i;
          const m = re.exec(source);
          if (!m) continue;
          placeholder(token, m[0].replace(/^['"]|['"]$/g, ''));
          i += m[0].length;
          continue next;
        }
      }
      if (!w) {
        parts.push(source[i]);
        i += 1;
        continue;
      }
      if (span === i && !this.phrasesFirst) span = this.match(source, i, w[0], own);
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

  /** End of the longest vocabulary phrase starting at `start` (a word start, `first` the word there), or `start`. */
  private match(source: string, start: number, first: string, own: ValueVocabulary | null): number {
    const mine = this.lengths.get(first);
    const theirs = own?.lengths.get(first);
    if (!mine && !theirs) return start;
    let longest = 0;
    for (const n of mine?.keys() ?? []) longest = Math.max(longest, n);
    for (const n of theirs?.keys() ?? []) longest = Math.max(longest, n);
    const ends: number[] = [];
    const words: string[] = [];
    WORD.lastIndex = start;
    for (let m = WORD.exec(source); m !== null && words.length < Math.min(longest, MAX_PHRASE_WORDS); m = WORD.exec(source)) {
      // Words of a phrase are separated by blanks or light punctuation only.
      if (ends.length && !PHRASE_GAP.test(source.slice(ends[ends.length - 1], m.index))) break;
      words.push(m[0]);
      ends.push(m.index + m[0].length);
    }
    for (let n = words.length; n >= 1; n--) {
      if (!mine?.has(n) && !theirs?.has(n)) continue;
      const key = n === 1 ? words[0] : words.slice(0, n).join(' ');
      if (n === 1 && !maskableAlone(key)) continue;
      if (this.phrases.has(key) || own?.phrases.has(key)) return ends[n - 1];
    }
    return start;
  }
}

function phraseShape(key: string): { first: string; length: number } {
  const space = key.indexOf(' ');
  return { first: space < 0 ? key : key.slice(0, space), length: space < 0 ? 1 : key.split(' ').length };
}

/** A single word is masked alone only if it is not a function word and has two or more characters. */
function maskableAlone(word: string): boolean {
  return word.length >= 2 && !FUNCTION_WORDS.has(word);
}

/** The value phrases of a program's literals, as keys (see {@link valuePhrase}). */
export function valuePhrases(code: string): string[] {
  const out: string[] = [];
  for (const literal of programLiterals(code)) {
    const key = valuePhrase(literal);
    if (key !== null) out.push(key);
  }
  return out;
}

/**
 * A literal's value phrase key (lower-case words joined by single spaces), or null when it is not one:
 * no words, more than {@link MAX_PHRASE_WORDS}, digits only (left to the generic patterns), or a lone
 * function word or one-letter word.
 */
export function valuePhrase(literal: string): string | null {
  const words = wordsOf(literal);
  if (words.length === 0 || words.length > MAX_PHRASE_WORDS || words.every((w) => /^\d+$/.test(w))) return null;
  if (words.length === 1 && !maskableAlone(words[0])) return null;
  return words.join(' ');
}

/** Stand-ins the tokeniser of the embedder and the keyword index reads as one term each (shape tokens for numbers, dates, times). */
const INDEX_STAND_INS: Record<string, string> = { [VALUE_PLACEHOLDER]: ' valuemask ', '<number>': ' 0 ', '<date>': ' 2000-01-01 ', '<time>': ' 00:00 ' };

/** The key of a value phrase: its lower-case words joined by single spaces (as {@link valuePhrases} gives them). */
export function phraseKey(text: string): string {
  return wordsOf(text).join(' ');
}

/**
 * A comparison with a literal in a program, in any language: `= 'x'`, `== "x"`, `=== 'x'`, `!= 'x'`,
 * `<> 'x'`, `LIKE 'x'` (SQL held in a string is read too: the pattern runs over the whole text). The
 * name compared is read backwards from the operator (see {@link literalColumns}), so the scan stays
 * linear in the program's length.
 */
const COMPARED_LITERAL = /(?:={1,3}|!==?|<>|\blike\b)\s*(?:'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)")/gi;
const NAME_CHAR = /[\w.]/;

/** The name (`a.b`, `drug`) that ends right before `end` in `code`, blanks skipped; '' when there is none. */
function nameBefore(code: string, end: number): string {
  let i = end;
  while (i > 0 && /\s/.test(code[i - 1])) i -= 1;
  const stop = i;
  while (i > 0 && NAME_CHAR.test(code[i - 1])) i -= 1;
  const name = code.slice(i, stop).replace(/^[\d.]+/, '');
  return /^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$/.test(name) ? name : '';
}

/**
 * The value phrases of a program's literals that it compares with a named thing, each with that name
 * lower-cased (`[phrase key, column]`, e.g. `['potassium', 'd_labitems.label']`): the column a value
 * belongs to. Only phrases {@link valuePhrases} keeps (`phrases`: the program's, when already read);
 * the first comparison of a phrase wins.
 */
export function literalColumns(code: string, phrases: readonly string[] = valuePhrases(code)): [string, string][] {
  const keep = new Set(phrases);
  const out = new Map<string, string>();
  if (keep.size === 0) return [];
  for (const m of code.matchAll(COMPARED_LITERAL)) {
    const key = phraseKey((m[1] ?? m[2] ?? '').replace(/\\(["'`\\])/g, '$1'));
    if (!keep.has(key) || out.has(key)) continue;
    const name = nameBefore(code, m.index);
    if (name !== '') out.set(key, name.toLowerCase());
  }
  return [...out.entries()];
}

/** What a record offers a query's values (relevance.ts): its question's value slots and the columns its program compares literals with. */
export interface RecordSlots {
  /** `<value>` placeholders of its question masked with its own program's literals (as the re-ranking counts them). */
  slots: number;
  /** Names of the columns its program compares a literal with, lower case, the part after the last dot (`drug`, `label`). */
  columns: ReadonlySet<string>;
}

/** The last part of a column name (`d_labitems.label` → `label`, `t1.drug` → `drug`): programs write it qualified, by alias or bare. */
export function columnName(column: string): string {
  return column.slice(column.lastIndexOf('.') + 1).toLowerCase();
}

/** A record's {@link RecordSlots}: its question masked with its own program's literals only (no memory vocabulary). */
export function recordSlots(question: string, code: string): RecordSlots {
  const phrases = valuePhrases(code);
  const masked = new ValueVocabulary().maskWith(question, ValueVocabulary.of(phrases)).text;
  let slots = 0;
  for (let i = masked.indexOf(VALUE_PLACEHOLDER); i >= 0; i = masked.indexOf(VALUE_PLACEHOLDER, i + 1)) slots += 1;
  return { slots, columns: new Set(literalColumns(code, phrases).map(([, column]) => columnName(column))) };
}

/** The masked view as text for the embedder and the keyword index (see text-processing.ts: numbers become shape tokens there). */
export function indexableMaskedText(masked: MaskedQuestion): string {
  return masked.text.replace(/<value>|<number>|<date>|<time>/g, (p) => INDEX_STAND_INS[p]).replace(/\s+/g, ' ').trim();
}
