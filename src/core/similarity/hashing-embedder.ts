/**
 * The built-in local embedder: no network, no model download. Feature
 * hashing of question features (content words, masked n-grams, shape
 * tokens; see `text/question-features.ts`) into an L2-normalised vector.
 *
 * Two modes:
 * - **unfitted** (`hash-v1-<dim>`): all `dimension` buckets hold hashed lexical features;
 * - **fitted** on a memory with {@link fitTextStatistics} (`hash-v1-<dim>-fit-<fingerprint>`):
 *   lexical features are IDF-weighted and value words masked, in the first
 *   `dimension − projectionDimension` buckets, and the last
 *   `projectionDimension` buckets hold the learned projection towards the
 *   code structure of similar questions. Re-fitting changes the id: re-embed
 *   the store then (vectors of different ids must never be mixed).
 *
 * @example
 * ```ts
 * const embedder = new HashingEmbedder();                 // id 'hash-v1-384'
 * const v = embedder.embedSync('How many patients died?'); // Float32Array(384), ||v|| = 1
 * const fitted = new HashingEmbedder({ statistics: fitTextStatistics(records) });
 * const [a, b] = await fitted.embed(['q1', 'q2']);
 * ```
 */
import { AgentMemoryError } from '../errors';
import type { Embedder } from './embedder';
import { hashFeature, normalizeInPlace } from './text/feature-hash';
import { questionFeatures } from './text/question-features';
import type { TextStatistics } from './text/text-statistics';

/** Default vector size (matches common small sentence-embedding models). */
export const DEFAULT_HASHING_DIMENSION = 384;
/** Version of the feature set; bump whenever features or weights change. */
export const HASHING_FEATURES_VERSION = 'v1';
/** Share of the lexical sub-space in a fitted vector (the projection has weight 1). */
export const LEXICAL_WEIGHT = 0.3;
/** Seed of the lexical hash (the projection uses its own). */
const LEXICAL_SEED = 0x1ee7;

export interface HashingEmbedderOptions {
  dimension?: number;
  /** Statistics fitted on the memory; without them the embedder works unfitted. */
  statistics?: TextStatistics;
}

const NO_VALUES = (): number => 0;

export class HashingEmbedder implements Embedder {
  readonly id: string;
  readonly dimension: number;
  private readonly statistics: TextStatistics | undefined;
  private readonly lexicalDimension: number;

  constructor(options: HashingEmbedderOptions = {}) {
    const dimension = options.dimension ?? DEFAULT_HASHING_DIMENSION;
    if (!Number.isInteger(dimension) || dimension < 8) {
      throw new AgentMemoryError('CONFIG', `Hashing embedder dimension must be an integer ≥ 8 (got ${dimension}); use ${DEFAULT_HASHING_DIMENSION}.`);
    }
    const stats = options.statistics;
    if (stats && stats.projectionDimension * 2 > dimension) {
      throw new AgentMemoryError('CONFIG', `Fitted projection (${stats.projectionDimension} dims) needs a dimension of at least ${stats.projectionDimension * 2}; raise the dimension or fit with a smaller projectionDimension.`);
    }
    this.dimension = dimension;
    this.statistics = stats;
    this.lexicalDimension = stats ? dimension - stats.projectionDimension : dimension;
    this.id = `hash-${HASHING_FEATURES_VERSION}-${dimension}` + (stats ? `-fit-${stats.fingerprint}` : '');
  }

  /** True when the embedder uses statistics fitted on a memory. */
  get fitted(): boolean {
    return this.statistics !== undefined;
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (const text of texts) {
      if (signal?.aborted) throw new AgentMemoryError('CANCELLED', 'Embedding was cancelled.');
      out.push(this.embedSync(text));
    }
    return out;
  }

  /** Synchronous embedding for hot paths (tens of microseconds per question). */
  embedSync(text: string): Float32Array {
    const stats = this.statistics;
    const vector = new Float32Array(this.dimension);
    const features = questionFeatures(text, stats ? stats.valueProbability : NO_VALUES);
    const lexDim = this.lexicalDimension;
    if (!stats) {
      for (const [feature, weight] of features) {
        const { index, sign } = hashFeature(feature, lexDim, LEXICAL_SEED);
        vector[index] += sign * weight;
      }
      return normalizeInPlace(vector);
    }
    const projDim = stats.projectionDimension;
    const projection = new Float32Array(projDim);
    let lexNorm = 0;
    for (const [feature, weight] of features) {
      const w = weight * stats.idf(feature);
      const { index, sign } = hashFeature(feature, lexDim, LEXICAL_SEED);
      vector[index] += sign * w;
      const p = stats.projectionOf(feature);
      if (p) for (let d = 0; d < projDim; d++) projection[d] += w * p[d];
    }
    for (let i = 0; i < lexDim; i++) lexNorm += vector[i] * vector[i];
    const lexScale = lexNorm > 0 ? LEXICAL_WEIGHT / Math.sqrt(lexNorm) : 0;
    for (let i = 0; i < lexDim; i++) vector[i] *= lexScale;
    normalizeInPlace(projection);
    vector.set(projection, lexDim);
    return normalizeInPlace(vector);
  }
}
