/**
 * The embedding port shared by the built-in hashing embedder and the
 * OpenAI-compatible embedder.
 *
 * @example
 * ```ts
 * const [vector] = await embedder.embed(['def add(a, b): return a + b']);
 * // vector.length === embedder.dimension, and ||vector||₂ === 1
 * ```
 */
export interface Embedder {
  /** Stable id stored with every vector, e.g. 'hash-v1-384' or 'openai:text-embedding-3-small'. */
  readonly id: string;
  readonly dimension: number;
  /** Embeds texts; vectors are L2-normalised Float32Arrays of length `dimension`. */
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
}
