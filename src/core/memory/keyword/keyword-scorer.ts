import MiniSearch from 'minisearch';
import type { TopOfTerm } from './keyword-compact';
import { PostingsReader, postingsReader } from './keyword-postings';
import { concatResults, quickSelectDescending, selectTop, single, TermResults } from './keyword-select';
import { TermCache, TermCacheStats } from './keyword-term-cache';

export type { TermCacheStats } from './keyword-term-cache';

/**
 * Default budget of cached per-term results, in postings (TERM_CACHE_BYTES_PER_POSTING each): ~26 MB. It holds the warmed
 * terms of a 100k-record memory (6,162 terms, 1.34M postings, ~17 MB on the synthetic EHRSQL records) and terms cached on demand.
 */
export const DEFAULT_TERM_CACHE_POSTINGS = 2_000_000;
/** Bytes one cached posting takes (Int32 ordinal + Float64 score + Uint8 field): a byte budget's unit. */
export const TERM_CACHE_BYTES_PER_POSTING = 13;
/**
 * Most postings `warm` has scored in one call: a more frequent term is searched in pieces (its documents
 * split by rowid modulo the number of pieces), so one warming step stays short (~2 ms a piece at 100k).
 */
export const WARM_PIECE_POSTINGS = 1_000;
/**
 * Fewest postings of a query's only term, not cached, that the index's `topOfTerm` answers (the best
 * documents found in one pass over its postings in typed arrays, nothing cached): a term this frequent
 * is one no query would share with another term within the postings budget, only a templated memory of
 * hundreds of thousands of records has them, and caching it would take much of the budget.
 */
export const ONE_TERM_TOP_MIN_POSTINGS = 4_096;

/** One ranked keyword hit (record rowid, MiniSearch's BM25 score). */
export interface ScoredRid {
  rid: number;
  score: number;
}

/** A term `warm` has searched part of: the results of its first pieces. */
interface PartialTerm {
  term: string;
  pieces: number;
  parts: TermResults[];
}

/** The slice of MiniSearch this scorer calls: its public search and counters only. */
type Searchable = Pick<MiniSearch, 'search' | 'documentCount'>;

/** An index that reads a term's results itself (the compact index): its documents in order and its reader. */
export interface TermIndex {
  readonly documentCount: number;
  /** Record rowids of the live documents, in document order. */
  documentIds(): Iterable<number>;
  readTerm: PostingsReader;
  /** The documents that may rank first in a query of one term (the compact index; see ONE_TERM_TOP_MIN_POSTINGS). */
  topOfTerm?: TopOfTerm;
}

/** MiniSearch (its postings, or its public search) or an index reading its own postings. */
export type ScorerIndex = Searchable | TermIndex;

const isTermIndex = (index: ScorerIndex): index is TermIndex => typeof (index as Partial<TermIndex>).readTerm === 'function';

/** BM25 parameters and field weights of the queries (as given to MiniSearch). */
export interface ScorerOptions {
  fields: readonly string[];
  boost: Readonly<Record<string, number>>;
  bm25: { k: number; b: number; d: number };
  /**
   * Most occurrences of one term in one document, per field (Infinity when
   * unknown). A field whose tokenizer yields each term once has 1: a tighter
   * score bound. Only used to bound scores, never to compute them.
   */
  maxTermFrequency: Readonly<Record<string, number>>;
  /** Budget of the cached results, in postings (default DEFAULT_TERM_CACHE_POSTINGS). */
  maxCachedPostings?: number;
  /** Fewest postings of a one-term query answered by the index's `topOfTerm` (default ONE_TERM_TOP_MIN_POSTINGS). */
  oneTermTopMinPostings?: number;
  /**
   * Read a term's results from MiniSearch's postings (keyword-postings.ts: the same scores, without
   * building MiniSearch's result objects) instead of its public `search`. Only for an index whose terms
   * are the query terms as given (no `processTerm` at search time), as the keyword index's are.
   */
  readPostings?: boolean;
}

