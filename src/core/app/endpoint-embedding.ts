/**
 * The memory's vectors from an OpenAI-compatible embedding endpoint: the
 * re-embed that switches a memory to a model (progress, cancel, never half
 * done), and the embedder that serves queries with whatever built the vectors.
 */
import { AgentMemoryError, errorMessage, isAgentMemoryError } from '../errors';
import type { Logger } from '../logger';
import type { MemoryStore } from '../memory/sqlite/store';
import type { Trigger } from '../memory/types';
import type { QueryEmbedder, SyncQuestionEmbedder } from '../similarity/embedder';
import { ENDPOINT_EMBEDDER_PREFIX, EndpointEmbedder, endpointEmbedderId } from '../similarity/endpoint-embedder';

/** Store metadata: the base URL of the endpoint the vectors come from (never the key). */
export const ENDPOINT_META = 'embedder_endpoint';
/** Texts embedded between two progress reports / cancellation checks (a few batches). */
const PROGRESS_STEP = 256;
/** Records added by others while a re-embed runs are embedded too; this many rounds at most. */
const MAX_ROUNDS = 5;
/** After a failed query the endpoint is left alone this long (keywords answer at once meanwhile). */
export const ENDPOINT_PAUSE_MS = 30_000;
/** A question waits for the endpoint at most this long per attempt, and is retried once. */
const QUERY_TIMEOUT_MS = 10_000;

/** Where the vectors come from: a model at a base URL (the key is passed apart and never stored). */
export interface EmbeddingEndpoint {
  baseURL: string;
  model: string;
  apiKey?: string;
}

export interface ReembedProgress {
  /** Distinct texts with a vector of the new model (cache included). */
  done: number;
  total: number;
}

export interface EndpointReembedOptions {
  trigger?: Trigger;
  signal?: AbortSignal;
  onProgress?(progress: ReembedProgress): void;
  logger?: Logger;
}

export interface EndpointReembedResult {
  embedderId: string;
  dimension: number;
  count: number;
  /** Requests that returned vectors, and texts the cache answered. */
  batches: number;
  cacheHits: number;
}

/**
 * Re-embeds every record with `embedder`. The new vectors are built apart,
 * into the persistent embedding cache (the shadow copy: durable, so a re-embed
 * resumed after a cancel or a failure sends only what is missing), while the
 * old vectors and index keep serving; once every record's question has its new
 * vector, one transaction swaps them in (vectors, sqlite-vec table of the new
 * dimension, embedder id, endpoint). A cancel (CANCELLED) or an endpoint
 * failure (MODEL) leaves the memory exactly as it was.
 */
export async function reembedWithEndpoint(store: MemoryStore, embedder: EndpointEmbedder, options: EndpointReembedOptions = {}): Promise<EndpointReembedResult> {
  const before = { ...embedder.stats };
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const texts = [...new Set(store.queries.embeddingSources().map((r) => r.question))];
    options.onProgress?.({ done: 0, total: texts.length });
    for (let start = 0; start < texts.length; start += PROGRESS_STEP) {
      if (options.signal?.aborted) throw cancelled();
      try {
        await embedder.embed(texts.slice(start, start + PROGRESS_STEP), options.signal);
      } catch (error) {
        throw isAgentMemoryError(error, 'CANCELLED') ? cancelled() : error;
      }
      options.onProgress?.({ done: Math.min(texts.length, start + PROGRESS_STEP), total: texts.length });
    }
    if (options.signal?.aborted) throw cancelled();
    // No await from here to the commit: the records read are the records swapped.
    const rows = store.queries.embeddingSources();
    const cached = store.embeddingCache.get(embedder.id, rows.map((r) => r.question));
    if (cached.some((v) => v === undefined)) continue;
    const vectors = new Map(rows.map((r, i) => [r.id, cached[i]!]));
    const endpoint = embedder.config.baseURL;
    store.atomically(() => {
      store.replaceEmbeddings(vectors, embedder.id, { trigger: options.trigger ?? 'user', reason: `re-embedded ${rows.length} records with ${embedder.id} at ${endpoint}` });
      store.setMeta(ENDPOINT_META, endpoint);
    });
    return {
      embedderId: embedder.id,
      dimension: embedder.dimension,
      count: rows.length,
      batches: embedder.stats.batches - before.batches,
      cacheHits: embedder.stats.cacheHits - before.cacheHits,
    };
  }
  throw new AgentMemoryError('INVALID_STATE', `Records kept changing during ${MAX_ROUNDS} re-embedding rounds; nothing was swapped. Run the re-embed again when the memory is quieter.`);
}

