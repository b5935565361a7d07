/**
 * The agent's read step (SPEC §1 step 1): the K most relevant ACTIVE records for a
 * question through the product's HybridSearch (dense cosine over sqlite-vec +
 * MiniSearch BM25, fused), as demonstrations. Input similarity of a retrieved
 * record = the exact cosine between the question's and the record's embeddings
 * (clamped to [-1, 1] by HybridSearch). Used by the app and the benchmark harness.
 */
import { Disposable } from '../lifecycle';
import type { Logger } from '../logger';
import { HybridSearch, MAX_K, type SearchHit } from '../memory/search/hybrid-search';
import { reviewQueries } from '../memory/sqlite/queries/review';
import type { MemoryBudget } from '../memory/memory-budget';
import type { DomainValues } from '../memory/search/domain-values';
import { hasContentWords, relevanceScorer } from '../memory/search/relevance';
import type { MemoryStore } from '../memory/sqlite/store';
import { outcomeWorked, type Language, type Outcome } from '../memory/types';
import type { RetrievedDemonstration } from './loop/agent-loop';

export interface RetrieveOptions {
  /** Only records in these languages (lower case); default: any language. */
  languages?: readonly Language[];
  /** Only records whose code worked (outcome success: memory_search without include_failures); default: any outcome. */
  workedOnly?: boolean;
  /**
   * Score each record's relevance (relevance.ts: 0–1, the same meaning in every memory) and return only
   * those at or above this floor, possibly none; a query without content words then gets none. Default:
   * no relevance, every hit (the agent's own demonstrations).
   */
  minRelevance?: number;
}

export interface MemoryRetrieverOptions {
  /** Keyword index file (default: beside the database; null: in memory only). */
  file?: string | null;
  logger?: Logger;
  /** Re-rank every search (the opt-in stage of hybrid-search; default: the search's own, off); it applies only with `domainValues`. */
  rerank?: boolean;
  /** The values of the database the agent queries, by column (the re-ranking's value columns; the relevance floor's values). */
  domainValues?: DomainValues;
  /** Caps of the search's caches (default: the default budget; memory-budget.ts). */
  memoryBudget?: MemoryBudget;
}

/**
 * @example
 * const retriever = MemoryRetriever.open(store);
 * const demos = retriever.retrieve('how many patients died in 2104?', embedder.embedSync(q), 4);
 * retriever.close();
 */
export class MemoryRetriever extends Disposable {
  // Question, code, language and outcome of a record never change: cached by id.
  private readonly texts = new Map<string, { question: string; code: string; language: Language; outcome: Outcome }>();

  /** The values of the database the agent queries (configure / options.domainValues): they speak for a query's relevance too. */
  private domainValues: DomainValues | null = null;

  private constructor(private readonly store: MemoryStore, private readonly search: HybridSearch, private rerank: boolean | undefined) {
    super();
    this._register({ dispose: () => search.close() });
  }

  static open(store: MemoryStore, options: MemoryRetrieverOptions = {}): MemoryRetriever {
    const retriever = new MemoryRetriever(store, HybridSearch.open(store, options), options.rerank);
    retriever.domainValues = options.domainValues ?? null;
    if (options.rerank && retriever.search.rerankApplies) retriever.startShapes();
    return retriever;
  }

  /**
   * Settles when the indexes are loaded, the re-ranking's question shapes included once re-ranking is on
   * (a file memory loads them in the background: until then a search keeps the fused order). Never rejects:
   * a side that failed to load leaves the other one serving.
   */
  get ready(): Promise<void> {
    return this.search.ready.catch(() => undefined);
  }

  /** Starts reading the question shapes now (in the background for a file memory), not at the first search. */
  private startShapes(): void {
    void this.search.shapes;
  }

