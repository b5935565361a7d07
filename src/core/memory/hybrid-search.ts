import { z } from 'zod';
import { AgentMemoryError } from '../errors';
import { Logger } from '../logger';
import { DenseIndex } from './dense-index';
import { fuseRankings, FusionOptions, RankedKey } from './fusion';
import { KeywordIndex, KeywordIndexOptions } from './keyword-index';
import type { MemoryStore } from './store';
import { dot } from './vector-index';

/** Coarse (binary) candidates fetched per requested neighbour before exact rescoring. */
export const DENSE_OVERFETCH = 32;
/** Fewest coarse candidates rescored, whatever k. */
export const MIN_DENSE_CANDIDATES = 128;
/** Keyword candidates fetched per requested neighbour. */
export const KEYWORD_OVERFETCH = 8;
export const MIN_KEYWORD_CANDIDATES = 20;
export const MAX_K = 1000;

export type SearchMode = 'hybrid' | 'vector' | 'keyword';

export interface SearchQuery {
  text: string;
  /** Query embedding from the store's embedder; without it the search is keyword-only. */
  vector?: Float32Array;
}

export interface SearchOptions {
  mode?: SearchMode;
  /** Recency weighting ω = exp(−λ(T − t)), t = the record's created task, T = currentTask. */
  recency?: { lambda: number; currentTask: number };
  fusion?: FusionOptions;
}

export interface SearchHit {
  recordId: string;
  rid: number;
  /** Hybrid: fused RRF score; vector: cosine; keyword: BM25; times ω when recency applies. */
  score: number;
  /** Exact cosine between the query vector and the record's vector; null without vectors. */
  inputSimilarity: number | null;
  /** 1-based rank in the exact dense ranking, when the record was a dense candidate. */
  denseRank?: number;
  /** 1-based rank in the BM25 ranking, when the record was a keyword candidate. */
  keywordRank?: number;
}

const OptionsSchema = z.object({
  mode: z.enum(['hybrid', 'vector', 'keyword']).default('hybrid'),
  recency: z.object({ lambda: z.number().min(0).finite(), currentTask: z.number().int().min(0) }).optional(),
});

interface CandidateRow {
  rid: number;
  id: string;
  created_task: number;
  embedding: Buffer | null;
}

/**
 * Hybrid retrieval over the active records: dense candidates (binary-code
 * Hamming scan over a cache of sqlite-vec's `vec_bits`, then exact cosine
 * rescoring from `records.embedding`), keyword candidates (MiniSearch BM25),
 * fused with reciprocal-rank fusion and de-duplicated, optionally weighted by
 * recency. Works keyword-only when no query vector is given.
 *
 * @example
 * const search = HybridSearch.open(store, { logger });
 * const hits = search.search({ text: question, vector: embedder.embedSync(question) }, 4);
 * // [{ recordId, rid, score, inputSimilarity, denseRank, keywordRank }]
 * search.close();
 */
export class HybridSearch {
  private readonly rowStmt;

  constructor(
    store: MemoryStore,
    readonly keywords: KeywordIndex,
    readonly dense: DenseIndex,
  ) {
    this.rowStmt = store.db.prepare("SELECT rid, id, created_task, embedding FROM records WHERE rid = ? AND status = 'active'");
  }

  /** Opens the keyword index (loading or rebuilding it) and the dense candidate cache. */
  static open(store: MemoryStore, options: KeywordIndexOptions & { logger?: Logger } = {}): HybridSearch {
    return new HybridSearch(store, KeywordIndex.open(store, options), DenseIndex.open(store, { logger: options.logger }));
  }

  /** The `k` best active records for the query. */
  search(query: SearchQuery, k: number, options: SearchOptions = {}): SearchHit[] {
    if (!Number.isInteger(k) || k < 1 || k > MAX_K) throw new AgentMemoryError('INVALID_INPUT', `k must be an integer from 1 to ${MAX_K}, got ${k}.`);
    const { mode, recency } = OptionsSchema.parse({ mode: options.mode, recency: options.recency });
    const vector = query.vector;
    const useDense = mode !== 'keyword' && vector !== undefined;
    const useKeyword = mode !== 'vector';
    const denseRids = useDense ? this.dense.candidates(vector, Math.max(MIN_DENSE_CANDIDATES, k * DENSE_OVERFETCH)) : [];
    const keywordHits = useKeyword ? this.keywords.search(query.text, Math.max(MIN_KEYWORD_CANDIDATES, k * KEYWORD_OVERFETCH)) : [];

    const rows = new Map<number, { row: CandidateRow; cosine: number | null }>();
    const fetch = (rid: number) => {
      if (rows.has(rid)) return rows.get(rid);
      const row = this.rowStmt.get(rid) as CandidateRow | undefined;
      if (!row) return undefined;
      const cosine = vector && row.embedding && row.embedding.byteLength === vector.byteLength ? dotBlob(vector, row.embedding) : null;
      const entry = { row, cosine };
      rows.set(rid, entry);
      return entry;
    };

    const denseRanked: RankedKey[] = [];
    for (const rid of denseRids) {
      const e = fetch(rid);
      if (e && e.cosine !== null) denseRanked.push({ key: String(rid), score: e.cosine });
    }
    denseRanked.sort((a, b) => b.score - a.score);
    const keywordRanked: RankedKey[] = [];
    for (const hit of keywordHits) if (fetch(hit.rid)) keywordRanked.push({ key: String(hit.rid), score: hit.score });

    const fused =
      mode === 'vector' ? denseRanked : mode === 'keyword' ? keywordRanked : fuseRankings(denseRanked, keywordRanked, options.fusion).map((h) => ({ key: h.key, score: h.score }));
    const denseRank = new Map(denseRanked.map((h, i) => [h.key, i + 1]));
    const keywordRank = new Map(keywordRanked.map((h, i) => [h.key, i + 1]));

    let scored = fused.map((h) => {
      const rid = Number(h.key);
      const entry = rows.get(rid)!;
      const omega = recency ? Math.exp(-recency.lambda * Math.max(0, recency.currentTask - entry.row.created_task)) : 1;
      return { rid, entry, score: h.score * omega };
    });
    if (recency) scored = scored.sort((a, b) => b.score - a.score);
    return scored.slice(0, k).map(({ rid, entry, score }) => {
      const hit: SearchHit = { recordId: entry.row.id, rid, score, inputSimilarity: entry.cosine };
      const dr = denseRank.get(String(rid));
      const kr = keywordRank.get(String(rid));
      if (dr !== undefined) hit.denseRank = dr;
      if (kr !== undefined) hit.keywordRank = kr;
      return hit;
    });
  }

  /** Persists the keyword index now (also done debounced after changes and on close). */
  flush(): void {
    this.keywords.flush();
  }

  close(): void {
    this.keywords.close();
    this.dense.dispose();
  }
}

/** Dot product of a query vector and a float32 BLOB (no copy when aligned). */
function dotBlob(q: Float32Array, blob: Buffer): number {
  if (blob.byteOffset % 4 === 0) return dot(q, new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength / 4));
  const copy = new Uint8Array(blob.byteLength);
  copy.set(blob);
  return dot(q, new Float32Array(copy.buffer));
}
