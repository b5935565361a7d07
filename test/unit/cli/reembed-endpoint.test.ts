/**
 * `agent-memory re-embed --model … --base-url …` in a real child process against
 * a real HTTP server speaking the embeddings API; the key from the environment.
 */
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { refitAndReembed } from '../../../src/core/app/embedding';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { EMBEDDING_API_KEY_ENV } from '../../../src/core/similarity/endpoint-embedder';
import { startFakeOpenAI, type FakeOpenAI } from '../../support/fake-openai-server';
import { sampleRecord } from '../../support/records';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const TSX = path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const KEY = 'sk-cli-0123456789abcdefghijklmnopqrstuvwx';

/** Runs the CLI without blocking this process's event loop (the fake server answers from here). */
function cli(env: Record<string, string>, ...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [TSX, path.join(ROOT, 'src', 'cli', 'main.ts'), ...args], { cwd: ROOT, env: { ...process.env, ...env }, encoding: 'utf8' }, (error, stdout, stderr) => {
      resolve({ status: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('CLI: re-embed through an embedding endpoint (child process, real HTTP server)', function () {
  // Each test starts the CLI (tsx) twice: tens of seconds on a loaded machine.
  this.timeout(120_000);
  let dir: string;
  let db: string;
  let fake: FakeOpenAI;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-cli-embed-'));
    db = path.join(dir, 'memory.sqlite');
    const store = MemoryStore.open(db);
    store.add(Array.from({ length: 100 }, (_, i) => sampleRecord({ question: `question ${i} about table ${i % 9}`, code: `answer = ${i}` })), { trigger: 'import' });
    refitAndReembed(store, 'user');
    store.close();
    fake = await startFakeOpenAI({ apiKey: KEY });
  });
  afterEach(async () => {
    await fake.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('re-embeds 100 records with the model (key from the environment); a second run is answered by the cache', async () => {
    const first = await cli({ [EMBEDDING_API_KEY_ENV]: KEY }, 're-embed', '--db', db, '--model', 'fake-embed', '--base-url', fake.baseURL);
    assert.equal(first.status, 0, first.stderr);
    assert.equal(first.stdout.trim(), '100');
    assert.match(first.stderr, /with openai:fake-embed \(16 dimensions\) in [\d.]+ s: 2 request\(s\), 0 from the cache/);
    assert.equal(fake.requests.length, 2);
    const store = MemoryStore.open(db);
    try {
      assert.deepEqual(store.embedder, { id: 'openai:fake-embed', dimension: 16 });
      assert.equal(store.vectors.dimension, 16);
    } finally {
      store.close();
    }
    const second = await cli({ [EMBEDDING_API_KEY_ENV]: KEY }, 're-embed', '--db', db, '--model', 'fake-embed', '--base-url', fake.baseURL);
    assert.equal(second.status, 0, second.stderr);
    assert.match(second.stderr, /0 request\(s\), 100 from the cache/);
    assert.equal(fake.requests.length, 2);
  });

  it('a wrong key: exit 1, an error that says what to do, no key in the output, the memory unchanged', async () => {
    const wrong = 'sk-wrong-0123456789abcdefghijklmnopqrstu';
    const r = await cli({ [EMBEDDING_API_KEY_ENV]: wrong }, 're-embed', '--db', db, '--model', 'fake-embed', '--base-url', fake.baseURL);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /Authentication failed \(401\).*Check the API key/);
    assert.ok(!r.stderr.includes(wrong) && !r.stdout.includes(wrong));
    const store = MemoryStore.open(db);
    try {
      assert.match(store.embedder?.id ?? '', /^hash/);
    } finally {
      store.close();
    }
  });
});
