/**
 * What a hybrid search is asked and answers (query, options, hits, sides), the depths it searches to,
 * and how its options are read (zod, the re-ranking parts). The stages live in hybrid-search.ts, which
 * re-exports all of this.
 */
import { z } from 'zod';
import type { FusionOptions } from './fusion';
import type { KeywordIndexOptions } from '../keyword/keyword-index';
import type { Logger } from '../../logger';
import { ALL_RERANK_PARTS, DEFAULT_RERANK, RERANK_PART_NAMES, type RerankParts } from './rerank';
import type { DomainValues } from './domain-values';
import type { MemoryBudget } from '../memory-budget';

/**
 * Coarse (Hamming) candidates rescored exactly, per requested neighbour. Sign
 * codes of sparse hashed vectors rank near neighbours loosely in a small
 * memory, so small memories over-fetch more (cheap there: the scan is short);
 * in a large memory the neighbourhoods are dense and fewer suffice. Measured
 * recall@4 on the bench data: 0.99 at 1k and 10k with 128 per neighbour,
 * 0.999 at 100k with 32 per neighbour.
 */
export const DENSE_OVERFETCH_SMALL = 128;
export const DENSE_OVERFETCH_LARGE = 32;
/** Memory size from which the smaller over-fetch applies. */
export const LARGE_MEMORY = 50_000;
/** Depth of each ranking handed to fusion, per requested neighbour. */
export const FUSION_DEPTH = 8;
export const MIN_FUSION_DEPTH = 20;
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
  /**
   * Collapse records with the same normalised program to one representative
   * (see program-collapse.ts). Default: on in hybrid mode (the product's
   * ranking), off in the diagnostic vector and keyword modes.
   */
  collapse?: boolean;
  /** MMR-style diversity λ in [0, 1] among the collapsed groups (default 0: relevance only). */
  diversity?: number;
  /**
   * With collapse, also keep one entry per program on each side before fusion (copies then take one
   * rank per side; 20 copies: precision@4 0.5532 vs 0.5522 without). `false`: never; `true`: always
   * (it cost ~2× hybrid p50 at 100k, measured under load). Default: only a re-ranked search whose
   * collapsed top holds copies runs again collapsing per side, so the re-ranking sees the programs
   * (and their order) it would see without the copies; a memory without copies pays nothing.
   */
  collapseSides?: boolean;
  /**
   * Re-rank the best collapsed groups by question shape and program links
   * (see rerank.ts), with all parts (`true`) or these; applies only with
   * collapse. Default: {@link DEFAULT_RERANK} (off). The first re-ranked search
   * reads every active record's shape (ShapeIndex: synchronously, or in the
   * background for a background open, the fused order standing meanwhile).
   */
  rerank?: boolean | RerankParts;
  /** Hybrid mode: put the best-supported call set's best record first (call-agreement.ts). Default on; `false` ablates. */
  callAgreement?: boolean;
}

export interface SearchHit {
  recordId: string;
  rid: number;
  /** Hybrid: fused RRF score; vector: exact cosine; keyword: BM25; times ω when recency applies. */
  score: number;
  /** Exact cosine between the query vector and the record's vector (read with the record's row); null without vectors. */
  inputSimilarity: number | null;
  /** 1-based rank in the exact dense ranking, when the record was a dense candidate. */
  denseRank?: number;
  /** 1-based rank in the BM25 ranking, when the record was a keyword candidate. */
  keywordRank?: number;
  /** With collapse: how many other candidates have the same normalised program ("+12 identical"). */
  identical?: number;
}

/** A retrieval side that contributed to an answer. */
export type SearchSide = 'dense' | 'keyword';

export interface SearchAnswer {
  hits: SearchHit[];
  /**
   * The sides that answered: both when fused; 'dense' alone while the keyword
   * index is still loading (or failed); 'keyword' alone when the dense side
   * cannot answer (no query vector, embedder mismatch, no vectors stored).
   */
  sides: SearchSide[];
}

export interface HybridSearchOptions extends KeywordIndexOptions {
  logger?: Logger;
  /**
   * Open without blocking: the dense codes load across event-loop turns and
   * the keyword index loads in a worker thread (fused once ready). Default:
   * on for a file-backed store with a persisted keyword index, off otherwise.
   */
  background?: boolean;
  /** The values of the data the agent works on, by column, for the re-ranking's value columns (see rerank.ts). */
  domainValues?: DomainValues;
  /**
   * Caps (and the form) of the vector copies and the keyword caches (default: memoryBudget(), the
   * default budget); the store's connection takes its share when opened (MemoryStore.open).
   */
  memoryBudget?: MemoryBudget;
}

export const OptionsSchema = z.object({
  mode: z.enum(['hybrid', 'vector', 'keyword']).default('hybrid'),
  recency: z.object({ lambda: z.number().min(0).finite(), currentTask: z.number().int().min(0) }).optional(),
  collapse: z.boolean().optional(),
  diversity: z.number().min(0).max(1).default(0),
});

/** Deepest candidate list a collapsing search widens to while it finds fewer than k distinct programs. */
export const MAX_COLLAPSE_DEPTH = 4096;

/**
 * How much deeper than a pass a re-ranked search asks the dense side (see HybridSearch.denseSearch): 2×
 * serves the pass over copies that follows when the top holds up to two records per program. At 100k
 * (bench queries not asked before, alternating in one process) the re-ranked p50 was 3.18 / 2.66 /
 * 3.00 ms with 2×, 3.30 / 2.76 / 3.15 ms with 4× (every candidate: 13.8 exact vectors read per query
 * instead of 9.1) and 4.07 / 3.21 / 3.69 ms asking again per pass.
 */
export const DENSE_AHEAD = 2;

/** The re-ranking parts a search applies (null: none). */
export function rerankParts(option: boolean | RerankParts | undefined): RerankParts | null {
  const parts = option === undefined ? (DEFAULT_RERANK ? ALL_RERANK_PARTS : null) : option === true ? ALL_RERANK_PARTS : option === false ? null : option;
  return parts && RERANK_PART_NAMES.some((name) => parts[name]) ? parts : null;
}
