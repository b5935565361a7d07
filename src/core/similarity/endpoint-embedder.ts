/**
 * An OpenAI-compatible `/embeddings` endpoint (OpenAI, Azure, Ollama,
 * llama.cpp, vLLM) as an embedder, through the `openai` client and the shared
 * transport (per-attempt timeout, bounded retries with exponential backoff,
 * Retry-After honoured, cancellable): texts go in batches, every vector is
 * checked (count, dimension, finite, non-zero) and L2-normalised, and kept in
 * the persistent cache, so a text is sent to the endpoint once per model.
 *
 * The dimension comes from the model: the first reply sets it (or the one the
 * memory was built with, when given); a reply of another dimension is a MODEL
 * error of kind 'dimension'. Every failure is an AgentMemoryError (MODEL with
 * `details.kind`, CANCELLED, CONFIG) whose message says what to do and never
 * holds the key.
 *
 * @example
 * const embedder = new EndpointEmbedder({ baseURL: 'http://localhost:11434/v1', model: 'nomic-embed-text', cache: store.embeddingCache });
 * const [v] = await embedder.embed(['how many patients died in 2104?']);
 * embedder.dimension; // 768, from the first reply
 */
import type OpenAI from 'openai';
import { z } from 'zod';
import { EndpointConfigSchema, parseConfig, type EndpointConfig } from '../agent/model/config';
import { createOpenAIClient, withRetries, type CallTarget } from '../agent/model/transport';
import { AgentMemoryError, errorMessage } from '../errors';
import { nullLogger, type Logger } from '../logger';
import type { EmbeddingCache } from '../memory/sqlite/embedding-cache';
import type { Embedder } from './embedder';

/** The environment variable holding the embedding endpoint's API key for the CLI and the MCP server. */
export const EMBEDDING_API_KEY_ENV = 'AGENT_MEMORY_EMBEDDING_API_KEY';
/** Texts per request (OpenAI accepts up to 2048 inputs; local servers prefer fewer). */
export const DEFAULT_EMBEDDING_BATCH = 64;
/** Per-attempt timeout of an embeddings request (ms). */
export const DEFAULT_EMBEDDING_TIMEOUT_MS = 30_000;
/** Prefix of the id of vectors from an endpoint: `openai:<model>`. */
export const ENDPOINT_EMBEDDER_PREFIX = 'openai:';

export const EndpointEmbedderConfigSchema = EndpointConfigSchema.extend({
  timeoutMs: z.number().int().positive().default(DEFAULT_EMBEDDING_TIMEOUT_MS),
  batchSize: z.number().int().min(1).max(2048).default(DEFAULT_EMBEDDING_BATCH),
  /** The dimension the memory's vectors have (a reply of another dimension is refused); unset: the first reply's. */
  dimension: z.number().int().positive().optional(),
});
export type EndpointEmbedderConfigInput = z.input<typeof EndpointEmbedderConfigSchema>;

/** The part of an embeddings reply we rely on. */
const EmbeddingReplySchema = z.object({
  data: z.array(z.object({ index: z.number().int().nonnegative().optional(), embedding: z.array(z.number()) }).loose()),
}).loose();

/** The embedder id of vectors from `model` at an endpoint. */
export function endpointEmbedderId(model: string): string {
  return `${ENDPOINT_EMBEDDER_PREFIX}${model.trim()}`;
}

/** Counters for diagnostics and tests. */
export interface EndpointEmbedderStats {
  /** HTTP requests that returned vectors (retries not counted). */
  batches: number;
  /** Texts answered by the cache. */
  cacheHits: number;
  /** Texts embedded by the endpoint. */
  embedded: number;
}

export class EndpointEmbedder implements Embedder {
  readonly id: string;
  readonly config: EndpointConfig & { batchSize: number };
  readonly stats: EndpointEmbedderStats = { batches: 0, cacheHits: 0, embedded: 0 };
  private dim: number | undefined;
  private readonly client: OpenAI;
  private readonly target: CallTarget;
  private readonly cache: EmbeddingCache | undefined;
  private readonly logger: Logger;

  constructor(config: EndpointEmbedderConfigInput & { cache?: EmbeddingCache; logger?: Logger }) {
    const { cache, logger, ...rest } = config;
    const parsed = parseConfig(EndpointEmbedderConfigSchema, rest, 'embedding endpoint');
    this.config = parsed;
    this.dim = parsed.dimension;
    this.id = endpointEmbedderId(parsed.model);
    this.client = createOpenAIClient(parsed);
    this.target = { what: 'embedding model', baseURL: parsed.baseURL, model: parsed.model };
    this.cache = cache;
    this.logger = logger ?? nullLogger;
  }