  /**
   * Re-rank every search from now on or not (`agentMemory.retrieval.rerank`), and the values of the
   * database the agent queries for the re-ranking's value columns and the relevance floor (a query's words
   * in those values the memory never saw are left out of its known share; null: the memory's programs only).
   */
  configure(options: { rerank: boolean; domainValues: DomainValues | null }): void {
    this.rerank = options.rerank;
    this.domainValues = options.domainValues;
    this.search.setDomainValues(options.domainValues);
    // Without the data's values the re-ranking does not apply (rerankApplies): nothing is read for it.
    if (options.rerank && this.search.rerankApplies) this.startShapes();
  }

  /**
   * The K best active records for `question` (embedded as `vector`; without one, by keywords), best first.
   * With `options.languages`, only records in one of those languages (the agent's
   * demonstrations: see ../demonstration-languages.ts): the search widens (×4 each
   * round, up to MAX_K hits) until K such records are found or the memory has no
   * more; ranks count the records returned. Without it, any language (memory_search).
   * Stale records (their program fails on the current data: src/core/revalidation) are
   * never returned, the same widening keeps K when some are; so are failed records under
   * `options.workedOnly`.
   */
  retrieve(question: string, vector: Float32Array | undefined, k: number, options: RetrieveOptions = {}): RetrievedDemonstration[] {
    const floor = options.minRelevance;
    if (floor === undefined) return this.retrieveAll(question, vector, k, options);
    if (k <= 0 || !hasContentWords(question)) return [];
    const values = this.domainValues;
    const relevance = relevanceScorer(question, (terms) => this.search.keywords.documentFrequencies(terms), this.store.counts().active, values ? (q) => values.valueTerms(q) : undefined);
    return this.retrieveAll(question, vector, k, options)
      .map((d) => ({ ...d, relevance: relevance(d.question, d.code) }))
      .filter((d) => d.relevance >= floor)
      .map((d, rank) => ({ ...d, rank }));
  }

  private retrieveAll(question: string, vector: Float32Array | undefined, k: number, options: RetrieveOptions): RetrievedDemonstration[] {
    if (k <= 0) return [];
    const query = { text: question, vector };
    const stale = reviewQueries(this.store).staleIds();
    const searchOptions = this.rerank === undefined ? {} : { rerank: this.rerank };
    if (!options.languages && !options.workedOnly && stale.size === 0) return this.search.search(query, Math.min(k, MAX_K), searchOptions).map((hit, rank) => this.demonstration(hit, rank));
    const allowed = options.languages ? new Set(options.languages.map((l) => l.toLowerCase())) : null;
    for (let fetch = Math.min(k, MAX_K); ; fetch = Math.min(fetch * 4, MAX_K)) {
      const hits = this.search.search(query, fetch, searchOptions);
      const kept = hits
        .filter((hit) => !options.workedOnly || outcomeWorked(this.textOf(hit.recordId).outcome))
        .map((hit) => this.demonstration(hit, 0))
        .filter((d) => (!allowed || allowed.has(d.language)) && !stale.has(d.recordId));
      if (kept.length >= k || hits.length < fetch || fetch === MAX_K) return kept.slice(0, k).map((d, rank) => ({ ...d, rank }));
    }
  }

  private textOf(recordId: string): { question: string; code: string; language: Language; outcome: Outcome } {
    let text = this.texts.get(recordId);
    if (!text) {
      const rec = this.store.require(recordId);
      text = { question: rec.question, code: rec.execution.code, language: rec.execution.language, outcome: rec.execution.outcome };
      this.texts.set(recordId, text);
    }
    return text;
  }

  private demonstration(hit: SearchHit, rank: number): RetrievedDemonstration {
    const text = this.textOf(hit.recordId);
    const demo: RetrievedDemonstration = { recordId: hit.recordId, question: text.question, code: text.code, inputSimilarity: hit.inputSimilarity, language: text.language, rank };
    if (hit.identical) demo.identical = hit.identical;
    return demo;
  }

  /** Closes the indexes (same as dispose). */
  close(): void {
    this.dispose();
  }

  /** After close(): settles when the indexes have stopped (the keyword worker closed its connection). */
  get stopped(): Promise<void> {
    return this.search.stopped;
  }
}
