/**
 * A real HTTP server on 127.0.0.1 that speaks the parts of the OpenAI REST API
 * the product uses, so tests can drive the real `openai` client end to end
 * with no network beyond loopback.
 *
 * Endpoints (both under `/v1`):
 * - `POST /v1/chat/completions` (non-streaming) → a `chat.completion` object with
 *   `usage` token counts (whitespace-token estimates unless the step gives them).
 * - `POST /v1/embeddings` → a `list` of `embedding` objects. Vectors are
 *   deterministic functions of the input text ({@link fakeEmbedding}); they are
 *   deliberately NOT normalised so a client's normalisation is observable.
 *   `encoding_format: "base64"` is honoured (little-endian float32, as OpenAI does).
 * Anything else → 404 with an OpenAI-style error body.
 *
 * Scripting: every request takes the next step from a FIFO queue
 * (`script` / `enqueue`); when the queue is empty the default handler decides
 * (`setDefault`; built-in default: chat replies `"ok"`, embeddings are
 * {@link fakeEmbedding} vectors). Every request is recorded, in arrival order,
 * in `requests` (also requests answered with an error), so tests can assert on
 * prompts, headers and request counts.
 *
 * @example
 * ```ts
 * const fake = await startFakeOpenAI([{ status: 429, headers: { 'retry-after-ms': '10' } }, { reply: 'Yes' }]);
 * try {
 *   const client = new ModelClient({ baseURL: fake.baseURL, model: 'fake-model' });
 *   const result = await client.chat([{ role: 'user', content: 'hi' }]);
 *   assert.equal(result.text, 'Yes');
 *   assert.equal(fake.requests.length, 2);
 *   assert.equal(fake.requests[1].body.messages[0].content, 'hi');
 * } finally {
 *   await fake.close();
 * }
 * ```
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Token counts the fake reports; estimated from whitespace tokens when absent. */
export interface FakeUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

/** One scripted response. Every variant accepts `delayMs` (wait before answering). */
export type FakeStep =
  /** A chat completion whose assistant message content is `reply` (may be ''). */
  | { reply: string; delayMs?: number; usage?: FakeUsage; finishReason?: string; model?: string }
  /** An error status with an OpenAI-style body (default body: `{ error: { message, type, code } }`). */
  | { status: number; body?: unknown; headers?: Record<string, string>; delayMs?: number }
  /** A raw body sent as-is (default status 200, content type application/json) — e.g. malformed JSON. */
  | { raw: string; status?: number; contentType?: string; delayMs?: number }
  /** An embeddings reply with exactly these vectors (one per input, in order). */
  | { embeddings: number[][]; delayMs?: number }
  /** Destroys the socket without answering (the client sees a connection error). */
  | { hangUp: true; delayMs?: number };

/** A request as the fake received it. `body` is the parsed JSON (undefined if the body was not JSON). */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
  rawBody: string;
  receivedAt: number;
}

/** Decides the reply when the queue is empty. */
export type FakeHandler = (request: RecordedRequest) => FakeStep | Promise<FakeStep>;

export interface FakeOpenAIOptions {
  steps?: FakeStep[];
  /** Default handler (see {@link defaultFakeHandler}). */
  handler?: FakeHandler;
  /** Dimension of the default embedding vectors (default 16). */
  embeddingDimension?: number;
  /** When set, requests must carry `Authorization: Bearer <apiKey>`, else 401. */
  apiKey?: string;
  /** When set, a request naming another `model` gets a 404 `model_not_found`. */
  models?: string[];
}

export interface FakeOpenAI {
  /** e.g. `http://127.0.0.1:43127/v1` — pass as the client's `baseURL`. */
  baseURL: string;
  /** Every request received, in arrival order. */
  requests: RecordedRequest[];
  /** Appends steps to the queue. */
  enqueue(...steps: FakeStep[]): void;
  /** Replaces the handler used when the queue is empty. */
  setDefault(handler: FakeHandler): void;
  /** Steps not consumed yet. */
  pending(): number;
  /** Closes the server and every open connection (pending delayed replies are dropped). */
  close(): Promise<void>;
}

export const FAKE_EMBEDDING_DIMENSION = 16;

/**
 * Deterministic, unnormalised pseudo-embedding of `text`: character trigram
 * counts hashed (FNV-1a) into `dimension` buckets with ±1 signs, plus 1 on
 * component 0 so that no vector is zero. Similar texts get similar vectors.
 */
