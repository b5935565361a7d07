/**
 * The endpoint embedder against a real HTTP server speaking the embeddings API
 * (test/support/fake-openai-server.ts), through the real `openai` client:
 * batching, bounded retries with backoff, typed failures, the dimension from
 * the model, and the persistent cache (counted in server requests).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isAgentMemoryError } from '../../../src/core/errors';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { EndpointEmbedder } from '../../../src/core/similarity/endpoint-embedder';
import { embeddingRequests, rejection } from '../../support/embedding';
import { fakeEmbedding, startFakeOpenAI, type FakeOpenAI } from '../../support/fake-openai-server';

const SECRET = 'sk-test-0123456789abcdefghijklmnopqrstuv';



describe('endpoint embedder (real HTTP server, real openai client)', () => {
  let fake: FakeOpenAI;
  let dir: string;
  let store: MemoryStore;

  beforeEach(async () => {
    fake = await startFakeOpenAI();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-embed-'));
    store = MemoryStore.open(path.join(dir, 'memory.sqlite'));
  });
  afterEach(async () => {
    store.close();
    await fake.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('sends texts in batches and returns L2-normalised vectors of the model dimension, in order', async () => {
    const embedder = new EndpointEmbedder({ baseURL: fake.baseURL, model: 'fake-embed', batchSize: 4 });
    assert.equal(embedder.dimension, 0);
    const texts = Array.from({ length: 10 }, (_, i) => `question number ${i}`);
    const vectors = await embedder.embed(texts);
    assert.deepEqual(embeddingRequests(fake).map((r) => (r.body as { input: string[] }).input.length), [4, 4, 2]);
    assert.equal(embedder.dimension, 16);
    vectors.forEach((v, i) => {
      const raw = fakeEmbedding(texts[i]);
      const norm = Math.hypot(...raw);
      assert.equal(v.length, 16);
      assert.ok(Math.abs(v[3] - raw[3] / norm) < 1e-6, `vector ${i} is the server's, normalised`);
    });
    assert.equal(embeddingRequests(fake)[0].body.model, 'fake-embed');
  });

  it('takes the dimension from the model: another model, another dimension', async () => {
    const wide = await startFakeOpenAI({ embeddingDimension: 48 });
    try {
      const embedder = new EndpointEmbedder({ baseURL: wide.baseURL, model: 'wide-embed' });
      const [v] = await embedder.embed(['a question']);
      assert.equal(v.length, 48);
      assert.equal(embedder.dimension, 48);
    } finally {
      await wide.close();
    }
  });

  it('retries 500 and 429 with backoff (Retry-After honoured), then succeeds', async () => {
    fake.enqueue({ status: 500 }, { status: 429, headers: { 'retry-after-ms': '60' } });
    const embedder = new EndpointEmbedder({ baseURL: fake.baseURL, model: 'fake-embed', retryBaseDelayMs: 40, maxRetries: 3 });
    const [v] = await embedder.embed(['retry me']);
    assert.equal(v.length, 16);
    const times = embeddingRequests(fake).map((r) => r.receivedAt);
    assert.equal(times.length, 3);
    assert.ok(times[1] - times[0] >= 28, `first backoff ≥ 0.75 × 40 ms (was ${times[1] - times[0]} ms)`);
    assert.ok(times[2] - times[1] >= 55, `Retry-After of 60 ms honoured (was ${times[2] - times[1]} ms)`);
  });

  it('gives up after maxRetries retries with a typed error that says what to do', async () => {
    fake.setDefault(() => ({ status: 503 }));
    const embedder = new EndpointEmbedder({ baseURL: fake.baseURL, model: 'fake-embed', retryBaseDelayMs: 1, maxRetries: 2 });
    const error = await rejection(embedder.embed(['x']));
    assert.ok(isAgentMemoryError(error, 'MODEL'));
    assert.equal(error.details?.kind, 'server');
    assert.match(error.message, /gave up after 3 attempts/);
    assert.equal(embeddingRequests(fake).length, 3);
  });

  it('401: one request, an auth error naming the fix, and the key in no message', async () => {
    const guarded = await startFakeOpenAI({ apiKey: 'the-right-key' });
    try {
      const embedder = new EndpointEmbedder({ baseURL: guarded.baseURL, model: 'fake-embed', apiKey: SECRET, retryBaseDelayMs: 1 });
      const error = await rejection(embedder.embed(['x']));
      assert.ok(isAgentMemoryError(error, 'MODEL'));
      assert.equal(error.details?.kind, 'auth');
      assert.match(error.message, /Check the API key/);
      assert.ok(!JSON.stringify({ m: error.message, d: error.details, s: error.stack }).includes(SECRET));
      assert.equal(guarded.requests.length, 1);
      assert.equal(guarded.requests[0].headers.authorization, `Bearer ${SECRET}`);
    } finally {
      await guarded.close();
    }
  });

  it('a server that is down or too slow is a typed MODEL error (unreachable, timeout)', async () => {
    const slow = new EndpointEmbedder({ baseURL: fake.baseURL, model: 'fake-embed', timeoutMs: 100, maxRetries: 0 });
    fake.enqueue({ embeddings: [fakeEmbedding('x')], delayMs: 2_000 });
    const timeout = await rejection(slow.embed(['x']));
    assert.ok(isAgentMemoryError(timeout, 'MODEL'));
    assert.equal(timeout.details?.kind, 'timeout');

    const down = await startFakeOpenAI();
    const baseURL = down.baseURL;
    await down.close();
    const unreachable = await rejection(new EndpointEmbedder({ baseURL, model: 'fake-embed', maxRetries: 1, retryBaseDelayMs: 1 }).embed(['x']));
    assert.ok(isAgentMemoryError(unreachable, 'MODEL'));
    assert.equal(unreachable.details?.kind, 'unreachable');
    assert.match(unreachable.message, /Check the base URL/);
  });

  it('a reply of the wrong dimension (or count) is refused, never stored', async () => {
    const embedder = new EndpointEmbedder({ baseURL: fake.baseURL, model: 'fake-embed', dimension: 16, cache: store.embeddingCache });
    fake.enqueue({ embeddings: [fakeEmbedding('x', 24)] });
    const wrong = await rejection(embedder.embed(['x']));
    assert.ok(isAgentMemoryError(wrong, 'MODEL'));
    assert.equal(wrong.details?.kind, 'dimension');
    assert.match(wrong.message, /24-dimensional vectors, but 16 were expected/);
    fake.enqueue({ embeddings: [fakeEmbedding('x'), fakeEmbedding('y')] });
    const count = await rejection(embedder.embed(['x']));
    assert.equal((count as { details?: { kind?: string } }).details?.kind, 'garbage');
    assert.equal(store.embeddingCache.size(embedder.id), 0);
  });

  it('caches by content hash and model: unchanged text never reaches the endpoint twice, across instances', async () => {
    const texts = ['alpha', 'beta', 'gamma', 'alpha'];
    const first = new EndpointEmbedder({ baseURL: fake.baseURL, model: 'fake-embed', cache: store.embeddingCache });
    const a = await first.embed(texts);
    assert.equal(embeddingRequests(fake).length, 1);
    assert.deepEqual(embeddingRequests(fake)[0].body.input, ['alpha', 'beta', 'gamma'], 'a repeated text is sent once');
    assert.deepEqual([...a[3]], [...a[0]]);

    const second = new EndpointEmbedder({ baseURL: fake.baseURL, model: 'fake-embed', cache: store.embeddingCache });
    const b = await second.embed(['gamma', 'alpha', 'delta']);
    assert.equal(embeddingRequests(fake).length, 2);
    assert.deepEqual(embeddingRequests(fake)[1].body.input, ['delta']);
    assert.deepEqual([...b[1]], [...a[0]]);
    assert.equal(second.stats.cacheHits, 2);

    const otherModel = new EndpointEmbedder({ baseURL: fake.baseURL, model: 'other-embed', cache: store.embeddingCache });
    await otherModel.embed(['alpha']);
    assert.equal(embeddingRequests(fake).length, 3, 'the cache is per model');
    const raw = store.connectionForQueries().prepare('SELECT * FROM embedding_cache').all();
    assert.ok(!JSON.stringify(raw).includes('alpha'), 'only hashes of the texts are stored');
  });
});
