import type OpenAI from 'openai';
import { z } from 'zod';
import { AgentMemoryError } from '../../errors';
import type { Logger } from '../../logger';
import { nullLogger } from '../../logger';
import { ModelConfigSchema, parseConfig, type ModelConfig, type ModelConfigInput } from './config';
import { createOpenAIClient, withRetries, type CallTarget } from './transport';
import type { ChatMessage, ChatModel, ChatOptions, ChatResult } from './types';

/** The part of a chat completion we rely on; anything else in the reply is ignored. */
const ChatReplySchema = z.object({
  model: z.string().optional(),
  choices: z
    .array(
      z.object({
        message: z.object({ content: z.string().nullable().optional() }).loose(),
        finish_reason: z.string().nullable().optional(),
      }).loose(),
    )
    .min(1, 'the reply has no choices'),
  usage: z
    .object({ prompt_tokens: z.number().int().nonnegative(), completion_tokens: z.number().int().nonnegative() })
    .loose()
    .nullable()
    .optional(),
}).loose();

const ChatMessagesSchema = z
  .array(z.object({ role: z.enum(['system', 'user', 'assistant']), content: z.string() }))
  .min(1, 'at least one message is required');

/**
 * A chat model behind any OpenAI-compatible endpoint (OpenAI, Ollama, LM Studio,
 * vLLM), through the `openai` package. Non-streaming. Retries 429/5xx/connection
 * errors/timeouts with exponential backoff + jitter (honouring Retry-After),
 * enforces a per-attempt timeout, supports cancellation, and validates replies:
 * every failure is an AgentMemoryError — code `MODEL` (with an actionable message
 * and `details.kind` ∈ timeout | unreachable | auth | not-found | rate-limit |
 * server | http | garbage | empty), `CANCELLED`, or `CONFIG` for a bad config.
 *
 * @example
 * ```ts
 * const model = new ModelClient({ baseURL: 'http://localhost:11434/v1', model: 'llama3.1' });
 * const { text, usage } = await model.chat(
 *   [{ role: 'system', content: 'You write Python.' }, { role: 'user', content: 'Sum 1..10' }],
 *   { signal: controller.signal, maxTokens: 512 },
 * );
 * const code = extractCode(text, 'python');
 * ```
 */
export class ModelClient implements ChatModel {
  readonly config: ModelConfig;
  private readonly client: OpenAI;
  private readonly target: CallTarget;

  constructor(config: ModelConfigInput, private readonly logger: Logger = nullLogger) {
    this.config = parseConfig(ModelConfigSchema, config, 'model');
    this.client = createOpenAIClient(this.config);
    this.target = { what: 'chat model', baseURL: this.config.baseURL, model: this.config.model };
  }

  get model(): string {
    return this.config.model;
  }

  async chat(messages: ChatMessage[], options: ChatOptions = {}): Promise<ChatResult> {
    const checked = ChatMessagesSchema.safeParse(messages);
    if (!checked.success) {
      throw new AgentMemoryError('INVALID_INPUT', `Invalid chat messages: ${checked.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    }
    const temperature = options.temperature ?? this.config.temperature;
    const started = performance.now();
    const { value: reply, attempts } = await withRetries(
      this.config,
      this.target,
      async ({ signal }) =>
        this.client.chat.completions.create(
          {
            model: this.config.model,
            messages: checked.data,
            ...(temperature !== undefined ? { temperature } : {}),
            ...(options.maxTokens !== undefined ? { max_tokens: options.maxTokens } : {}),
          },
          { signal },
        ),
      options.signal,
      this.logger,
    );
    const latencyMs = performance.now() - started;
    return this.toResult(reply, messages, latencyMs, attempts);
  }

  private toResult(reply: unknown, messages: ChatMessage[], latencyMs: number, attempts: number): ChatResult {
    const where = `chat model "${this.config.model}" at ${this.config.baseURL}`;
    const parsed = ChatReplySchema.safeParse(reply);
    if (!parsed.success) {
      const problem = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
      throw new AgentMemoryError('MODEL', `Unexpected reply shape from ${where} (${problem}). Is this an OpenAI-compatible chat completions endpoint?`, {
        kind: 'garbage',
        attempts,
      });
    }
    const choice = parsed.data.choices[0];
    const text = choice.message.content ?? '';
    if (text.trim().length === 0) {
      throw new AgentMemoryError('MODEL', `Empty reply from ${where} (finish reason: ${choice.finish_reason ?? 'none'}). Try again, raise maxTokens, or use another model.`, {
        kind: 'empty',
        attempts,
        finishReason: choice.finish_reason ?? null,
      });
    }
    const usage = parsed.data.usage
      ? { promptTokens: parsed.data.usage.prompt_tokens, completionTokens: parsed.data.usage.completion_tokens }
      : {
          promptTokens: estimateTokens(messages.map((m) => m.content).join('\n')),
          completionTokens: estimateTokens(text),
          estimated: true,
        };
    return { text, usage, latencyMs, attempts, model: parsed.data.model ?? this.config.model, finishReason: choice.finish_reason ?? null };
  }
}

/** Rough token count (≈ 4 characters per token) for endpoints that report no usage. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
