/**
 * The agent's read step (SPEC §1 step 1): the K most relevant ACTIVE records for a
 * question through the product's HybridSearch (dense cosine over sqlite-vec +
 * MiniSearch BM25, fused), as demonstrations. Input similarity of a retrieved
 * record = the exact cosine between the question's and the record's embeddings
 * (clamped to [-1, 1] by HybridSearch). Used by the app and the benchmark harness.
 */
import { Disposable } from '../lifecycle';
import type { Logger } from '../logger';
import { HybridSearch } from '../memory/hybrid-search';
import type { MemoryStore } from '../memory/store';
import type { Language } from '../memory/types';
import type { RetrievedDemonstration } from './loop/agent-loop';

export interface MemoryRetrieverOptions {
  /** Keyword index file (default: beside the database; null: in memory only). */
  file?: string | null;
  logger?: Logger;
}

/**
 * @example
 * const retriever = MemoryRetriever.open(store);
 * const demos = retriever.retrieve('how many patients died in 2104?', embedder.embedSync(q), 4);
 * retriever.close();
 */
export class MemoryRetriever extends Disposable {
  // Question, code and language of a record never change: cached by id.
  private readonly texts = new Map<string, { question: string; code: string; language: Language }>();

  private constructor(private readonly store: MemoryStore, private readonly search: HybridSearch) {
    super();
    this._register({ dispose: () => search.close() });
  }

  static open(store: MemoryStore, options: MemoryRetrieverOptions = {}): MemoryRetriever {
    return new MemoryRetriever(store, HybridSearch.open(store, options));
  }

  /** The K best active records for `question` (embedded as `vector`), best first. */
  retrieve(question: string, vector: Float32Array, k: number): RetrievedDemonstration[] {
    if (k <= 0) return [];
    const hits = this.search.search({ text: question, vector }, k);
    return hits.map((hit, rank) => {
      let text = this.texts.get(hit.recordId);
      if (!text) {
        const rec = this.store.require(hit.recordId);
        text = { question: rec.question, code: rec.execution.code, language: rec.execution.language };
        this.texts.set(hit.recordId, text);
      }
      return { recordId: hit.recordId, question: text.question, code: text.code, inputSimilarity: hit.inputSimilarity, language: text.language, rank };
    });
  }

  /** Closes the indexes (same as dispose). */
  close(): void {
    this.dispose();
  }
}