/** Live documents holding a term, per field (in `fields` order). */
export type FieldFrequencies = (term: string) => readonly number[];

/** Postings of a term over all fields. */
const postingsOf = (perField: readonly number[]): number => perField.reduce((a, b) => a + b, 0);

/** Relative margin on score bounds (they are computed apart from MiniSearch's own float operations). */
const BOUND_MARGIN = 1e-9;

/**
 * Multi-term OR queries answered from MiniSearch's per-term results.
 *
 * MiniSearch's public `search` builds a result object (matched terms, fields)
 * for every (document, term) posting, merges them into a Map and sorts every
 * matching document: ~1.3 µs per posting, ~7 ms for a query touching the
 * 5,000-posting budget, whatever the number of hits asked for. This scorer
 * takes one term at a time (with `readPostings`, read from MiniSearch's
 * postings with its own float operations: keyword-postings.ts; otherwise
 * `ms.search(term)`, public API) and combines the terms exactly as
 * MiniSearch's OR search does:
 * - score = (sum of the per-term scores, added in query-term order) × (number
 *   of query terms matched): the same float operations in the same order;
 * - order = score descending, ties in MiniSearch's own order (the document's
 *   first matching query term, then its first matching field, then document
 *   insertion order), which its stable sort keeps.
 * So a query returns the same records, scores and order as `ms.search(terms)`
 * (unit tests compare both on fixed corpora). Two things make it cheap:
 * - a term's results are kept in typed arrays until the index changes (a
 *   templated memory repeats its frequent terms in every query): the terms
 *   `warm` was given (the owner warms them in the background) and, within the
 *   rest of the budget, the terms queries searched whole, least recently used
 *   evicted first;
 * - top-k pruning (term-at-a-time MaxScore): terms are scored fully, cached and
 *   highest-bound first, only until no document matching none of them can
 *   reach the k-th best score found so far (bounds from BM25's saturation and
 *   the per-field document frequencies); the remaining terms are then scored
 *   only for the documents that can still reach it, with MiniSearch's
 *   `boostDocument` option (1 for those, 0 for the rest: the same scores, and
 *   no result object for the others), except a term with no more postings
 *   than those documents: it is read whole and cached (at 100k records most
 *   such terms have ~50–120 postings against ~1,200 documents).
 *
 * The owner reports every change of the index (`reset` after a load or
 * rebuild, `added`, `discarded`); each drops the cached terms (the document
 * count and field lengths, hence all scores, change). The index must hold no
 * discarded documents (`dirtCount` 0, vacuumed): MiniSearch's scores of a
 * term with discarded postings change from one search to the next.
 *
 * @example
 * const scorer = new KeywordScorer(ms, { fields, boost, bm25, maxTermFrequency });
 * scorer.search(['aspirin', 'how_many'], 32, dfOf); // [{ rid, score }], as ms.search('aspirin how_many')
 * scorer.warm('how_many', dfOf, performance.now() + 2); // true once cached (false: call again to go on)
 */
export class KeywordScorer {
  private ms: ScorerIndex;
  /** Reads a term's results from `ms`'s postings (null: through its public search). */
  private read: PostingsReader | null = null;
  private top: TopOfTerm | null = null;
  private readonly cache: TermCache;
  private partial: PartialTerm | null = null;
  private readonly ordinalOf = new Map<number, number>();
  private ridAt: number[] = [];
  private sums = new Float64Array(0);
  private matched = new Uint16Array(0);
  private first = new Uint32Array(0);
  private stamp = new Uint32Array(0);
  private mark = new Uint32Array(0);
  private values = new Float64Array(0);
  private generation = 0;
  private readonly fieldIndex: Map<string, number>;

  constructor(
    ms: ScorerIndex,
    private readonly options: ScorerOptions,
  ) {
    this.ms = ms;
    this.fieldIndex = new Map(options.fields.map((f, i) => [f, i]));
    this.cache = new TermCache(options.maxCachedPostings ?? DEFAULT_TERM_CACHE_POSTINGS);
    this.reset(ms);
  }

