/**
 * Sparse features of a natural-language request, before hashing.
 *
 * Two kinds of evidence, kept apart by feature prefixes:
 * - **content** (`u:`): stemmed words, each weighted by 1 − P(value), so
 *   words that look like values (drug, lab, diagnosis names) count little;
 * - **shape** (`b:`, `t:`, `s:`): bigrams, trigrams and skip-bigrams over the
 *   stemmed token sequence where value-like words are masked as `<v>` and
 *   numbers/dates already are shape tokens; they carry the program shape
 *   ("how many", "when was the <v>", "<date>").
 *
 * @example
 * ```ts
 * questionFeatures('How many patients got <drug>?', () => 0).get('b:how many'); // 0.5
 * ```
 */
import { lexTokens, stem } from '../../memory/text-processing';

/** Weight of a content unigram (scaled by 1 − P(value)). */
export const UNIGRAM_WEIGHT = 1;
/** Weight of a number/date/time shape unigram. */
export const NUMBER_SHAPE_WEIGHT = 1;
/** Weight of an adjacent pair in the masked sequence. */
export const BIGRAM_WEIGHT = 0.5;
/** Weight of a trigram in the masked sequence. */
export const TRIGRAM_WEIGHT = 0.25;
/** Weight of a skip-bigram (one token skipped) in the masked sequence. */
export const SKIP_BIGRAM_WEIGHT = 0.25;
/** A word with P(value) at or above this is masked as `<v>` in the shape sequence. */
export const VALUE_MASK_THRESHOLD = 0.5;

/** Probability in [0, 1] that a (lower-cased) word is a value rather than part of the request's shape. */
export type ValueProbability = (word: string) => number;

/** Feature → raw weight (tf-like), before IDF and hashing. */
export function questionFeatures(text: string, valueProbability: ValueProbability): Map<string, number> {
  const features = new Map<string, number>();
  const add = (key: string, weight: number): void => {
    if (weight > 0) features.set(key, (features.get(key) ?? 0) + weight);
  };
  const tokens = lexTokens(text);
  if (tokens.length === 0) return features;
  const sequence: string[] = ['^'];
  for (const token of tokens) {
    if (token.kind === 'number') {
      add('u:' + token.text, NUMBER_SHAPE_WEIGHT);
      sequence.push(token.text);
      continue;
    }
    const p = valueProbability(token.text);
    const stemmed = stem(token.text);
    add('u:' + stemmed, UNIGRAM_WEIGHT * (1 - p));
    const item = p >= VALUE_MASK_THRESHOLD ? '<v>' : stemmed;
    if (item === '<v>' && sequence[sequence.length - 1] === '<v>') continue;
    sequence.push(item);
  }
  sequence.push('$');
  for (let i = 0; i + 1 < sequence.length; i++) {
    add(`b:${sequence[i]} ${sequence[i + 1]}`, BIGRAM_WEIGHT);
    if (i + 2 < sequence.length) {
      add(`t:${sequence[i]} ${sequence[i + 1]} ${sequence[i + 2]}`, TRIGRAM_WEIGHT);
      add(`s:${sequence[i]} ${sequence[i + 2]}`, SKIP_BIGRAM_WEIGHT);
    }
  }
  return features;
}
