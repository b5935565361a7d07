/**
 * Switching a memory to an embedding endpoint and between models, against a
 * real HTTP server speaking the embeddings API: the re-embed covers every
 * record, the index follows the model's dimension, and a cancel or a failing
 * endpoint half-way leaves the old vectors and index serving with nothing lost.
 * When the endpoint fails at query time, retrieval still answers (keywords).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MemoryRetriever } from '../../../src/core/agent/retriever';
import { refitAndReembed, storeEmbedder } from '../../../src/core/app/embedding';
import { reembedWithEndpoint, ServingEmbedder, type ReembedProgress } from '../../../src/core/app/endpoint-embedding';
import { AgentMemoryError, isAgentMemoryError } from '../../../src/core/errors';
import { nullLogger } from '../../../src/core/logger';
import { DenseIndex } from '../../../src/core/memory/dense/dense-index';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { EndpointEmbedder } from '../../../src/core/similarity/endpoint-embedder';
import { embeddingRequests, rejection } from '../../support/embedding';
import { startFakeOpenAI, type FakeOpenAI } from '../../support/fake-openai-server';
import { sampleRecord } from '../../support/records';

const N = 100;
const TOPICS = ['admissions', 'prescriptions of aspirin', 'icu stays', 'lab events for glucose', 'diagnoses of sepsis'];

function question(i: number): string {
  return `how many ${TOPICS[i % TOPICS.length]} were recorded for patient ${10_000 + i} in ${2100 + (i % 7)}?`;
}



/** Everything a re-embed may change: embedder, dimension, every record's vector. */
function snapshot(store: MemoryStore) {
  const rows = store.connectionForQueries().prepare('SELECT id, hex(embedding) AS v, embedder_id AS e FROM records ORDER BY id').all();
  return { embedder: store.embedder, vectorDim: store.vectors.dimension, rows };
}

