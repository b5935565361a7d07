import { z } from 'zod';
import { AgentMemoryError } from '../../errors';

/** Per-attempt request timeout (ms). */
export const DEFAULT_MODEL_TIMEOUT_MS = 60_000;
/** Retries after the first attempt (so at most `maxRetries + 1` requests). */
export const DEFAULT_MODEL_MAX_RETRIES = 3;
/** First backoff delay; doubles per retry, with ±25% jitter. */
export const DEFAULT_RETRY_BASE_DELAY_MS = 500;
/** Upper bound of a computed backoff delay. */
export const DEFAULT_RETRY_MAX_DELAY_MS = 8_000;
/** Upper bound honoured for a server's Retry-After / retry-after-ms header. */
export const DEFAULT_RETRY_AFTER_CAP_MS = 60_000;
/** Placeholder key for local endpoints (Ollama, LM Studio, vLLM) that need none; the `openai` client insists on one. */
export const NO_API_KEY = 'no-key';

/** Connection and retry settings shared by chat and embedding clients. */
export const EndpointConfigSchema = z.object({
  /** e.g. `https://api.openai.com/v1`, `http://localhost:11434/v1` (Ollama). */
  baseURL: z.url({ protocol: /^https?$/, message: 'baseURL must be an http(s) URL such as http://localhost:11434/v1' }),
  model: z.string().trim().min(1, 'model must name the model to call, e.g. gpt-4o-mini or llama3.1'),
  apiKey: z.string().optional(),
  timeoutMs: z.number().int().positive().default(DEFAULT_MODEL_TIMEOUT_MS),
  maxRetries: z.number().int().min(0).max(10).default(DEFAULT_MODEL_MAX_RETRIES),
  retryBaseDelayMs: z.number().min(0).default(DEFAULT_RETRY_BASE_DELAY_MS),
  retryMaxDelayMs: z.number().min(0).default(DEFAULT_RETRY_MAX_DELAY_MS),
  retryAfterCapMs: z.number().min(0).default(DEFAULT_RETRY_AFTER_CAP_MS),
});
export type EndpointConfigInput = z.input<typeof EndpointConfigSchema>;
export type EndpointConfig = z.output<typeof EndpointConfigSchema>;

/** Chat model settings: the endpoint plus sampling options. */
export const ModelConfigSchema = EndpointConfigSchema.extend({
  temperature: z.number().min(0).max(2).optional(),
});
export type ModelConfigInput = z.input<typeof ModelConfigSchema>;
export type ModelConfig = z.output<typeof ModelConfigSchema>;

/** Parses a config with zod, throwing a CONFIG error that names every bad field. */
export function parseConfig<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
  throw new AgentMemoryError('CONFIG', `Invalid ${what} configuration — ${problems}. Fix the agentMemory model settings.`, {
    issues: parsed.error.issues,
  });
}