  /** A new or reloaded index: ordinals follow its document order (MiniSearch's wildcard search lists documents in that order). */
  reset(ms: ScorerIndex): void {
    this.ms = ms;
    this.clearCache();
    this.ordinalOf.clear();
    this.ridAt = [];
    this.top = isTermIndex(ms) ? (ms.topOfTerm ?? null) : null;
    if (isTermIndex(ms)) {
      this.read = ms.readTerm;
      for (const rid of ms.documentIds()) this.append(rid);
      return;
    }
    this.read = this.options.readPostings ? postingsReader(ms, this.options) : null;
    for (const r of ms.search(MiniSearch.wildcard)) this.append(r.id as number);
  }

  /** Documents added to the index (in the order they were added). */
  added(rids: readonly number[]): void {
    this.clearCache();
    for (const rid of rids) {
      this.ordinalOf.delete(rid);
      this.append(rid);
    }
  }

  /** Documents discarded from the index. */
  discarded(rids: readonly number[]): void {
    this.clearCache();
    for (const rid of rids) this.ordinalOf.delete(rid);
  }

  /** Number of terms whose results are cached (tests, diagnostics). */
  get cachedTerms(): number {
    return this.cache.stats.terms;
  }

  /** Sizes of the cache, warmed terms apart. */
  get cacheStats(): TermCacheStats {
    return this.cache.stats;
  }

  /** Budget of the cached results, in postings. */
  get cacheBudget(): number {
    return this.cache.budget;
  }

  /**
   * Caches the full results of `term` (as a query searching it whole would)
   * until the index changes, unless they would not fit in the budget beside
   * the terms already warmed (terms cached by queries are evicted to make
   * room). `df` gives the term's live document count per field: above
   * WARM_PIECE_POSTINGS the term is searched in pieces, and this returns
   * false once `deadline` (a `performance.now()` time) passed between two of
   * them; the next call for the same term goes on from there (a call for
   * another term, or a change of the index, drops the pieces done). Each call
   * searches at least one piece. True when the term is done: cached, already
   * cached, or too large to cache.
   */
  warm(term: string, df: FieldFrequencies, deadline: number): boolean {
    if (this.cache.isWarmed(term) || this.cache.promote(term)) return true;
    const postings = df(term).reduce((a, b) => a + b, 0);
    if (postings > this.cache.warmRoom) return true;
    const pieces = Math.max(1, Math.ceil(postings / WARM_PIECE_POSTINGS));
    const partial = this.partial?.term === term && this.partial.pieces === pieces ? this.partial : { term, pieces, parts: [] };
    this.partial = partial;
    let searched = false;
    while (partial.parts.length < pieces) {
      if (searched && performance.now() >= deadline) return false;
      const piece = partial.parts.length;
      partial.parts.push(this.fetch(term, pieces === 1 ? undefined : (rid) => rid % pieces === piece));
      searched = true;
    }
    this.partial = null;
    this.cache.pin(term, concatResults(partial.parts));
    return true;
  }