describe('re-embed through an embedding endpoint (real HTTP server, real openai client)', () => {
  let fake: FakeOpenAI;
  let dir: string;
  let store: MemoryStore;

  beforeEach(async () => {
    fake = await startFakeOpenAI();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-reembed-'));
    store = MemoryStore.open(path.join(dir, 'memory.sqlite'));
    store.add(Array.from({ length: N }, (_, i) => sampleRecord({ question: question(i), code: `answer = ${i}` })), { trigger: 'import' });
    refitAndReembed(store, 'user');
  });
  afterEach(async () => {
    store.close();
    await fake.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const endpoint = (model: string, baseURL = fake.baseURL, extra: Partial<ConstructorParameters<typeof EndpointEmbedder>[0]> = {}) =>
    new EndpointEmbedder({ baseURL, model, batchSize: 16, retryBaseDelayMs: 1, maxRetries: 1, cache: store.embeddingCache, ...extra });

  it('re-embeds every record with progress; the index follows the model; a second run hits the cache only', async () => {
    const progress: ReembedProgress[] = [];
    const result = await reembedWithEndpoint(store, endpoint('fake-embed'), { onProgress: (p) => progress.push(p) });
    assert.equal(result.count, N);
    assert.deepEqual(store.embedder, { id: 'openai:fake-embed', dimension: 16 });
    assert.equal(store.vectors.dimension, 16);
    assert.equal(embeddingRequests(fake).length, Math.ceil(N / 16));
    assert.deepEqual(progress[progress.length - 1], { done: N, total: N });
    const rows = snapshot(store).rows as { v: string; e: string }[];
    assert.ok(rows.every((r) => r.e === 'openai:fake-embed' && r.v.length === 16 * 4 * 2));

    // The dense side answers with the new vectors: a record's own question finds it first.
    const serving = new ServingEmbedder(store, { builtin: () => storeEmbedder(store, nullLogger), configured: () => ({ baseURL: fake.baseURL, model: 'fake-embed' }), apiKey: async () => undefined, logger: nullLogger });
    const dense = DenseIndex.open(store);
    const q = await serving.embedQuery(question(42));
    assert.ok(q && q.length === 16);
    const [top] = dense.search(q, 1, 16) ?? [];
    const rid = store.connectionForQueries().prepare('SELECT rid FROM records WHERE question = ?').pluck().get(question(42));
    assert.equal(top?.rid, rid);
    assert.ok(top.similarity > 0.999, 'the query vector equals the record vector');
    dense.dispose();

    const again = await reembedWithEndpoint(store, endpoint('fake-embed'));
    assert.equal(again.batches, 0);
    assert.equal(again.cacheHits, N);
    // The first ServingEmbedder query was answered by the cache too (the record's own text).
    assert.equal(embeddingRequests(fake).length, Math.ceil(N / 16));
  });

  it('a model change re-embeds into the new dimension, and switching back to the built-in embedder works offline', async () => {
    await reembedWithEndpoint(store, endpoint('fake-embed'));
    const wide = await startFakeOpenAI({ embeddingDimension: 32 });
    try {
      const result = await reembedWithEndpoint(store, endpoint('wide-embed', wide.baseURL));
      assert.equal(result.dimension, 32);
      assert.deepEqual(store.embedder, { id: 'openai:wide-embed', dimension: 32 });
      assert.equal(store.vectors.dimension, 32);
      assert.equal(DenseIndex.open(store).dimension, 32);
    } finally {
      await wide.close();
    }
    const { embedder } = refitAndReembed(store, 'user');
    assert.deepEqual(store.embedder, { id: embedder.id, dimension: embedder.dimension });
    assert.equal(store.counts().active + store.counts().pending + store.counts().deleted, N);
  });

  it('a cancel half-way leaves the old vectors and index serving; running again resumes from the cache', async () => {
    const before = snapshot(store);
    const controller = new AbortController();
    const embedder = endpoint('fake-embed', fake.baseURL, { batchSize: 8 });
    // The user cancels while the third batch is in flight.
    let seen = 0;
    fake.setDefault((request) => {
      if (++seen === 3) controller.abort();
      return { embeddings: (request.body as { input: string[] }).input.map((t) => Array.from({ length: 16 }, (_, i) => ((t.length + i) % 5) + 1)), delayMs: 20 };
    });
    const error = await rejection(reembedWithEndpoint(store, embedder, { signal: controller.signal }));
    assert.equal(error.code, 'CANCELLED');
    assert.match(error.message, /keeps its previous vectors/);
    assert.deepEqual(snapshot(store), before, 'nothing swapped');
    // The old index serves: the built-in embedder's query vectors, at its dimension, find the records.
    const retriever = MemoryRetriever.open(store, { file: null });
    const hashing = storeEmbedder(store, nullLogger);
    const [hit] = retriever.retrieve(question(7), hashing.embedSync(question(7)), 1);
    assert.ok(hit.inputSimilarity !== null && hit.inputSimilarity > 0.5, `dense side answers (cosine ${hit.inputSimilarity})`);
    retriever.close();

    const cachedBefore = store.embeddingCache.size(embedder.id);
    assert.ok(cachedBefore > 0 && cachedBefore < N, `some vectors were received before the cancel (${cachedBefore})`);
    const requestsBefore = embeddingRequests(fake).length;
    const resumed = await reembedWithEndpoint(store, endpoint('fake-embed', fake.baseURL, { batchSize: 8 }));
    assert.equal(resumed.count, N);
    assert.equal(resumed.cacheHits, cachedBefore);
    assert.equal(embeddingRequests(fake).length - requestsBefore, Math.ceil((N - cachedBefore) / 8), 'only the missing texts are sent');
  });

  it('an endpoint failing half-way (500s) leaves the old index intact and nothing lost', async () => {
    const before = snapshot(store);
    let served = 0;
    const healthy = fake.requests.length;
    fake.setDefault((request) => (++served > 2 ? { status: 500 } : { embeddings: (request.body as { input: string[] }).input.map(() => Array.from({ length: 16 }, (_, i) => i + 1)) }));
    const error = await rejection(reembedWithEndpoint(store, endpoint('fake-embed')));
    assert.equal(error.code, 'MODEL');
    assert.equal(error.details?.kind, 'server');
    assert.ok(fake.requests.length - healthy >= 3);
    assert.deepEqual(snapshot(store), before);
    assert.equal(store.counts().active, N);
  });

  it('wrong dimension half-way (the model changed behind its name): refused, old index intact', async () => {
    const before = snapshot(store);
    let served = 0;
    fake.setDefault((request) => ({ embeddings: (request.body as { input: string[] }).input.map(() => Array.from({ length: ++served > 20 ? 24 : 16 }, (_, i) => i + 1)) }));
    const error = await rejection(reembedWithEndpoint(store, endpoint('fake-embed')));
    assert.equal(error.details?.kind, 'dimension');
    assert.deepEqual(snapshot(store), before);
  });

  it('when the endpoint fails at query time: one typed error, and retrieval still answers', async () => {
    await reembedWithEndpoint(store, endpoint('fake-embed'));
    const failures: AgentMemoryError[] = [];
    const serving = new ServingEmbedder(store, {
      builtin: () => storeEmbedder(store, nullLogger),
      configured: () => ({ baseURL: fake.baseURL, model: 'fake-embed' }),
      apiKey: async () => 'sk-never-shown-0123456789abcdef',
      logger: nullLogger,
      onFailure: (e) => failures.push(e),
    });
    fake.setDefault(() => ({ status: 401 }));
    const asked = 'which prescriptions of aspirin were recorded in 2103?';
    assert.equal(await serving.embedQuery(asked), undefined);
    assert.equal(await serving.embedQuery('another new question'), undefined);
    assert.equal(failures.length, 1, 'reported once per failure streak');
    assert.ok(isAgentMemoryError(failures[0], 'MODEL'));
    assert.equal(failures[0].details?.kind, 'auth');
    assert.ok(!failures[0].message.includes('sk-never-shown'));
    const retriever = MemoryRetriever.open(store, { file: null });
    const hits = retriever.retrieve(asked, undefined, 4);
    assert.equal(hits.length, 4);
    assert.ok(hits.every((h) => h.question.includes('aspirin')), 'keyword retrieval serves');
    retriever.close();
    // The endpoint answers again: after reset (key or settings changed) the next query gets its vector.
    fake.setDefault((request) => ({ embeddings: (request.body as { input: string[] }).input.map(() => Array.from({ length: 16 }, (_, i) => i + 1)) }));
    serving.reset();
    assert.equal((await serving.embedQuery('a third question'))?.length, 16);
  });
});
