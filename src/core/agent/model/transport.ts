/**
 * The shared transport for chat and embedding calls: builds the `openai`
 * client and runs requests under our own retry loop.
 *
 * Why our own loop rather than the client's `maxRetries`: the client's backoff
 * sleep ignores the AbortSignal (a cancelled task would keep waiting), its
 * timing is fixed (0.5 s … 8 s, so tests of the retry path would be slow), and
 * its timeout covers only the response headers. Here the client runs with
 * `maxRetries: 0`; each attempt gets its own deadline covering headers and
 * body; backoff waits are cancellable; Retry-After / retry-after-ms are
 * honoured (capped); and every failure becomes an AgentMemoryError that says
 * what to do.
 *
 * Retried: 408, 409, 429, 5xx, connection errors, timeouts.
 * Not retried: 401/403 (auth), 404 (model / URL), other 4xx, unparseable replies.
 */
import OpenAI from 'openai';
import { AgentMemoryError, errorMessage } from '../../errors';
import type { Logger } from '../../logger';
import { nullLogger, redactError } from '../../logger';
import { redactText } from '../../security/redact';
import { NO_API_KEY, type EndpointConfig } from './config';

/** Builds an `openai` client with the library's own retries disabled. */
export function createOpenAIClient(config: EndpointConfig): OpenAI {
  return new OpenAI({
    baseURL: config.baseURL,
    apiKey: config.apiKey && config.apiKey.length > 0 ? config.apiKey : NO_API_KEY,
    // Our deadline (below) fires first; this is a backstop for the header phase.
    timeout: config.timeoutMs + 1_000,
    maxRetries: 0,
  });
}

export interface AttemptContext {
  /** Aborts when the caller cancels or this attempt's deadline passes. */
  signal: AbortSignal;
  attempt: number;
}

export interface RetryOutcome<T> {
  value: T;
  attempts: number;
}

/** Describes the call in error messages, e.g. `chat model "gpt-4o" at http://…/v1`. */
export interface CallTarget {
  what: string;
  baseURL: string;
  model: string;
}

/**
 * Runs `call` until it succeeds, fails permanently, or `maxRetries` retries are spent.
 * Errors thrown by `call` that are already AgentMemoryErrors pass through unchanged
 * (use that for validation failures that must not be retried).
 */
export async function withRetries<T>(
  config: EndpointConfig,
  target: CallTarget,
  call: (ctx: AttemptContext) => Promise<T>,
  signal?: AbortSignal,
  logger: Logger = nullLogger,
): Promise<RetryOutcome<T>> {
  for (let attempt = 1; ; attempt++) {
    throwIfCancelled(signal, target);
    const outcome = await runAttempt(config, call, attempt, signal);
    if (outcome.ok) return { value: outcome.value, attempts: attempt };
    const { error, timedOut } = outcome;
    if (signal?.aborted) throw cancelled(target);
    if (error instanceof AgentMemoryError) throw error;
    const failure = classify(error, timedOut, config, target);
    if (!failure.retryable || attempt > config.maxRetries) {
      const gaveUp = failure.retryable ? ` (gave up after ${attempt} attempts)` : '';
      // Servers echo keys in their errors ("Incorrect API key provided: sk-…"): the message and the kept cause are redacted.
      throw new AgentMemoryError('MODEL', redactText(failure.message + gaveUp), { ...failure.details, attempts: attempt }, { cause: error instanceof Error ? redactError(error) : error });
    }
    const delay = failure.retryAfterMs ?? backoffDelay(config, attempt);
    logger.warn(redactText(`${target.what}: ${failure.message} — retry ${attempt}/${config.maxRetries} in ${Math.round(delay)} ms`));
    await sleep(delay, signal, target);
  }
}

type AttemptResult<T> = { ok: true; value: T } | { ok: false; error: unknown; timedOut: boolean };

/**
 * One attempt under its own deadline. The attempt's controller is aborted by the
 * caller's signal or the deadline (a listener removed afterwards, rather than
 * AbortSignal.any, so a long-lived task signal does not accumulate dependants).
 */
async function runAttempt<T>(
  config: EndpointConfig,
  call: (ctx: AttemptContext) => Promise<T>,
  attempt: number,
  signal: AbortSignal | undefined,
): Promise<AttemptResult<T>> {
  const controller = new AbortController();
  const forwardAbort = () => controller.abort();
  signal?.addEventListener('abort', forwardAbort, { once: true });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, config.timeoutMs);
  try {
    return { ok: true, value: await call({ signal: controller.signal, attempt }) };
  } catch (error) {
    return { ok: false, error, timedOut };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', forwardAbort);
  }
}

