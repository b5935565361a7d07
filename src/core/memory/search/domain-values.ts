/**
 * The values of the data the agent works on, by column (issue 18, value
 * columns): which named thing (`table.column`) holds each value phrase, read
 * from the database itself (see data/domain-values-reader.ts), so a query's
 * value that no stored program has used yet still says what it is ("packed
 * cell transfusion" is a procedure title, "d10w" an input item). The
 * re-ranking (rerank.ts) reads it after the memory's own programs, which speak
 * first: a value they compare with a column takes that column.
 *
 * @example
 * ```ts
 * const values = new DomainValues([['potassium', 'd_labitems.label'], ['potassium', 'd_items.label']]);
 * values.columnsIn('What was the last potassium of patient 4?'); // [{ phrase: 'potassium', columns: ['d_items.label', 'd_labitems.label'] }]
 * ```
 */
import { phraseKey, ValueVocabulary } from './value-masking';

export interface DomainValue {
  /** The phrase key (lower-case words joined by single spaces). */
  phrase: string;
  /** The columns holding it, sorted. */
  columns: readonly string[];
}

export class DomainValues {
  private readonly vocabulary: ValueVocabulary;
  private readonly columns = new Map<string, string[]>();

  /** `entries`: [phrase, column] pairs (the phrase as data holds it; it is keyed as the value vocabulary keys it). */
  constructor(entries: Iterable<readonly [string, string]>) {
    for (const [text, column] of entries) {
      const key = phraseKey(text);
      if (key === '') continue;
      const list = this.columns.get(key) ?? [];
      if (!list.includes(column)) list.push(column);
      this.columns.set(key, list);
    }
    for (const list of this.columns.values()) list.sort();
    this.vocabulary = ValueVocabulary.of([...this.columns.keys()]);
  }

  /** Number of distinct value phrases. */
  get size(): number {
    return this.columns.size;
  }

  /** The value phrases of `text` found in the data (longest first, as value masking matches), with their columns. */
  columnsIn(text: string): DomainValue[] {
    const out: DomainValue[] = [];
    for (const value of this.vocabulary.mask(text).masked) {
      const phrase = phraseKey(value);
      const columns = this.columns.get(phrase);
      if (columns) out.push({ phrase, columns });
    }
    return out;
  }
}
