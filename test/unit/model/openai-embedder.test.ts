import assert from 'node:assert/strict';
import { OpenAIEmbedder } from '../../../src/core/similarity/openai-embedder';
import { isAgentMemoryError } from '../../../src/core/errors';
import { fakeEmbedding, startFakeOpenAI, type FakeOpenAI } from '../../support/fake-openai-server';

const FAST = { retryBaseDelayMs: 2, retryMaxDelayMs: 10 };

function norm(v: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i] * v[i];
  return Math.sqrt(s);
}

describe('OpenAIEmbedder (real openai client against a loopback server)', () => {
  let fake: FakeOpenAI;
  afterEach(async () => {
    await fake?.close();
  });

  it('learns the dimension, batches, keeps order and L2-normalises', async () => {
    fake = await startFakeOpenAI({ embeddingDimension: 24 });
    const embedder = await OpenAIEmbedder.connect({ baseURL: fake.baseURL, model: 'embed-small', batchSize: 3 });
    assert.equal(embedder.id, 'openai:embed-small');
    assert.equal(embedder.dimension, 24);
    const texts = ['how many patients', 'max heart rate', 'first admission', 'last lab test', 'drug dose', ''];
    const vectors = await embedder.embed(texts);
    assert.equal(vectors.length, texts.length);
    // probe + ceil(6 / 3) batches
    assert.equal(fake.requests.length, 3);
    assert.deepEqual(fake.requests[1].body.input, texts.slice(0, 3));
    assert.deepEqual(fake.requests[2].body.input, ['last lab test', 'drug dose', ' ']);
    assert.equal(fake.requests[1].body.encoding_format, 'float');
    texts.forEach((text, i) => {
      const v = vectors[i];
      assert.ok(v instanceof Float32Array);
      assert.equal(v.length, 24);
      assert.ok(Math.abs(norm(v) - 1) < 1e-5);
      // Same direction as the raw vector the server computed for this very text.
      const raw = fakeEmbedding(text.length === 0 ? ' ' : text, 24);
      const cos = raw.reduce((s, x, j) => s + x * v[j], 0) / norm(raw);
      assert.ok(cos > 0.9999, `vector ${i} points elsewhere (cos ${cos})`);
    });
  });

  it('orders vectors by the reply index, not by arrival order', async () => {
    fake = await startFakeOpenAI();
    fake.enqueue({
      raw: JSON.stringify({
        object: 'list',
        data: [
          { object: 'embedding', index: 1, embedding: [0, 2] },
          { object: 'embedding', index: 0, embedding: [3, 0] },
        ],
      }),
    });
    const embedder = new OpenAIEmbedder({ baseURL: fake.baseURL, model: 'e' });
    const [a, b] = await embedder.embed(['a', 'b']);
    assert.deepEqual([...a], [1, 0]);
    assert.deepEqual([...b], [0, 1]);
  });

  it('detects a dimension change between replies', async () => {
    fake = await startFakeOpenAI([{ embeddings: [[1, 2, 3]] }, { embeddings: [[1, 2, 3, 4]] }]);
    const embedder = new OpenAIEmbedder({ baseURL: fake.baseURL, model: 'e' });
    await embedder.init();
    assert.equal(embedder.dimension, 3);
    await assert.rejects(embedder.embed(['x']), (e: unknown) => isAgentMemoryError(e, 'EMBEDDER_MISMATCH') && /4-dimensional.*3 were expected.*re-embed/.test(e.message));
  });

  it('detects a mismatch with the configured dimension on the first reply', async () => {
    fake = await startFakeOpenAI({ embeddingDimension: 8 });
    const embedder = new OpenAIEmbedder({ baseURL: fake.baseURL, model: 'e', dimension: 384 });
    assert.equal(embedder.dimension, 384);
    await assert.rejects(embedder.embed(['x']), (e: unknown) => isAgentMemoryError(e, 'EMBEDDER_MISMATCH'));
  });

  it('refuses to report a dimension before it is known', () => {
    const embedder = new OpenAIEmbedder({ baseURL: 'http://127.0.0.1:9/v1', model: 'e' });
    assert.throws(() => embedder.dimension, (e: unknown) => isAgentMemoryError(e, 'INVALID_STATE'));
  });

  it('rejects a wrong vector count, zero vectors and garbage', async () => {
    fake = await startFakeOpenAI([
      { embeddings: [[1, 0]] },
      { embeddings: [[0, 0]] },
      { raw: 'not json at all' },
    ]);
    const embedder = new OpenAIEmbedder({ baseURL: fake.baseURL, model: 'e' });
    await assert.rejects(embedder.embed(['a', 'b']), (e: unknown) => isAgentMemoryError(e, 'MODEL') && /1 vectors for 2 inputs/.test(e.message));
    await assert.rejects(embedder.embed(['a']), (e: unknown) => isAgentMemoryError(e, 'MODEL') && /all-zero/.test(e.message));
    await assert.rejects(embedder.embed(['a']), (e: unknown) => isAgentMemoryError(e, 'MODEL') && e.details?.kind === 'garbage');
  });

  it('retries a 500 like the chat client, and can be cancelled', async () => {
    fake = await startFakeOpenAI([{ status: 500 }]);
    const embedder = new OpenAIEmbedder({ baseURL: fake.baseURL, model: 'e', ...FAST });
    const [v] = await embedder.embed(['hello']);
    assert.equal(v.length, 16);
    assert.equal(fake.requests.length, 2);
    fake.enqueue({ delayMs: 5_000, embeddings: [[1]] });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    await assert.rejects(embedder.embed(['slow'], controller.signal), (e: unknown) => isAgentMemoryError(e, 'CANCELLED'));
  });
});
