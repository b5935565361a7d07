import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createApp } from '../../../src/core/app';
import type { Logger } from '../../../src/core/logger';
import { ModelClient } from '../../../src/core/agent/model';
import { isAgentMemoryError } from '../../../src/core/errors';
import { startFakeOpenAI, type FakeOpenAI } from '../../support/fake-openai-server';
import { AgentScript, DATA_DIR, ehrTask, jsReply, settingsWith } from '../agent/agent-fixture';

// Assembled at run time so no key-shaped literal sits in the repository.
const SECRET_KEY = ['sk', 'proj', 'Hq7Lw2Xc9Vb4Nm1Zs8Kd3Fg6Jt0Pr5Ye2Uo4Ia7'].join('-');
const PASSWORD = 'Pa55-w0rd-Zebra!';
const TASK = ehrTask('769483cfab48dda44872f850'); // "What is the administration method for danazol?"
const CORRECT = `const rows = sql("select distinct prescriptions.route from prescriptions where prescriptions.drug = 'danazol'");\nanswer = rows;`;

function fileLogger(file: string): Logger {
  const write = (level: string) => (m: string | Error, ...a: unknown[]) => fs.appendFileSync(file, `[${level}] ${m instanceof Error ? `${m.message}\n${m.stack}` : m} ${a.map((x) => (x instanceof Error ? x.message : JSON.stringify(x))).join(' ')}\n`);
  return { trace: write('trace'), debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}

describe('no secret reaches a model, a log or the task log', function () {
  this.timeout(30_000);
  let fake: FakeOpenAI;
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-prompts-'))));
  afterEach(async () => {
    await fake?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a secret in a stored question and code never reaches the fake OpenAI server, though the record is a demonstration', async () => {
    fake = await startFakeOpenAI();
    const script = new AgentScript(fake);
    const app = await createApp({ databasePath: path.join(dir, 'memory.sqlite'), settings: settingsWith({ model: { baseUrl: fake.baseURL, name: 'fake-coder' } }), demoDataDir: DATA_DIR, storageDir: dir, logger: fileLogger(path.join(dir, 'app.log')) });
    try {
      const file = path.join(dir, 'leaky.jsonl');
      const line = { id: 'leaky', question: `${TASK.question} (my key is ${SECRET_KEY})`, execution: { code: `const password = "${PASSWORD}";\n${CORRECT}`, language: 'javascript', outcome: 'success', answer: [['po']] }, status: 'active', provenance: 'user', createdTask: 0, createdAt: '2026-01-01T00:00:00.000Z', metadata: {} };
      fs.writeFileSync(file, JSON.stringify(line) + '\n');
      assert.equal(await app.importJsonl(file), 1);
      script.coder.push({ reply: jsReply(CORRECT) });
      const result = await app.runTask(TASK.question);
      assert.ok(result.demonstrations.some((d) => d.recordId === 'leaky'), 'the record holding the secret was retrieved as a demonstration');
      const sent = fake.requests.map((r) => r.rawBody).join('\n');
      assert.ok(sent.includes('[redacted:openai-key]') && sent.includes('[redacted:assignment]'), 'the redacted demonstration was sent');
      assert.ok(!sent.includes(SECRET_KEY) && !sent.includes(PASSWORD), 'no request to the model holds the secret');
    } finally {
      app.dispose();
    }
    const log = fs.readFileSync(path.join(dir, 'app.log'), 'utf8');
    assert.ok(!log.includes(SECRET_KEY) && !log.includes(PASSWORD));
  });

  it('a 401 echoing the API key: the error, the retry log, the task log and the app log hold no key', async () => {
    fake = await startFakeOpenAI();
    const echo = { error: { message: `Incorrect API key provided: ${SECRET_KEY}. You can find your API key at https://platform.openai.com/account/api-keys.`, type: 'invalid_request_error', code: 'invalid_api_key' } };
    // The client on its own: a retried 500 that echoes the key, then the 401.
    const warnings: string[] = [];
    const logger: Logger = { trace: () => undefined, debug: () => undefined, info: () => undefined, warn: (m) => warnings.push(String(m)), error: () => undefined };
    fake.enqueue({ status: 500, body: echo }, { status: 401, body: echo });
    const client = new ModelClient({ baseURL: fake.baseURL, model: 'm', apiKey: SECRET_KEY, maxRetries: 2, retryBaseDelayMs: 1, retryMaxDelayMs: 2 }, logger);
    const error = await client.chat([{ role: 'user', content: 'q' }]).then(() => assert.fail('expected a 401'), (e: unknown) => e);
    assert.ok(isAgentMemoryError(error, 'MODEL'), String(error));
    assert.match(error.message, /Authentication failed \(401\).*\[redacted:openai-key\]/);
    const cause = error.cause as Error;
    for (const text of [error.message, String(error.stack), cause.message, String(cause.stack), ...warnings]) assert.ok(!text.includes(SECRET_KEY), text);
    assert.equal(warnings.length, 1);

    // Through the app: the failed task is logged (tasks table) and the app log written.
    fake.setDefault(() => ({ status: 401, body: echo }));
    const logFile = path.join(dir, 'app.log');
    const app = await createApp({ databasePath: path.join(dir, 'memory.sqlite'), settings: settingsWith({ model: { baseUrl: fake.baseURL, name: 'fake-coder' } }), demoDataDir: DATA_DIR, storageDir: dir, logger: fileLogger(logFile), apiKey: SECRET_KEY });
    try {
      await app.seedDemoMemory(20);
      const result = await app.runTask(TASK.question).catch((e: unknown) => e);
      const tasks = JSON.stringify(app.tasks());
      assert.ok(tasks.includes('redacted:openai-key') || String((result as Error).message ?? '').includes('redacted:openai-key'), `the 401 was recorded: ${tasks.slice(0, 400)}`);
      assert.ok(!tasks.includes(SECRET_KEY), 'task log holds the key');
      assert.ok(!JSON.stringify(result).includes(SECRET_KEY) && !String((result as Error).message ?? '').includes(SECRET_KEY));
    } finally {
      app.dispose();
    }
    const db = fs.readFileSync(path.join(dir, 'memory.sqlite')).toString('latin1') + (fs.existsSync(path.join(dir, 'memory.sqlite-wal')) ? fs.readFileSync(path.join(dir, 'memory.sqlite-wal')).toString('latin1') : '');
    assert.ok(!db.includes(SECRET_KEY), 'database file holds the key');
    assert.ok(!fs.readFileSync(logFile, 'utf8').includes(SECRET_KEY), 'app log holds the key');
  });
});
