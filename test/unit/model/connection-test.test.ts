import * as assert from 'node:assert/strict';
import * as net from 'node:net';
import { redact, testConnection } from '../../../src/core/agent/model/connection-test';
import { startFakeOpenAI } from '../../support/fake-openai-server';

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('testConnection (real openai client, real HTTP server)', () => {
  it('connects and reports the model the endpoint served', async () => {
    const fake = await startFakeOpenAI([{ reply: 'OK', model: 'served-model' }]);
    try {
      const r = await testConnection({ baseURL: fake.baseURL, model: 'asked-model' });
      assert.equal(r.ok, true, r.message);
      assert.equal(r.servedModel, 'served-model');
      assert.equal(fake.requests[0].body.max_tokens, 1);
    } finally {
      await fake.close();
    }
  });

  it('401: names the key as the cause and never echoes it', async () => {
    const fake = await startFakeOpenAI({ apiKey: 'right-key' });
    try {
      const r = await testConnection({ baseURL: fake.baseURL, model: 'm', apiKey: 'sk-wrong-secret-key-123456' });
      assert.equal(r.problem, 'auth');
      assert.match(r.fix ?? '', /API key/);
      assert.ok(!JSON.stringify(r).includes('sk-wrong-secret-key-123456'));
    } finally {
      await fake.close();
    }
  });

  it('404 model_not_found: bad model; 404 route: wrong URL', async () => {
    const fake = await startFakeOpenAI({ models: ['real-model'] });
    try {
      const bad = await testConnection({ baseURL: fake.baseURL, model: 'nope' });
      assert.equal(bad.problem, 'bad-model');
      const wrongUrl = await testConnection({ baseURL: fake.baseURL.replace(/\/v1$/, '/nothing'), model: 'real-model' });
      assert.equal(wrongUrl.problem, 'not-found');
      assert.match(wrongUrl.fix ?? '', /\/v1/);
    } finally {
      await fake.close();
    }
  });

  it('refused port and timeout each get their own cause', async () => {
    const refused = await testConnection({ baseURL: `http://127.0.0.1:${await closedPort()}/v1`, model: 'm' });
    assert.equal(refused.problem, 'refused');
    assert.match(refused.fix ?? '', /Start the model server/);
    const fake = await startFakeOpenAI([{ reply: 'late', delayMs: 3000 }]);
    try {
      const slow = await testConnection({ baseURL: fake.baseURL, model: 'm', timeoutMs: 300 });
      assert.equal(slow.problem, 'timeout');
    } finally {
      await fake.close();
    }
  });

  it('incomplete settings are a config problem, not a network call', async () => {
    const r = await testConnection({ baseURL: '', model: '' });
    assert.equal(r.problem, 'bad-config');
  });

  it('redact masks keys and bearer tokens', () => {
    assert.equal(redact('key sk-abcd1234567 and Bearer xyz', undefined), 'key sk-abcd*** and Bearer ***');
    assert.equal(redact('echo my-secret-key here', 'my-secret-key'), 'echo *** here');
  });
});
