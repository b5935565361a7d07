import type OpenAI from 'openai';
import { z } from 'zod';
import { AgentMemoryError } from '../errors';
import type { Logger } from '../logger';
import { nullLogger } from '../logger';
import { EndpointConfigSchema, parseConfig } from '../agent/model/config';
import { createOpenAIClient, withRetries, type CallTarget } from '../agent/model/transport';
import type { Embedder } from './embedder';

/** Inputs per embeddings request. */
export const DEFAULT_EMBEDDING_BATCH_SIZE = 64;

export const OpenAIEmbedderConfigSchema = EndpointConfigSchema.extend({
  /** Expected vector dimension; when absent it is learnt from the first reply (see `init`). */
  dimension: z.number().int().positive().optional(),
  batchSize: z.number().int().positive().max(2048).default(DEFAULT_EMBEDDING_BATCH_SIZE),
});
export type OpenAIEmbedderConfigInput = z.input<typeof OpenAIEmbedderConfigSchema>;
export type OpenAIEmbedderConfig = z.output<typeof OpenAIEmbedderConfigSchema>;

const EmbeddingReplySchema = z.object({
  data: z.array(
    z.object({
      index: z.number().int().nonnegative(),
      embedding: z.array(z.number()),
    }).loose(),
  ),
}).loose();

/**
 * Embeddings from any OpenAI-compatible `/v1/embeddings` endpoint through the
 * `openai` package (same retry/timeout/cancellation rules as the chat client).
 * Requests `encoding_format: "float"` (local servers often lack base64), sends
 * `batchSize` texts per request, checks every vector's dimension against the
 * configured or first-seen one (mismatch → AgentMemoryError('EMBEDDER_MISMATCH')),
 * and L2-normalises. Id: `openai:<model>`.
 *
 * @example
 * ```ts
 * const embedder = await OpenAIEmbedder.connect({ baseURL: 'http://localhost:11434/v1', model: 'nomic-embed-text' });
 * const [v] = await embedder.embed(['how many patients ...']); // v.length === embedder.dimension
 * ```
 */
export class OpenAIEmbedder implements Embedder {
  readonly id: string;
  readonly config: OpenAIEmbedderConfig;
  private readonly client: OpenAI;
  private readonly target: CallTarget;
  private knownDimension: number | undefined;

  constructor(config: OpenAIEmbedderConfigInput, private readonly logger: Logger = nullLogger) {
    this.config = parseConfig(OpenAIEmbedderConfigSchema, config, 'embedding');
    this.client = createOpenAIClient(this.config);
    this.id = `openai:${this.config.model}`;
    this.target = { what: 'embedding model', baseURL: this.config.baseURL, model: this.config.model };
    this.knownDimension = this.config.dimension;
  }

  /** Creates the embedder and learns its dimension with one probe request. */
  static async connect(config: OpenAIEmbedderConfigInput, logger?: Logger, signal?: AbortSignal): Promise<OpenAIEmbedder> {
    const embedder = new OpenAIEmbedder(config, logger);
    await embedder.init(signal);
    return embedder;
  }

  /** The vector dimension; known after `init()`/the first `embed()` unless configured. */
  get dimension(): number {
    if (this.knownDimension === undefined) {
      throw new AgentMemoryError('INVALID_STATE', `The dimension of ${this.id} is not known yet: call init() (or OpenAIEmbedder.connect) first, or configure it.`);
    }
    return this.knownDimension;
  }

  /** Probes the endpoint once to learn (or verify) the dimension. */
  async init(signal?: AbortSignal): Promise<void> {
    await this.embed(['dimension probe'], signal);
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += this.config.batchSize) {
      const batch = texts.slice(start, start + this.config.batchSize);
      out.push(...(await this.embedBatch(batch, signal)));
    }
    return out;
  }

  private async embedBatch(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    // OpenAI rejects empty strings; a single space embeds "nothing" without a 400.
    const input = texts.map((t) => (t.length === 0 ? ' ' : t));
    const { value: reply } = await withRetries(
      this.config,
      this.target,
      ({ signal: attemptSignal }) =>
        this.client.embeddings.create({ model: this.config.model, input, encoding_format: 'float' }, { signal: attemptSignal }),
      signal,
      this.logger,
    );
    const where = `embedding model "${this.config.model}" at ${this.config.baseURL}`;
    const parsed = EmbeddingReplySchema.safeParse(reply);
    if (!parsed.success || parsed.data.data.length !== texts.length) {
      const why = parsed.success ? `${parsed.data.data.length} vectors for ${texts.length} inputs` : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
      throw new AgentMemoryError('MODEL', `Unexpected embeddings reply from ${where} (${why}). Is this an OpenAI-compatible embeddings endpoint?`, { kind: 'garbage' });
    }
    const ordered = [...parsed.data.data].sort((a, b) => a.index - b.index);
    return ordered.map((item) => this.normalise(item.embedding, where));
  }

  private normalise(values: number[], where: string): Float32Array {
    if (this.knownDimension === undefined) this.knownDimension = values.length;
    if (values.length !== this.knownDimension) {
      throw new AgentMemoryError(
        'EMBEDDER_MISMATCH',
        `${where} returned ${values.length}-dimensional vectors but ${this.knownDimension} were expected. The model behind the endpoint changed or the configured dimension is wrong: fix the setting, or re-embed the memory with the new model.`,
        { expected: this.knownDimension, actual: values.length, embedderId: this.id },
      );
    }
    let norm = 0;
    for (const x of values) {
      if (!Number.isFinite(x)) throw new AgentMemoryError('MODEL', `${where} returned a vector with a non-finite component.`, { kind: 'garbage' });
      norm += x * x;
    }
    if (norm === 0) throw new AgentMemoryError('MODEL', `${where} returned an all-zero vector, which cannot be normalised.`, { kind: 'garbage' });
    const scale = 1 / Math.sqrt(norm);
    const vector = new Float32Array(values.length);
    for (let i = 0; i < values.length; i++) vector[i] = values[i] * scale;
    return vector;
  }
}
