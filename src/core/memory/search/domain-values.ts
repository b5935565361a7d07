/**
 * The values of the data the agent works on, by column (issue 18, value
 * columns): which named thing (`table.column`) holds each value phrase, read
 * from the database itself (see data/domain-values-reader.ts), so a query's
 * value that no stored program has used yet still says what it is ("packed
 * cell transfusion" is a procedure title, "d10w" an input item). The
 * re-ranking (rerank.ts) reads it after the memory's own programs, which speak
 * first: a value they compare with a column takes that column. A value holding
 * a number ("3 deg burn w loss-thigh", "0.9% normal saline") is found whole:
 * the data's phrases are matched before the number patterns (value-masking.ts
 * `phrasesFirst`).
 *
 * @example
 * ```ts
 * const values = new DomainValues([['potassium', 'd_labitems.label'], ['potassium', 'd_items.label']]);
 * values.columnsIn('What was the last potassium of patient 4?'); // [{ phrase: 'potassium', columns: ['d_items.label', 'd_labitems.label'] }]
 * ```
 */
import { queryContentTerms, type QueryValue } from './relevance';
import { phraseKey, ValueVocabulary } from './value-masking';

export interface DomainValue {
  /** The phrase key (lower-case words joined by single spaces). */
  phrase: string;
  /** The columns holding it, sorted. */
  columns: readonly string[];
}

/** Value phrases keyed as the value vocabulary keys them, each with its columns (sorted, distinct). */
export type GroupedDomainValues = readonly (readonly [string, readonly string[]])[];

/** Separators of the packed form (see {@link DomainValues.pack}): between phrases, and between a phrase and its columns. */
const PACKED_ENTRY = '\u0000';
const PACKED_FIELD = '\u0001';
/** Phrases a {@link DomainValues.unpack} step adds before it yields to the event loop. */
export const UNPACK_SLICE = 2_000;

export class DomainValues {
  private readonly vocabulary: ValueVocabulary;
  private readonly columns: Map<string, readonly string[]>;

  /**
   * `entries`: [phrase, column] pairs (the phrase as data holds it; it is keyed as the value vocabulary
   * keys it), or `{ grouped }`: phrases already keyed and grouped by {@link group} (nothing is keyed again).
   */
  constructor(entries: Iterable<readonly [string, string]> | { grouped: GroupedDomainValues } | { built: { columns: Map<string, readonly string[]>; vocabulary: ValueVocabulary } }) {
    if ('built' in entries) {
      this.columns = entries.built.columns;
      // The data's values match before the number patterns: a vocabulary built otherwise is built again.
      this.vocabulary = entries.built.vocabulary.phrasesFirst ? entries.built.vocabulary : ValueVocabulary.of([...this.columns.keys()], { phrasesFirst: true });
      return;
    }
    this.columns = new Map('grouped' in entries ? entries.grouped : DomainValues.group(entries));
    this.vocabulary = ValueVocabulary.of([...this.columns.keys()], { phrasesFirst: true });
  }

  /**
   * Grouped phrases as one string (a worker thread posts it: one string crosses threads in about a
   * millisecond, where 44k small arrays take 50–200 ms to clone). A column name holding a separator is
   * left out.
   */
  static pack(grouped: GroupedDomainValues): string {
    const clean = (text: string): boolean => !text.includes(PACKED_ENTRY) && !text.includes(PACKED_FIELD);
    const out: string[] = [];
    for (const [phrase, columns] of grouped) {
      const kept = columns.filter(clean);
      if (kept.length > 0 && clean(phrase)) out.push([phrase, ...kept].join(PACKED_FIELD));
    }
    return out.join(PACKED_ENTRY);
  }

  /**
   * The values of a {@link pack}ed string, built {@link UNPACK_SLICE} phrases per event-loop turn, so the
   * thread that awaits it (the editor's extension host) is never held for the whole build.
   */
  static async unpack(packed: string, slice = UNPACK_SLICE): Promise<DomainValues> {
    const columns = new Map<string, readonly string[]>();
    const vocabulary = new ValueVocabulary({ phrasesFirst: true });
    const entries = packed === '' ? [] : packed.split(PACKED_ENTRY);
    for (let i = 0; i < entries.length; i += slice) {
      if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      for (const entry of entries.slice(i, i + slice)) {
        const [phrase, ...held] = entry.split(PACKED_FIELD);
        columns.set(phrase, held);
        vocabulary.addPhrase(phrase);
      }
    }
    return new DomainValues({ built: { columns, vocabulary } });
  }

  /** [phrase, column] pairs keyed and grouped: what `new DomainValues({ grouped })` takes (the costly part, done where the values are read). */
  static group(entries: Iterable<readonly [string, string]>): [string, string[]][] {
    const columns = new Map<string, string[]>();
    for (const [text, column] of entries) {
      const key = phraseKey(text);
      if (key === '') continue;
      const list = columns.get(key) ?? [];
      if (!list.includes(column)) list.push(column);
      columns.set(key, list);
    }
    for (const list of columns.values()) list.sort();
    return [...columns];
  }

  /** Number of distinct value phrases. */
  get size(): number {
    return this.columns.size;
  }

  /**
   * The value phrases `text` holds, each once, as relevance.ts reads them: its stemmed content words and
   * its columns (phrases without a content word left out).
   */
  valueTerms(text: string): QueryValue[] {
    const out = new Map<string, QueryValue>();
    for (const { phrase, columns } of this.columnsIn(text)) {
      const terms = queryContentTerms(phrase);
      if (terms.length > 0 && !out.has(phrase)) out.set(phrase, { phrase, terms, columns });
    }
    return [...out.values()];
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
