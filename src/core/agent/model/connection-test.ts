/**
 * "Test Connection" for a chat endpoint: one tiny chat request (max 1 token), classified
 * into a cause a user can act on (401, 404, refused, timeout, bad model, …). The API key
 * is never part of a result: any echo of it in a server message is masked.
 */
import OpenAI from 'openai';
import { errorMessage } from '../../errors';
import { createOpenAIClient } from './transport';
import { EndpointConfigSchema } from './config';

export type ConnectionProblem = 'auth' | 'not-found' | 'bad-model' | 'refused' | 'timeout' | 'unreachable' | 'bad-config' | 'server' | 'bad-response';

export interface ConnectionResult {
  ok: boolean;
  problem?: ConnectionProblem;
  /** What went wrong (or `connected to <model> at <url> in N ms`). */
  message: string;
  /** What to do about it. */
  fix?: string;
  /** The model name the endpoint answered with (may differ from the configured one). */
  servedModel?: string;
  latencyMs: number;
}

export interface ConnectionTestInput {
  baseURL: string;
  model: string;
  apiKey?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}

const DEFAULT_TEST_TIMEOUT_MS = 8_000;

/**
 * @example
 * const r = await testConnection({ baseURL: 'http://127.0.0.1:11434/v1', model: 'llama3.1' });
 * if (!r.ok) show(`${r.message} ${r.fix}`);
 */
export async function testConnection(input: ConnectionTestInput): Promise<ConnectionResult> {
  const started = Date.now();
  const elapsed = () => Date.now() - started;
  const parsed = EndpointConfigSchema.safeParse({ baseURL: input.baseURL, model: input.model, apiKey: input.apiKey, timeoutMs: input.timeoutMs ?? DEFAULT_TEST_TIMEOUT_MS, maxRetries: 0 });
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => i.message).join('; ');
    return { ok: false, problem: 'bad-config', message: `The endpoint settings are incomplete: ${issues}.`, fix: 'Run "Configure Model Endpoint…" and enter a base URL and a model name.', latencyMs: 0 };
  }
  const config = parsed.data;
  const client = createOpenAIClient(config);
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), config.timeoutMs);
  const onAbort = () => deadline.abort();
  input.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const reply = await client.chat.completions.create({ model: config.model, messages: [{ role: 'user', content: 'Reply with OK.' }], max_tokens: 1 }, { signal: deadline.signal });
    if (!reply || !Array.isArray(reply.choices)) {
      return { ok: false, problem: 'bad-response', message: `${config.baseURL} answered, but not like an OpenAI-compatible chat endpoint.`, fix: 'Check that the base URL ends with the API prefix, e.g. /v1.', latencyMs: elapsed() };
    }
    const served = typeof reply.model === 'string' && reply.model ? reply.model : config.model;
    return { ok: true, message: `Connected to ${served} at ${config.baseURL} in ${elapsed()} ms.`, servedModel: served, latencyMs: elapsed() };
  } catch (error) {
    const timedOut = deadline.signal.aborted && !input.signal?.aborted;
    return { ...classifyConnectionError(error, { baseURL: config.baseURL, model: config.model, timeoutMs: config.timeoutMs, timedOut }, input.apiKey), latencyMs: elapsed() };
  } finally {
    clearTimeout(timer);
    input.signal?.removeEventListener('abort', onAbort);
  }
}

/** Maps a failure of the test request to a cause and a fix (exported for tests). */
export function classifyConnectionError(
  error: unknown,
  ctx: { baseURL: string; model: string; timeoutMs: number; timedOut: boolean },
  apiKey?: string,
): Omit<ConnectionResult, 'latencyMs'> {
  const raw = redact(errorMessage(error), apiKey);
  if (ctx.timedOut || error instanceof OpenAI.APIConnectionTimeoutError) {
    return { ok: false, problem: 'timeout', message: `${ctx.baseURL} did not answer within ${Math.round(ctx.timeoutMs / 1000)} s.`, fix: 'Start the model server (or wait until it has loaded the model) and test again; check the host and port.' };
  }
  if (error instanceof OpenAI.APIError && typeof error.status === 'number') {
    const status = error.status;
    const code = String((error as { code?: unknown }).code ?? '');
    if (status === 401 || status === 403) {
      return { ok: false, problem: 'auth', message: `${ctx.baseURL} refused the API key (HTTP ${status}).`, fix: 'Run "Configure Model Endpoint…" and enter a valid API key (it is kept in SecretStorage).' };
    }
    if (status === 404 && (code === 'model_not_found' || /model/i.test(raw))) {
      return { ok: false, problem: 'bad-model', message: `The endpoint has no model "${ctx.model}" (HTTP 404).`, fix: 'Set agentMemory.model.name to a model the server offers (e.g. run `ollama list`).' };
    }
    if (status === 404) {
      return { ok: false, problem: 'not-found', message: `${ctx.baseURL} has no chat API at /chat/completions (HTTP 404).`, fix: 'Check the base URL: it usually ends with /v1, e.g. http://localhost:11434/v1.' };
    }
    return { ok: false, problem: 'server', message: `${ctx.baseURL} answered HTTP ${status}: ${raw.slice(0, 200)}`, fix: 'Check the server logs; test again once it is healthy.' };
  }
  const cause = causeCode(error);
  if (cause === 'ECONNREFUSED') {
    return { ok: false, problem: 'refused', message: `Nothing is listening at ${ctx.baseURL} (connection refused).`, fix: 'Start the model server, or correct the host and port in "Configure Model Endpoint…".' };
  }
  if (cause === 'ENOTFOUND' || cause === 'EAI_AGAIN') {
    return { ok: false, problem: 'unreachable', message: `The host of ${ctx.baseURL} was not found (${cause}).`, fix: 'Check the host name in the base URL, or your network.' };
  }
  return { ok: false, problem: 'unreachable', message: `Could not reach ${ctx.baseURL}: ${raw.slice(0, 200)}`, fix: 'Check the base URL and that the server is running.' };
}

/** The errno-style code of a connection failure, looked up along the `cause` chain. */
function causeCode(error: unknown): string | undefined {
  let e: unknown = error;
  for (let i = 0; i < 6 && e; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string') {
      const m = /\b(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ECONNRESET|ETIMEDOUT)\b/.exec(message);
      if (m) return m[1];
    }
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Masks the API key (and any bearer token) if a server message echoes it. */
export function redact(text: string, apiKey?: string): string {
  let out = text.replace(/(Bearer\s+)[^\s"']+/gi, '$1***');
  if (apiKey && apiKey.length >= 4) out = out.split(apiKey).join('***');
  return out.replace(/\b(sk-[A-Za-z0-9_-]{4})[A-Za-z0-9_-]+/g, '$1***');
}
