import { tokenizeForKeywords } from '../text-processing';
import { Doc, FIELD_PREFIXES, tokenize } from './keyword-documents';

/** Warming's progress over one state of the index (see KeywordIndex.warmStep). */
export interface WarmProgress {
  /** The terms still to list (each once); null once listed. */
  keys: Iterator<string> | null;
  /** Terms listed so far, by total document frequency. */
  byDf: Map<number, string[]>;
  /** The terms to warm, most frequent first, within the cache budget. */
  list: string[];
  /** How many of them are done. */
  next: number;
}

/** Which terms warming caches: their total document frequency range, and the cache budget in postings. */
export interface WarmRange {
  minDf: number;
  maxDf: number;
  budget: number;
}

/**
 * The first stage of a keyword search: which query terms to look up, from the
 * live document frequency of each term per field: a query takes its terms
 * rarest first within a postings budget. Warming lists the terms worth caching
 * from the same counts. Where the counts come from is the engine's: its own
 * map (TermFrequencies, beside MiniSearch) or the compact index's arrays.
 */
export abstract class TermSelection {
  /** Live documents holding `term`, per field (MINISEARCH_OPTIONS.fields order). */
  abstract readonly perField: (term: string) => number[];

  /** Every term some live document holds, each once. */
  protected abstract termList(): Iterator<string>;

  /** Postings of `term` over all fields. */
  total(term: string): number {
    return this.perField(term).reduce((a, b) => a + b, 0);
  }

  /** The index terms of `text`, rarest first, until their summed document frequency would pass `maxPostings` (at least one). */
  select(text: string, maxPostings: number): string[] {
    const unique = [...new Set(tokenizeForKeywords(text))];
    const withDf = unique.map((t) => ({ t, df: this.total(t) })).filter((x) => x.df > 0);
    withDf.sort((a, b) => a.df - b.df);
    const out: string[] = [];
    let used = 0;
    for (const { t, df } of withDf) {
      if (out.length > 0 && used + df > maxPostings) break;
      out.push(t);
      used += df;
    }
    return out;
  }

  /** A fresh warming progress over the current counts (any change of them must start a new one). */
  startWarming(): WarmProgress {
    return { keys: this.termList(), byDf: new Map(), list: [], next: 0 };
  }

  /**
   * Lists the terms to warm (total document frequency within `range`) until
   * `deadline`: true once all are listed (`list` then holds them, most
   * frequent first, without those that would overflow the cache budget).
   */
  listWarmTerms(w: WarmProgress, range: WarmRange, deadline: number): boolean {
    const keys = w.keys;
    if (!keys) return true;
    for (let n = 1; ; n++) {
      const next = keys.next();
      if (next.done) break;
      const term = next.value;
      const df = this.total(term);
      if (df >= range.minDf && df <= range.maxDf) {
        const bucket = w.byDf.get(df);
        if (bucket) bucket.push(term);
        else w.byDf.set(df, [term]);
      }
      if (n % 256 === 0 && performance.now() >= deadline) return false;
    }
    w.keys = null;
    let postings = 0;
    for (const df of [...w.byDf.keys()].sort((a, b) => b - a)) {
      for (const term of w.byDf.get(df) ?? []) {
        if (postings + df > range.budget) break;
        w.list.push(term);
        postings += df;
      }
    }
    w.byDf.clear();
    return true;
  }
}

/**
 * The document frequencies MiniSearch's engine keeps beside it: one count per
 * field a term occurs in (keys `q:term` / `c:term`, live documents only;
 * persisted with the index).
 *
 * @example
 * const terms = new TermFrequencies();
 * terms.count(doc, 1);
 * terms.select('how many patients', 5_000); // index terms, rarest first
 */
export class TermFrequencies extends TermSelection {
  constructor(private counts = new Map<string, number>()) {
    super();
  }

  /** The counts as persisted beside the index. */
  get map(): Map<string, number> {
    return this.counts;
  }

  /** Replaces every count (an index loaded from its file). */
  replace(counts: Map<string, number>): void {
    this.counts = counts;
  }

  clear(): void {
    this.counts.clear();
  }

  readonly perField = (term: string): number[] => FIELD_PREFIXES.map((p) => this.counts.get(p + term) ?? 0);

  /** Counts a document in (`delta` 1) or out (-1) of every term of its fields. */
  count(doc: Doc | null, delta: number): void {
    if (!doc) return;
    const terms = new Set([...tokenize(doc.question, 'question').map((t) => `q:${t}`), ...tokenize(doc.code, 'code').map((t) => `c:${t}`)]);
    for (const key of terms) {
      const next = (this.counts.get(key) ?? 0) + delta;
      if (next > 0) this.counts.set(key, next);
      else this.counts.delete(key);
    }
  }

  /** Each term once, from the key of the first field it occurs in. */
  protected *termList(): Iterator<string> {
    for (const key of this.counts.keys()) {
      const term = key.slice(2);
      const field = FIELD_PREFIXES.findIndex((p) => key.startsWith(p));
      if (FIELD_PREFIXES.slice(0, field).some((p) => this.counts.has(p + term))) continue;
      yield term;
    }
  }
}
