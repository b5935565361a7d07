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

/** Embeds one text synchronously (the built-in hashing embedder). */
export interface SyncQuestionEmbedder {
  readonly id: string;
  embedSync(text: string): Float32Array;
}

/**
 * Embeds a question for retrieval and for the record it may become; undefined
 * when no vector can be had now (an embedding endpoint is down): retrieval
 * then runs on keywords and the record is stored without a vector.
 */
export interface QueryEmbedder {
  readonly id: string;
  embedQuery(text: string, signal?: AbortSignal): Promise<Float32Array | undefined>;
}

/** Either kind of question embedder (the bench passes the built-in one directly). */
export type QuestionEmbedder = SyncQuestionEmbedder | QueryEmbedder;

/** The question's vector from either kind of embedder. */
export async function embedQuestion(embedder: QuestionEmbedder, text: string, signal?: AbortSignal): Promise<Float32Array | undefined> {
  return 'embedQuery' in embedder ? embedder.embedQuery(text, signal) : embedder.embedSync(text);
}