function cancelled(): AgentMemoryError {
  return new AgentMemoryError('CANCELLED', 'The re-embed was cancelled; the memory keeps its previous vectors. Running it again resumes from the vectors already received.');
}

/** Is `embedderId` the id of vectors from an endpoint? */
export function isEndpointEmbedderId(embedderId: string | undefined): boolean {
  return embedderId?.startsWith(ENDPOINT_EMBEDDER_PREFIX) ?? false;
}

export interface ServingEmbedderOptions {
  /** The built-in embedder of the store (fitted statistics). */
  builtin(): SyncQuestionEmbedder;
  /** The endpoint configured now (settings), if any; the key is read when needed. */
  configured(): { baseURL: string; model: string } | undefined;
  apiKey(): Promise<string | undefined>;
  logger: Logger;
  /** Told once per failure streak, with the typed error (the editor shows it). */
  onFailure?(error: AgentMemoryError): void;
}

/**
 * Serves query vectors from the embedder the memory's vectors come from: the
 * built-in one, or the endpoint that built them (its base URL from the
 * settings when they name the same model, else from the store). When the
 * endpoint fails, the question gets no vector: retrieval runs on keywords and
 * the failure is reported once (until a query succeeds again).
 */
export class ServingEmbedder implements QueryEmbedder {
  private endpoint: EndpointEmbedder | undefined;
  private failing = false;
  private pausedUntil = 0;

  constructor(private readonly store: MemoryStore, private readonly options: ServingEmbedderOptions) {}

  get id(): string {
    return this.store.embedder?.id ?? this.options.builtin().id;
  }

  async embedQuery(text: string, signal?: AbortSignal): Promise<Float32Array | undefined> {
    const stored = this.store.embedder;
    if (!stored || !isEndpointEmbedderId(stored.id)) return this.options.builtin().embedSync(text);
    if (this.failing && Date.now() < this.pausedUntil) return undefined;
    try {
      const endpoint = await this.endpointFor(stored);
      const [vector] = await endpoint.embed([text], signal);
      this.failing = false;
      return vector;
    } catch (error) {
      if (isAgentMemoryError(error, 'CANCELLED')) throw error;
      const typed = isAgentMemoryError(error) ? error : new AgentMemoryError('MODEL', `The embedding endpoint failed: ${errorMessage(error)}`);
      this.pausedUntil = Date.now() + ENDPOINT_PAUSE_MS;
      if (!this.failing) {
        this.failing = true;
        this.options.logger.warn(`[embedder] ${typed.message} Retrieval uses keywords until the endpoint answers again.`);
        this.options.onFailure?.(typed);
      }
      return undefined;
    }
  }

  /** Forgets the endpoint client and any failure pause (settings or key changed). */
  reset(): void {
    this.endpoint = undefined;
    this.failing = false;
    this.pausedUntil = 0;
  }

  private async endpointFor(stored: { id: string; dimension: number }): Promise<EndpointEmbedder> {
    if (this.endpoint?.id === stored.id && this.endpoint.dimension === stored.dimension) return this.endpoint;
    const endpoint = await storeEndpoint(this.store, this.options, { timeoutMs: QUERY_TIMEOUT_MS, maxRetries: 1 });
    if (!endpoint) throw new AgentMemoryError('INVALID_STATE', 'The memory is no longer embedded by an endpoint; ask again.');
    this.endpoint = endpoint;
    return endpoint;
  }
}

/**
 * The endpoint embedder of the model the memory's vectors come from (undefined
 * for the built-in embedder): its base URL from the settings when they name the
 * same model, else the one the store recorded; the key from `apiKey`.
 */
export async function storeEndpoint(
  store: MemoryStore,
  options: Pick<ServingEmbedderOptions, 'configured' | 'apiKey' | 'logger'>,
  overrides: { timeoutMs?: number; maxRetries?: number } = {},
): Promise<EndpointEmbedder | undefined> {
  const stored = store.embedder;
  if (!stored || !isEndpointEmbedderId(stored.id)) return undefined;
  const configured = options.configured();
  const baseURL = configured && endpointEmbedderId(configured.model) === stored.id ? configured.baseURL : store.getMeta(ENDPOINT_META);
  if (!baseURL) {
    throw new AgentMemoryError('CONFIG', `The memory was embedded with ${stored.id} but no endpoint for it is configured. Set agentMemory.embedding.baseUrl and agentMemory.embedding.model, or re-embed with the built-in embedder.`);
  }
  return new EndpointEmbedder({
    baseURL,
    model: stored.id.slice(ENDPOINT_EMBEDDER_PREFIX.length),
    apiKey: await options.apiKey(),
    dimension: stored.dimension,
    ...overrides,
    cache: store.embeddingCache,
    logger: options.logger,
  });
}
