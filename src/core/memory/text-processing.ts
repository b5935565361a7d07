/**
 * Text normalisation and tokenisation shared by the built-in hashing embedder
 * and the MiniSearch keyword index, so that both sides see the same terms.
 *
 * Numbers, dates and times are replaced by shape tokens (`<num>`, `<year>`,
 * `<date>`, `<time>`, `<dec>`): the exact value rarely matters for finding a
 * similar past task, its shape often does ("until 2104" vs "on 08/22/2104").
 *
 * @example
 * ```ts
 * lexTokens("What was patient 2238's last BP on 2103-09-16?").map((t) => t.text);
 * // ['what', 'was', 'patient', '<num>', 's', 'last', 'bp', 'on', '<date>']
 * tokenizeForKeywords('How many prescriptions were issued?');
 * // ['how', 'many', 'prescri', 'were', 'issued', 'how_many', …]
 * ```
 */

export type TokenKind = 'word' | 'number';

export interface Token {
  /** Canonical form: lower-cased word, or a shape token such as `<date>`. */
  readonly text: string;
  readonly kind: TokenKind;
}

/** Number words mapped to `<num>` so "top three" and "top 3" agree. */
const NUMBER_WORDS = new Set([
  'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve',
  'first', 'second', 'third', 'fourth', 'fifth',
]);

/**
 * Function words: they carry the shape of a request (how many / when / what),
 * not its values. Used by the embedder's shape sub-space and never masked as values.
 */
export const FUNCTION_WORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'the', 'of', 'to', 'in', 'on', 'at', 'for', 'by', 'with', 'from', 'since', 'until', 'till', 'up',
  'before', 'after', 'during', 'within', 'between', 'than', 'as', 'into', 'over', 'under', 'through', 'per', 'about',
  'what', 'which', 'who', 'whom', 'whose', 'when', 'where', 'why', 'how', 'many', 'much', 'is', 'are', 'was',
  'were', 'be', 'been', 'being', 'has', 'have', 'had', 'do', 'does', 'did', 'can', 'could', 'will', 'would',
  'should', 'shall', 'may', 'might', 'must', 'it', 'its', 'this', 'that', 'these', 'those', 'there', 'their',
  'they', 'them', 'he', 'she', 'his', 'her', 'i', 'me', 'my', 'we', 'our', 'you', 'your', 'and', 'or', 'not',
  'no', 'any', 'all', 'each', 'every', 'some', 'same', 'other', 'also', 'ever', 'yet', 'still', 'so', 'if',
  'whether', 'then', 'just', 'only', 'more', 'most', 'less', 'least', 'greater', 'lower', 'higher', 'last',
  'first', 'ago', 's',
]);

/** Words so common in requests that the keyword index drops them. */
export const KEYWORD_STOP_WORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'the', 'of', 'to', 'in', 'on', 'at', 'for', 'by', 'is', 'are', 'was', 'were', 'be', 'been', 'it',
  'its', 'this', 'that', 'and', 'or', 's', 'me', 'my', 'you', 'your', 'please', 'can', 'could', 'tell', 'show',
]);

/** NFKC, lower case, unified quotes and dashes. */
export function normalizeText(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\u2018\u2019\u02bc`]/g, "'")
    .replace(/[\u2010-\u2015]/g, '-');
}

const TOKEN_PATTERN =
  /(\d{4}-\d{1,2}-\d{1,2}|\d{1,2}\/\d{1,2}\/\d{2,4}|\d{1,2}\/\d{4}|\d{4}-\d{1,2})|(\d{1,2}:\d{2}(?::\d{2})?)|(\d+\.\d+)|(\d+)(?:st|nd|rd|th)?|([a-z]+)/g;

/**
 * Splits text into canonical tokens; digits become shape tokens.
 * A 4-digit number from 1900 to 2199 is a `<year>`.
 */
export function lexTokens(text: string): Token[] {
  const out: Token[] = [];
  const source = normalizeText(text);
  TOKEN_PATTERN.lastIndex = 0;
  for (let m = TOKEN_PATTERN.exec(source); m !== null; m = TOKEN_PATTERN.exec(source)) {
    if (m[1]) out.push({ text: '<date>', kind: 'number' });
    else if (m[2]) out.push({ text: '<time>', kind: 'number' });
    else if (m[3]) out.push({ text: '<dec>', kind: 'number' });
    else if (m[4]) {
      const n = m[4];
      const isYear = n.length === 4 && Number(n) >= 1900 && Number(n) < 2200;
      out.push({ text: isYear ? '<year>' : '<num>', kind: 'number' });
    } else if (m[5]) {
      const w = m[5];
      out.push(NUMBER_WORDS.has(w) && w !== 'first' && w !== 'second' ? { text: '<num>', kind: 'number' } : { text: w, kind: 'word' });
    }
  }
  return out;
}

/** Length at which {@link stem} truncates words (prefix stemming). */
export const STEM_PREFIX_LENGTH = 7;

/**
 * Cheap, language-agnostic stemming: strip a plural/verb suffix, then keep a
 * prefix of {@link STEM_PREFIX_LENGTH} letters ("prescribed" and
 * "prescriptions" both become "prescri").
 */
export function stem(word: string): string {
  if (word.startsWith('<')) return word;
  let w = word;
  if (w.length > 4) {
    if (w.endsWith('ies')) w = w.slice(0, -3) + 'y';
    else if (w.endsWith('sses')) w = w.slice(0, -2);
    else if (w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is')) w = w.slice(0, -1);
  }
  if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith('ed')) w = w.slice(0, -2);
  return w.length > STEM_PREFIX_LENGTH ? w.slice(0, STEM_PREFIX_LENGTH) : w;
}

/**
 * Terms for the MiniSearch keyword index (use it as MiniSearch's `tokenize`
 * and `processTerm: (t) => t`): stemmed non-stop words plus bigrams of the
 * stemmed sequence (joined with `_`), which keep phrases such as "how_many".
 *
 * @example
 * ```ts
 * new MiniSearch({ fields: ['question'], tokenize: tokenizeForKeywords, processTerm: (t) => t });
 * ```
 */
export function tokenizeForKeywords(text: string): string[] {
  const stems = lexTokens(text).map((t) => stem(t.text));
  const out: string[] = [];
  for (const s of stems) if (!KEYWORD_STOP_WORDS.has(s)) out.push(s);
  for (let i = 0; i + 1 < stems.length; i++) out.push(`${stems[i]}_${stems[i + 1]}`);
  return out;
}