export function fakeEmbedding(text: string, dimension = FAKE_EMBEDDING_DIMENSION): number[] {
  const v = new Array<number>(dimension).fill(0);
  v[0] = 1;
  const padded = `  ${text.toLowerCase()} `;
  for (let i = 0; i + 3 <= padded.length; i++) {
    let h = 0x811c9dc5;
    for (let j = i; j < i + 3; j++) {
      h ^= padded.charCodeAt(j);
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    v[h % dimension] += h & 0x10000 ? 1 : -1;
  }
  return v;
}

/** Built-in default: chat → reply "ok"; embeddings → {@link fakeEmbedding} of each input. */
export function defaultFakeHandler(dimension = FAKE_EMBEDDING_DIMENSION): FakeHandler {
  return (request) => {
    if (request.path.endsWith('/embeddings')) {
      return { embeddings: embeddingInputs(request.body).map((t) => fakeEmbedding(t, dimension)) };
    }
    return { reply: 'ok' };
  };
}

/** Starts the fake on a random loopback port. Accepts a step list or full options. */
export async function startFakeOpenAI(script?: FakeStep[] | FakeOpenAIOptions): Promise<FakeOpenAI> {
  const options: FakeOpenAIOptions = Array.isArray(script) ? { steps: script } : (script ?? {});
  const queue: FakeStep[] = [...(options.steps ?? [])];
  const requests: RecordedRequest[] = [];
  let handler: FakeHandler = options.handler ?? defaultFakeHandler(options.embeddingDimension);

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const recorded: RecordedRequest = {
        method: req.method ?? 'GET',
        path: (req.url ?? '/').split('?')[0],
        headers: req.headers,
        body: tryParseJson(rawBody),
        rawBody,
        receivedAt: Date.now(),
      };
      requests.push(recorded);
      void respond(recorded, res).catch((error: unknown) => {
        if (!res.headersSent && !res.destroyed) sendJson(res, 500, errorBody(`fake server failure: ${String(error)}`, 'server_error'));
      });
    });
  });

  async function respond(request: RecordedRequest, res: http.ServerResponse): Promise<void> {
    const known = request.method === 'POST' && (request.path === '/v1/chat/completions' || request.path === '/v1/embeddings');
    if (!known) return sendJson(res, 404, errorBody(`Unknown route ${request.method} ${request.path}`, 'invalid_request_error'));
    if (options.apiKey !== undefined && request.headers.authorization !== `Bearer ${options.apiKey}`) {
      return sendJson(res, 401, errorBody('Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key'));
    }
    if (options.models && !options.models.includes(String(request.body?.model))) {
      return sendJson(res, 404, errorBody(`The model \`${request.body?.model}\` does not exist.`, 'invalid_request_error', 'model_not_found'));
    }
    const step = queue.length > 0 ? queue.shift()! : await handler(request);
    if (step.delayMs) {
      const stillOpen = await waitUnlessClosed(res, step.delayMs);
      if (!stillOpen) return;
    }
    if ('hangUp' in step) {
      res.socket?.destroy();
      return;
    }
    if ('raw' in step) {
      res.writeHead(step.status ?? 200, { 'content-type': step.contentType ?? 'application/json' });
      res.end(step.raw);
      return;
    }
    if ('status' in step) {
      res.writeHead(step.status, { 'content-type': 'application/json', ...(step.headers ?? {}) });
      res.end(JSON.stringify(step.body ?? errorBody(`Scripted error ${step.status}`, step.status >= 500 ? 'server_error' : 'invalid_request_error')));
      return;
    }
    if ('reply' in step) {
      if (!request.path.endsWith('/chat/completions')) {
        return sendJson(res, 500, errorBody('fake script error: a {reply} step reached /v1/embeddings', 'server_error'));
      }
      return sendJson(res, 200, chatCompletion(request, step));
    }
    if (!request.path.endsWith('/embeddings')) {
      return sendJson(res, 500, errorBody('fake script error: an {embeddings} step reached /v1/chat/completions', 'server_error'));
    }
    return sendJson(res, 200, embeddingList(request, step.embeddings));
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue: (...steps) => void queue.push(...steps),
    setDefault: (h) => {
      handler = h;
    },
    pending: () => queue.length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function chatCompletion(request: RecordedRequest, step: { reply: string; usage?: FakeUsage; finishReason?: string; model?: string }) {
  const messages: Array<{ content?: unknown }> = Array.isArray(request.body?.messages) ? request.body.messages : [];
  const promptText = messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join(' ');
  return {
    id: `chatcmpl-fake-${Date.now()}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: step.model ?? request.body?.model ?? 'fake-model',
    choices: [{ index: 0, message: { role: 'assistant', content: step.reply }, finish_reason: step.finishReason ?? 'stop', logprobs: null }],
    usage: step.usage
      ? { ...step.usage, total_tokens: step.usage.prompt_tokens + step.usage.completion_tokens }
      : usageOf(promptText, step.reply),
  };
}

function embeddingList(request: RecordedRequest, vectors: number[][]) {
  const base64 = request.body?.encoding_format === 'base64';
  const inputs = embeddingInputs(request.body);
  const tokens = inputs.reduce((n, t) => n + countTokens(t), 0);
  return {
    object: 'list',
    model: request.body?.model ?? 'fake-embedding',
    data: vectors.map((v, index) => ({
      object: 'embedding',
      index,
      embedding: base64 ? Buffer.from(new Float32Array(v).buffer).toString('base64') : v,
    })),
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}

function embeddingInputs(body: unknown): string[] {
  const input = (body as { input?: unknown } | undefined)?.input;
  if (typeof input === 'string') return [input];
  if (Array.isArray(input)) return input.map((x) => (typeof x === 'string' ? x : JSON.stringify(x)));
  return [];
}

function usageOf(prompt: string, reply: string) {
  const prompt_tokens = countTokens(prompt);
  const completion_tokens = countTokens(reply);
  return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
}

function countTokens(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

function errorBody(message: string, type: string, code: string | null = null) {
  return { error: { message, type, param: null, code } };
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function tryParseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Resolves true after `ms`, or false as soon as the client goes away (so aborted requests don't linger). */
function waitUnlessClosed(res: http.ServerResponse, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      res.off('close', onClose);
      resolve(!res.destroyed);
    }, ms);
    const onClose = () => {
      clearTimeout(timer);
      resolve(false);
    };
    res.once('close', onClose);
  });
}
