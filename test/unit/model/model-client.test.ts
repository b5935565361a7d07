import assert from 'node:assert/strict';
import * as net from 'node:net';
import { ModelClient } from '../../../src/core/agent/model';
import { isAgentMemoryError, type AgentMemoryError } from '../../../src/core/errors';
import { startFakeOpenAI, type FakeOpenAI } from '../../support/fake-openai-server';

/** Fast retries so the retry paths run in milliseconds. */
const FAST = { retryBaseDelayMs: 2, retryMaxDelayMs: 10 };

async function rejectsWith(promise: Promise<unknown>, code: string, pattern?: RegExp): Promise<AgentMemoryError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(isAgentMemoryError(error), `expected AgentMemoryError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    if (pattern) assert.match(error.message, pattern);
    return error;
  }
  assert.fail('expected a rejection');
}

describe('ModelClient (real openai client against a loopback server)', () => {
  let fake: FakeOpenAI;
  afterEach(async () => {
    await fake?.close();
  });

  it('sends the messages and returns text, usage and latency', async () => {
    fake = await startFakeOpenAI([{ reply: 'answer = 1', usage: { prompt_tokens: 17, completion_tokens: 3 } }]);
    const client = new ModelClient({ baseURL: fake.baseURL, model: 'coder-1', apiKey: 'sk-test', temperature: 0.2 });
    const result = await client.chat(
      [
        { role: 'system', content: 'You write Python.' },
        { role: 'user', content: 'How many rows?' },
      ],
      { maxTokens: 99 },
    );
    assert.equal(result.text, 'answer = 1');
    assert.deepEqual(result.usage, { promptTokens: 17, completionTokens: 3 });
    assert.equal(result.attempts, 1);
    assert.ok(result.latencyMs >= 0);
    assert.equal(fake.requests.length, 1);
    const sent = fake.requests[0];
    assert.equal(sent.path, '/v1/chat/completions');
    assert.equal(sent.headers.authorization, 'Bearer sk-test');
    assert.equal(sent.body.model, 'coder-1');
    assert.equal(sent.body.max_tokens, 99);
    assert.equal(sent.body.temperature, 0.2);
    assert.deepEqual(sent.body.messages, [
      { role: 'system', content: 'You write Python.' },
      { role: 'user', content: 'How many rows?' },
    ]);
  });

  it('estimates usage when the endpoint reports none', async () => {
    fake = await startFakeOpenAI([
      { raw: JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: 'twelve chars' }, finish_reason: 'stop' }] }) },
    ]);
    const client = new ModelClient({ baseURL: fake.baseURL, model: 'm' });
    const result = await client.chat([{ role: 'user', content: 'abcdefgh' }]);
    assert.equal(result.usage.estimated, true);
    assert.equal(result.usage.completionTokens, 3);
    assert.equal(result.usage.promptTokens, 2);
  });

  it('retries a 429 and then succeeds (2 requests)', async () => {
    fake = await startFakeOpenAI([{ status: 429 }, { reply: 'fine' }]);
    const client = new ModelClient({ baseURL: fake.baseURL, model: 'm', ...FAST });
    const result = await client.chat([{ role: 'user', content: 'q' }]);
    assert.equal(result.text, 'fine');
    assert.equal(result.attempts, 2);
    assert.equal(fake.requests.length, 2);
  });

  it('honours retry-after-ms on a 429', async () => {
    fake = await startFakeOpenAI([{ status: 429, headers: { 'retry-after-ms': '300' } }, { reply: 'later' }]);
    const client = new ModelClient({ baseURL: fake.baseURL, model: 'm', ...FAST });
    await client.chat([{ role: 'user', content: 'q' }]);
    const gap = fake.requests[1].receivedAt - fake.requests[0].receivedAt;
    assert.ok(gap >= 280, `second request came after ${gap} ms, expected ≥ 300 ms`);
  });

  it('gives up on a persistent 500 after maxRetries + 1 requests', async () => {
    fake = await startFakeOpenAI();
    fake.setDefault(() => ({ status: 500 }));
    const client = new ModelClient({ baseURL: fake.baseURL, model: 'm', maxRetries: 2, ...FAST });
    const error = await rejectsWith(client.chat([{ role: 'user', content: 'q' }]), 'MODEL', /Server error \(500\).*gave up after 3 attempts/);
    assert.equal(error.details?.kind, 'server');
    assert.equal(fake.requests.length, 3);
  });

  it('does not retry a 400', async () => {
    fake = await startFakeOpenAI([{ status: 400, body: { error: { message: 'context length exceeded' } } }, { reply: 'never' }]);
    const client = new ModelClient({ baseURL: fake.baseURL, model: 'm', ...FAST });
    await rejectsWith(client.chat([{ role: 'user', content: 'q' }]), 'MODEL', /rejected \(400\).*context length exceeded/);
    assert.equal(fake.requests.length, 1);
  });

  it('reports an auth failure (401) without retrying', async () => {
    fake = await startFakeOpenAI({ apiKey: 'right-key' });
    const client = new ModelClient({ baseURL: fake.baseURL, model: 'm', apiKey: 'wrong-key', ...FAST });
    const error = await rejectsWith(client.chat([{ role: 'user', content: 'q' }]), 'MODEL', /Authentication failed \(401\).*API key/);
    assert.equal(error.details?.kind, 'auth');
    assert.equal(fake.requests.length, 1);
  });

  it('reports an unknown model (404) without retrying', async () => {
    fake = await startFakeOpenAI({ models: ['llama3.1'] });
    const client = new ModelClient({ baseURL: fake.baseURL, model: 'gpt-nope', ...FAST });
    const error = await rejectsWith(client.chat([{ role: 'user', content: 'q' }]), 'MODEL', /404.*model name is unknown.*gpt-nope/);
    assert.equal(error.details?.kind, 'not-found');
    assert.equal(fake.requests.length, 1);
  });

  it('times out a slow reply and retries it', async () => {
    fake = await startFakeOpenAI([{ delayMs: 2_000, reply: 'too late' }, { reply: 'in time' }]);
    const client = new ModelClient({ baseURL: fake.baseURL, model: 'm', timeoutMs: 150, ...FAST });
    const result = await client.chat([{ role: 'user', content: 'q' }]);
    assert.equal(result.text, 'in time');
    assert.equal(fake.requests.length, 2);
  });

  it('fails with a timeout error when every attempt is too slow', async () => {
    fake = await startFakeOpenAI();
    fake.setDefault(() => ({ delayMs: 2_000, reply: 'too late' }));
    const client = new ModelClient({ baseURL: fake.baseURL, model: 'm', timeoutMs: 150, maxRetries: 1, ...FAST });
    const error = await rejectsWith(client.chat([{ role: 'user', content: 'q' }]), 'MODEL', /Timed out after 150 ms/);
    assert.equal(error.details?.kind, 'timeout');
    assert.equal(fake.requests.length, 2);
  });

  it('aborts an in-flight request with CANCELLED', async () => {
    fake = await startFakeOpenAI([{ delayMs: 5_000, reply: 'never seen' }]);
    const client = new ModelClient({ baseURL: fake.baseURL, model: 'm', ...FAST });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    await rejectsWith(client.chat([{ role: 'user', content: 'q' }], { signal: controller.signal }), 'CANCELLED');
    assert.ok(Date.now() - started < 3_000, 'cancellation must not wait for the reply');
    assert.equal(fake.requests.length, 1);
  });

  it('aborts during a backoff wait with CANCELLED and sends no further request', async () => {
    fake = await startFakeOpenAI([{ status: 503, headers: { 'retry-after': '5' } }, { reply: 'never' }]);
    const client = new ModelClient({ baseURL: fake.baseURL, model: 'm' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 150);
    await rejectsWith(client.chat([{ role: 'user', content: 'q' }], { signal: controller.signal }), 'CANCELLED');
    assert.equal(fake.requests.length, 1);
  });

  it('rejects an already-aborted signal before sending anything', async () => {
    fake = await startFakeOpenAI();
    const client = new ModelClient({ baseURL: fake.baseURL, model: 'm' });
    await rejectsWith(client.chat([{ role: 'user', content: 'q' }], { signal: AbortSignal.abort() }), 'CANCELLED');
    assert.equal(fake.requests.length, 0);
  });

  it('reports an unreachable endpoint after retrying', async () => {
    // A port that was free a moment ago: nothing listens there.
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    fake = await startFakeOpenAI(); // for afterEach symmetry
    const client = new ModelClient({ baseURL: `http://127.0.0.1:${port}/v1`, model: 'm', maxRetries: 1, ...FAST });
    const error = await rejectsWith(client.chat([{ role: 'user', content: 'q' }]), 'MODEL', /Cannot reach chat model "m" at http:\/\/127\.0\.0\.1:\d+\/v1.*ECONNREFUSED.*server is running/);
    assert.equal(error.details?.kind, 'unreachable');
    assert.equal(error.details?.attempts, 2);
  });

  it('retries a dropped connection', async () => {
    fake = await startFakeOpenAI([{ hangUp: true }, { reply: 'back' }]);
    const client = new ModelClient({ baseURL: fake.baseURL, model: 'm', ...FAST });
    const result = await client.chat([{ role: 'user', content: 'q' }]);
    assert.equal(result.text, 'back');
    assert.equal(fake.requests.length, 2);
  });

  it('reports malformed JSON as an unreadable reply, without retrying', async () => {
    fake = await startFakeOpenAI([{ raw: '{"choices": [ oops' }, { reply: 'never' }]);
    const client = new ModelClient({ baseURL: fake.baseURL, model: 'm', ...FAST });
    const error = await rejectsWith(client.chat([{ role: 'user', content: 'q' }]), 'MODEL', /Unreadable reply/);
    assert.equal(error.details?.kind, 'garbage');
    assert.equal(fake.requests.length, 1);
  });

  it('reports a reply with no choices as garbage', async () => {
    fake = await startFakeOpenAI([{ raw: JSON.stringify({ id: 'x', object: 'chat.completion', choices: [] }) }]);
    const client = new ModelClient({ baseURL: fake.baseURL, model: 'm' });
    const error = await rejectsWith(client.chat([{ role: 'user', content: 'q' }]), 'MODEL', /Unexpected reply shape.*no choices/);
    assert.equal(error.details?.kind, 'garbage');
  });

  it('reports an empty reply', async () => {
    fake = await startFakeOpenAI([{ reply: '   ', finishReason: 'length' }]);
    const client = new ModelClient({ baseURL: fake.baseURL, model: 'm' });
    const error = await rejectsWith(client.chat([{ role: 'user', content: 'q' }]), 'MODEL', /Empty reply.*length/);
    assert.equal(error.details?.kind, 'empty');
  });

  it('validates its configuration', () => {
    assert.throws(() => new ModelClient({ baseURL: 'localhost:11434', model: 'm' }), (e: unknown) => isAgentMemoryError(e, 'CONFIG') && /baseURL/.test(e.message));
    assert.throws(() => new ModelClient({ baseURL: 'http://x/v1', model: ' ' }), (e: unknown) => isAgentMemoryError(e, 'CONFIG') && /model/.test(e.message));
    const client = new ModelClient({ baseURL: 'http://x/v1', model: 'm' });
    assert.equal(client.config.timeoutMs, 60_000);
    assert.equal(client.config.maxRetries, 3);
  });
});
