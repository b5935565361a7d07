/**
 * Retrieval for benchmark runs through the product's HybridSearch (SPEC §5:
 * dense cosine over sqlite-vec + MiniSearch BM25, fused), over the ACTIVE
 * records of the run's store. Input similarity of a retrieved record = the
 * exact cosine between the question's and the record's embeddings.
 */
import type { RetrievedDemonstration } from '../agent/loop/agent-loop';
import { HybridSearch } from '../memory/hybrid-search';
import type { MemoryStore } from '../memory/store';

export interface TextEmbedder {
  readonly id: string;
  readonly dimension: number;
  embedSync(text: string): Float32Array;
}

/**
 * @example
 * const retriever = new StoreRetriever(store, embedder, 'python');
 * const demos = retriever.retrieve('how many patients died in 2104?', 4);
 * retriever.dispose();
 */
export class StoreRetriever {
  private readonly search: HybridSearch;
  private readonly texts = new Map<string, { question: string; code: string }>();

  constructor(private readonly store: MemoryStore, private readonly embedder: TextEmbedder, private readonly language: 'python' | 'javascript') {
    this.search = HybridSearch.open(store, { file: null });
  }

  /** The K best active records for `question`, best first, with their cosine input similarity. */
  retrieve(question: string, k: number): RetrievedDemonstration[] {
    if (k <= 0) return [];
    const hits = this.search.search({ text: question, vector: this.embedder.embedSync(question) }, k);
    return hits.map((hit, rank) => {
      let text = this.texts.get(hit.recordId);
      if (!text) {
        const rec = this.store.require(hit.recordId);
        text = { question: rec.question, code: rec.execution.code };
        this.texts.set(hit.recordId, text);
      }
      return { recordId: hit.recordId, question: text.question, code: text.code, inputSimilarity: hit.inputSimilarity, language: this.language, rank };
    });
  }

  dispose(): void {
    this.search.close();
  }
}