/** Exponential backoff with ±25% jitter: base·2^(attempt−1), capped. */
export function backoffDelay(config: Pick<EndpointConfig, 'retryBaseDelayMs' | 'retryMaxDelayMs'>, attempt: number): number {
  const raw = Math.min(config.retryMaxDelayMs, config.retryBaseDelayMs * 2 ** (attempt - 1));
  return raw * (0.75 + Math.random() * 0.5);
}

/** Milliseconds from `retry-after-ms` or `Retry-After` (seconds or HTTP date); undefined when absent or invalid. */
export function parseRetryAfter(headers: Headers | undefined, capMs: number): number | undefined {
  if (!headers) return undefined;
  const ms = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  let value: number | undefined = Number.isFinite(ms) ? ms : undefined;
  const retryAfter = headers.get('retry-after');
  if (value === undefined && retryAfter) {
    const seconds = Number(retryAfter);
    value = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(retryAfter) - Date.now();
    if (!Number.isFinite(value)) value = undefined;
  }
  if (value === undefined) return undefined;
  return Math.min(capMs, Math.max(0, value));
}

interface Failure {
  retryable: boolean;
  message: string;
  retryAfterMs?: number;
  details: Record<string, unknown>;
}

function classify(error: unknown, timedOut: boolean, config: EndpointConfig, target: CallTarget): Failure {
  const where = `${target.what} "${target.model}" at ${target.baseURL}`;
  if (timedOut || error instanceof OpenAI.APIConnectionTimeoutError) {
    return {
      retryable: true,
      message: `Timed out after ${config.timeoutMs} ms waiting for ${where}. Check that the server is not overloaded, or raise the timeout setting.`,
      details: { kind: 'timeout', timeoutMs: config.timeoutMs },
    };
  }
  if (error instanceof OpenAI.APIConnectionError) {
    const cause = error.cause ? `: ${errorMessage(error.cause)}${causeCode(error.cause)}` : '';
    return {
      retryable: true,
      message: `Cannot reach ${where}${cause}. Check the base URL and that the server is running.`,
      details: { kind: 'unreachable' },
    };
  }
  if (error instanceof OpenAI.APIError && typeof error.status === 'number') {
    const status = error.status;
    const serverSays = error.message ? ` Server said: ${error.message}` : '';
    const details = { kind: 'http', status };
    if (status === 401 || status === 403) {
      return { retryable: false, message: `Authentication failed (${status}) for ${where}. Check the API key.${serverSays}`, details: { ...details, kind: 'auth' } };
    }
    if (status === 404) {
      return {
        retryable: false,
        message: `Not found (404) at ${where}: the model name is unknown to this endpoint or the base URL is wrong (it usually ends in /v1).${serverSays}`,
        details: { ...details, kind: 'not-found' },
      };
    }
    if (status === 429 || status === 408 || status === 409 || status >= 500) {
      return {
        retryable: true,
        message: status === 429 ? `Rate limited (429) by ${where}.${serverSays}` : `Server error (${status}) from ${where}.${serverSays}`,
        retryAfterMs: parseRetryAfter(error.headers, config.retryAfterCapMs),
        details: { ...details, kind: status === 429 ? 'rate-limit' : 'server' },
      };
    }
    return { retryable: false, message: `Request rejected (${status}) by ${where}.${serverSays}`, details };
  }
  // The client got a 2xx it could not parse (e.g. malformed JSON).
  return {
    retryable: false,
    message: `Unreadable reply from ${where}: ${errorMessage(error)}. Is this an OpenAI-compatible endpoint?`,
    details: { kind: 'garbage' },
  };
}

function causeCode(cause: unknown): string {
  const inner = (cause as { cause?: { code?: unknown } }).cause;
  return inner && typeof inner.code === 'string' ? ` (${inner.code})` : '';
}

function cancelled(target: CallTarget): AgentMemoryError {
  return new AgentMemoryError('CANCELLED', `The ${target.what} call was cancelled.`);
}

function throwIfCancelled(signal: AbortSignal | undefined, target: CallTarget): void {
  if (signal?.aborted) throw cancelled(target);
}

/** Waits `ms`, rejecting with CANCELLED as soon as `signal` aborts. */
function sleep(ms: number, signal: AbortSignal | undefined, target: CallTarget): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(cancelled(target));
    const onAbort = () => {
      clearTimeout(timer);
      reject(cancelled(target));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
