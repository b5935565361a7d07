/**
 * Retrieval for benchmark runs: the hybrid scheme of SPEC §5 (dense cosine +
 * MiniSearch BM25, fused with `fuseRankings`) over the ACTIVE records of a
 * MemoryStore, kept in step through the store's derived-index hook (records
 * that are deleted or pending are never returned). Dense scoring is exact
 * (brute force): benchmark memories hold hundreds to a few thousand records.
 *
 * Input similarity of a retrieved record = cosine between the question's and
 * the record's embeddings, whichever list found it.
 */
import MiniSearch from 'minisearch';
import { fuseRankings } from '../memory/fusion';
import type { IndexedText, MemoryStore } from '../memory/store';
import { tokenizeForKeywords } from '../memory/text-processing';
import { dot } from '../memory/vector-index';
import type { RetrievedDemonstration } from '../agent/loop/agent-loop';

/** Cosine of unit vectors can exceed 1 by float error; records store [-1, 1]. */
function clampCosine(x: number | undefined): number | null {
  return x === undefined ? null : Math.min(1, Math.max(-1, x));
}

/** Candidates each side contributes per requested hit before fusion. */
export const BENCH_FUSION_OVERFETCH = 10;

interface Entry {
  id: string;
  question: string;
  code: string;
  vector: Float32Array;
}

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
  private readonly entries = new Map<number, Entry>();
  private readonly keyword = new MiniSearch<{ id: number; question: string }>({ fields: ['question'], tokenize: tokenizeForKeywords, processTerm: (t) => t });
  private readonly subscription: { dispose(): void };

  constructor(private readonly store: MemoryStore, private readonly embedder: TextEmbedder, private readonly language: 'python' | 'javascript') {
    this.subscription = store.addDerivedIndex({ activated: (r) => this.activate(r), deactivated: (rids) => this.deactivate(rids) });
    this.activate(store.activeTexts());
  }

  get size(): number {
    return this.entries.size;
  }

  private activate(records: IndexedText[]): void {
    for (const r of records) {
      if (this.entries.has(r.rid)) continue;
      const stored = this.store.getEmbedding(r.id);
      const vector = stored && stored.length === this.embedder.dimension ? stored : this.embedder.embedSync(r.question);
      this.entries.set(r.rid, { id: r.id, question: r.question, code: r.code, vector });
      this.keyword.add({ id: r.rid, question: r.question });
    }
  }

  private deactivate(rids: number[]): void {
    for (const rid of rids) {
      const e = this.entries.get(rid);
      if (!e) continue;
      this.entries.delete(rid);
      // remove() with the indexed fields (discard() + auto-vacuum crashes MiniSearch 7.1 under churn).
      this.keyword.remove({ id: rid, question: e.question });
    }
  }

  /** The K best active records for `question`, best first, with their cosine input similarity. */
  retrieve(question: string, k: number): RetrievedDemonstration[] {
    if (this.entries.size === 0 || k <= 0) return [];
    const q = this.embedder.embedSync(question);
    const cosine = new Map<number, number>();
    const dense: { key: string; score: number }[] = [];
    for (const [rid, e] of this.entries) {
      const s = dot(q, e.vector);
      cosine.set(rid, s);
      dense.push({ key: String(rid), score: s });
    }
    const n = Math.max(k * BENCH_FUSION_OVERFETCH, 40);
    dense.sort((a, b) => b.score - a.score || Number(a.key) - Number(b.key));
    const keyword = this.keyword.search(question, { combineWith: 'OR' }).slice(0, n).map((h) => ({ key: String(h.id), score: h.score }));
    const fused = fuseRankings(dense.slice(0, n), keyword, { limit: k });
    return fused.map((hit, rank) => {
      const rid = Number(hit.key);
      const e = this.entries.get(rid)!;
      return { recordId: e.id, question: e.question, code: e.code, inputSimilarity: clampCosine(cosine.get(rid)), language: this.language, rank };
    });
  }

  dispose(): void {
    this.subscription.dispose();
  }
}