  /**
   * The best `limit` documents for the OR query of `terms` (distinct index
   * terms, in query order), as MiniSearch ranks them; `df` gives a term's live
   * document count per field (for the score bounds).
   */
  search(terms: readonly string[], limit: number, df: FieldFrequencies): ScoredRid[] {
    if (limit <= 0 || terms.length === 0) return [];
    if (terms.length === 1 && this.top && !this.cache.has(terms[0]) && df(terms[0]).reduce((a, b) => a + b, 0) >= (this.options.oneTermTopMinPostings ?? ONE_TERM_TOP_MIN_POSTINGS)) {
      const r = this.top(terms[0], limit, this.ordinalOf);
      // Ranked as below for one term: score, then first matching field, then document order.
      if (r) return selectTop(Array.from(r.ords.keys()), limit, (a, b) => r.scores[b] - r.scores[a] || r.field[a] - r.field[b] || r.ords[a] - r.ords[b]).map((j) => ({ rid: this.ridAt[r.ords[j]], score: r.scores[j] }));
    }
    this.ensureScratch();
    const frequencies = terms.map((t) => df(t));
    const bound = frequencies.map((f) => this.upperBound(f));
    const lists: (TermResults | null)[] = terms.map(() => null);
    const inCache = terms.map((t) => (this.cache.has(t) ? 1 : 0));
    const order = terms.map((_, i) => i).sort((a, b) => inCache[b] - inCache[a] || bound[b] - bound[a] || a - b);

    // 1. Whole terms, until documents matching none of them cannot reach the k-th best partial score.
    const { sums, matched, stamp } = this;
    const seen = this.nextGeneration();
    const touched: number[] = [];
    let rest = order.length;
    // The best partial score so far (a document's only grows): while the rest's bound reaches it, it reaches the k-th too (no selection).
    let best = 0;
    for (const i of order) {
      if (touched.length >= limit) {
        const restBound = this.restBound(order, rest, bound);
        if (restBound < best && restBound < this.kthPartial(touched, limit) * (1 - BOUND_MARGIN)) break;
      }
      const r = (lists[i] = this.termResults(terms[i]));
      for (let j = 0; j < r.ords.length; j++) {
        const o = r.ords[j];
        if (stamp[o] !== seen) {
          stamp[o] = seen;
          sums[o] = 0;
          matched[o] = 0;
          touched.push(o);
        }
        sums[o] += r.scores[j];
        const partial = sums[o] * ++matched[o];
        if (partial > best) best = partial;
      }
      rest--;
    }

    // 2. The documents that can still reach it; the remaining terms scored for them only.
    let candidates = touched;
    if (rest > 0) {
      const theta = this.kthPartial(touched, limit) * (1 - BOUND_MARGIN);
      const left = order.slice(order.length - rest);
      const restSum = left.reduce((s, i) => s + bound[i], 0);
      candidates = touched.filter((o) => (sums[o] + restSum) * (matched[o] + rest) >= theta);
      // A term with no more postings than there are candidates is read whole (and cached, as in step 1): cheaper
      // than the set of the candidates' rids a filtered read needs. Step 3 counts the candidates only: same scores.
      let rids: Set<number> | null = null;
      for (const i of left) {
        const whole = postingsOf(frequencies[i]) <= candidates.length;
        lists[i] = whole ? this.termResults(terms[i]) : this.termResults(terms[i], (rids ??= new Set(candidates.map((o) => this.ridAt[o]))));
      }
    }

    // 3. Exact scores of the candidates: per-term scores added in query-term order, as MiniSearch does.
    const { mark, first } = this;
    const chosen = this.nextGeneration();
    for (const o of candidates) mark[o] = chosen;
    const counted = this.nextGeneration();
    lists.forEach((r, t) => {
      if (!r) return;
      for (let j = 0; j < r.ords.length; j++) {
        const o = r.ords[j];
        if (mark[o] !== chosen) continue;
        if (stamp[o] !== counted) {
          stamp[o] = counted;
          sums[o] = 0;
          matched[o] = 0;
          first[o] = t * 256 + r.field[j];
        }
        sums[o] += r.scores[j];
        matched[o]++;
      }
    });
    const final = (o: number) => sums[o] * matched[o];
    const better = (a: number, b: number) => final(b) - final(a) || first[a] - first[b] || a - b;
    const top = limit * 4 >= candidates.length ? [...candidates].sort(better).slice(0, limit) : selectTop(candidates, limit, better);
    return top.map((o) => ({ rid: this.ridAt[o], score: final(o) }));
  }

  // ---------------------------------------------------------------- internals