  /** The model's dimension: known after the first reply (or from the config); 0 before. */
  get dimension(): number {
    return this.dim ?? 0;
  }

  /** Asks the endpoint for one vector (not cached) and returns its dimension: a connection test that sets the dimension. */
  async probe(signal?: AbortSignal): Promise<number> {
    await this.request(['dimension probe'], signal);
    return this.dimension;
  }

  /** L2-normalised vectors of `texts`, in order; cached ones are not sent. */
  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const out: (Float32Array | undefined)[] = this.cache ? this.cache.get(this.id, texts) : texts.map(() => undefined);
    for (const v of out) if (v) this.checkDimension(v.length);
    const missing: number[] = [];
    // One request per distinct missing text.
    const firstOf = new Map<string, number>();
    out.forEach((v, i) => {
      if (v) this.stats.cacheHits++;
      else if (!firstOf.has(texts[i])) {
        firstOf.set(texts[i], i);
        missing.push(i);
      }
    });
    for (let start = 0; start < missing.length; start += this.config.batchSize) {
      const batch = missing.slice(start, start + this.config.batchSize);
      const inputs = batch.map((i) => texts[i]);
      const vectors = await this.request(inputs, signal);
      batch.forEach((i, j) => (out[i] = vectors[j]));
      this.remember(inputs.map((text, j) => [text, vectors[j]] as const));
    }
    return texts.map((text, i) => out[i] ?? out[firstOf.get(text)!]!);
  }

  private remember(entries: (readonly [string, Float32Array])[]): void {
    try {
      this.cache?.put(this.id, entries);
    } catch (error) {
      // A read-only or busy database costs a later request, never the vectors.
      this.logger.warn(`[embedder] could not cache ${entries.length} embedding(s): ${errorMessage(error)}`);
    }
  }

  private async request(inputs: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const { value: reply } = await withRetries(
      this.config,
      this.target,
      async ({ signal: attemptSignal }) => this.client.embeddings.create({ model: this.config.model, input: inputs, encoding_format: 'float' }, { signal: attemptSignal }),
      signal,
      this.logger,
    );
    this.stats.batches++;
    this.stats.embedded += inputs.length;
    return this.vectorsOf(reply, inputs.length);
  }

  private vectorsOf(reply: unknown, count: number): Float32Array[] {
    const where = `embedding model "${this.config.model}" at ${this.config.baseURL}`;
    const parsed = EmbeddingReplySchema.safeParse(reply);
    if (!parsed.success || parsed.data.data.length !== count) {
      const problem = parsed.success ? `${parsed.data.data.length} vectors for ${count} inputs` : parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
      throw new AgentMemoryError('MODEL', `Unexpected reply from ${where} (${problem}). Is this an OpenAI-compatible /embeddings endpoint?`, { kind: 'garbage' });
    }
    const ordered = [...parsed.data.data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
    return ordered.map((item) => {
      this.checkDimension(item.embedding.length);
      const v = Float32Array.from(item.embedding);
      let norm = 0;
      for (const x of v) norm += x * x;
      norm = Math.sqrt(norm);
      if (!Number.isFinite(norm) || norm === 0) {
        throw new AgentMemoryError('MODEL', `The ${where} returned a zero or non-finite vector. Check that the model is an embedding model.`, { kind: 'garbage' });
      }
      for (let i = 0; i < v.length; i++) v[i] /= norm;
      return v;
    });
  }

  private checkDimension(length: number): void {
    if (this.dim === undefined) {
      if (length === 0 || length % 8 !== 0) {
        throw new AgentMemoryError('MODEL', `The embedding model "${this.config.model}" returned ${length}-dimensional vectors; Agent Memory needs a positive multiple of 8. Choose another embedding model.`, { kind: 'dimension', dimension: length });
      }
      this.dim = length;
      return;
    }
    if (length !== this.dim) {
      throw new AgentMemoryError(
        'MODEL',
        `The embedding model "${this.config.model}" returned ${length}-dimensional vectors, but ${this.dim} were expected (the memory's or the model's first reply). If the model changed behind the same name, run "Agent Memory: Re-embed Memory" (CLI: agent-memory re-embed); otherwise check the model name.`,
        { kind: 'dimension', expected: this.dim, got: length },
      );
    }
  }
}
