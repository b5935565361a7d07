import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { fakeEmbedding, startFakeOpenAI, type FakeOpenAI } from '../../support/fake-openai-server';

describe('fake OpenAI server (test support)', () => {
  let fake: FakeOpenAI;
  afterEach(async () => {
    await fake?.close();
  });

  it('serves base64 embeddings that the openai client decodes to the same floats', async () => {
    fake = await startFakeOpenAI({ embeddingDimension: 8 });
    const client = new OpenAI({ baseURL: fake.baseURL, apiKey: 'k', maxRetries: 0 });
    const reply = await client.embeddings.create({ model: 'e', input: ['alpha', 'beta'] });
    assert.equal(fake.requests[0].body.encoding_format, 'base64');
    const expected = fakeEmbedding('beta', 8);
    assert.deepEqual(Array.from(reply.data[1].embedding), Array.from(new Float32Array(expected)));
  });

  it('answers unknown routes with 404 and records them', async () => {
    fake = await startFakeOpenAI();
    const res = await fetch(`${fake.baseURL}/models`);
    assert.equal(res.status, 404);
    assert.equal(fake.requests[0].path, '/v1/models');
  });

  it('consumes the queue in order, then falls back to the default handler', async () => {
    fake = await startFakeOpenAI([{ reply: 'first' }]);
    fake.enqueue({ reply: 'second' });
    fake.setDefault((req) => ({ reply: `echo ${req.body.messages[0].content}` }));
    const client = new OpenAI({ baseURL: fake.baseURL, apiKey: 'k', maxRetries: 0 });
    const texts: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: `q${i}` }] });
      texts.push(r.choices[0].message.content ?? '');
    }
    assert.deepEqual(texts, ['first', 'second', 'echo q2']);
    assert.equal(fake.pending(), 0);
  });

  it('reports a step sent to the wrong endpoint as a script error', async () => {
    fake = await startFakeOpenAI([{ reply: 'not a vector' }]);
    const res = await fetch(`${fake.baseURL}/embeddings`, { method: 'POST', body: JSON.stringify({ model: 'e', input: 'x' }) });
    assert.equal(res.status, 500);
    assert.match(await res.text(), /fake script error/);
  });
});