  /** Highest score a term can add to one document: BM25 at its saturation bound, with the idf of the live document counts (MiniSearch's own counts are never lower). */
  private upperBound(df: readonly number[]): number {
    const { fields, boost, bm25, maxTermFrequency } = this.options;
    const n = this.ms.documentCount;
    let bound = 0;
    fields.forEach((field, f) => {
      const count = df[f] ?? 0;
      if (count <= 0) return;
      const tf = maxTermFrequency[field] ?? Infinity;
      const saturation = tf === Infinity ? bm25.k + 1 : (tf * (bm25.k + 1)) / (tf + bm25.k * (1 - bm25.b));
      bound += (boost[field] ?? 1) * Math.log(1 + (n - count + 0.5) / (count + 0.5)) * (bm25.d + saturation);
    });
    return bound * (1 + BOUND_MARGIN);
  }

  /** Bound of a document matching only the last `rest` terms of `order`: (sum of their bounds) × their number. */
  private restBound(order: readonly number[], rest: number, bound: readonly number[]): number {
    let sum = 0;
    for (let i = order.length - rest; i < order.length; i++) sum += bound[order[i]];
    return sum * rest;
  }

  /** The `limit`-th best partial score (sum × terms matched) among `touched`. */
  private kthPartial(touched: readonly number[], limit: number): number {
    const values = this.values;
    for (let i = 0; i < touched.length; i++) values[i] = this.sums[touched[i]] * this.matched[touched[i]];
    return quickSelectDescending(values, touched.length, limit - 1);
  }

  private append(rid: number): void {
    this.ordinalOf.set(rid, this.ridAt.length);
    this.ridAt.push(rid);
  }

  private clearCache(): void {
    this.cache.clear();
    this.partial = null;
  }

  private nextGeneration(): number {
    if (this.generation >= 0xfffffff0) {
      this.stamp.fill(0);
      this.mark.fill(0);
      this.generation = 0;
    }
    return ++this.generation;
  }

  private ensureScratch(): void {
    const n = this.ridAt.length;
    if (this.stamp.length >= n) return;
    const size = Math.max(n, this.stamp.length * 2, 1024);
    this.sums = new Float64Array(size);
    this.matched = new Uint16Array(size);
    this.first = new Uint32Array(size);
    this.stamp = new Uint32Array(size);
    this.mark = new Uint32Array(size);
    this.values = new Float64Array(size);
    this.generation = 0;
  }

  /** One term's results: all of them (cached, or searched and cached within the budget), or only those of `only` (not cached). */
  private termResults(term: string, only?: ReadonlySet<number>): TermResults {
    const hit = this.cache.get(term);
    if (hit) return hit;
    if (only) return this.fetch(term, (rid) => only.has(rid));
    const r = this.fetch(term);
    this.cache.remember(term, r);
    return r;
  }

  /** MiniSearch's results for `term` alone: all of them, or those of the documents `only` accepts (scored the same: boost 1, the others 0). */
  private fetch(term: string, only?: (rid: number) => boolean): TermResults {
    const direct = this.read?.(term, this.ordinalOf, only);
    if (direct) return direct;
    if (isTermIndex(this.ms)) throw new Error(`keyword index: no results for the term "${term}"`); // never: a term index always reads
    const results = this.ms.search(term, only ? { tokenize: single, boostDocument: (rid: number) => (only(rid) ? 1 : 0) } : { tokenize: single });
    const r: TermResults = { ords: new Int32Array(results.length), scores: new Float64Array(results.length), field: new Uint8Array(results.length) };
    let n = 0;
    for (const result of results) {
      const o = this.ordinalOf.get(result.id as number);
      if (o === undefined) continue; // never: the owner reports every change
      const fields = (result.match as Record<string, string[] | undefined>)[term];
      r.ords[n] = o;
      r.scores[n] = result.score;
      r.field[n] = this.fieldIndex.get(fields?.[0] ?? '') ?? 0;
      n++;
    }
    return n === results.length ? r : { ords: r.ords.slice(0, n), scores: r.scores.slice(0, n), field: r.field.slice(0, n) };
  }
}
