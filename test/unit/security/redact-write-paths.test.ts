import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { tagged, type Logger } from '../../../src/core/logger';
import { exportJsonl, importJsonl } from '../../../src/core/memory/io/jsonl';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { TaskLog } from '../../../src/core/memory/sqlite/task-log';
import { InMemoryRoleMemoryStore, JsonFileRoleMemoryStore } from '../../../src/core/agent/role-memory-store';
import { emptyRoleMemory } from '../../../src/core/agent/role-memory';
import { RedactionTally } from '../../../src/core/security/redact';
import { sampleRecord } from '../../support/records';

// Built at run time so this file itself holds no key-shaped literal.
const OPENAI_KEY = ['sk', 'proj', 'Zq8xT2vLm4Np7Rk1Wd9Yb3Hc6Jf0Gs5Ua2Ee8Io4'].join('-');
const GITHUB_TOKEN = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
const PASSWORD = 'Sup3r-Secr3t!';

/** Every byte of the database file and its WAL, as one latin1 string. */
function fileBytes(file: string): string {
  return [file, `${file}-wal`].filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f).toString('latin1')).join('');
}

/** A logger writing every line to a file (what the VS Code channel does). */
function fileLogger(file: string): Logger {
  const write = (level: string) => (m: string | Error, ...a: unknown[]) => fs.appendFileSync(file, `[${level}] ${m instanceof Error ? `${m.message}\n${m.stack}` : m} ${a.map((x) => (x instanceof Error ? x.message : JSON.stringify(x))).join(' ')}\n`);
  return { trace: write('trace'), debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}

describe('redaction on every write path', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-redact-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('store.add redacts question, code, answer, output and metadata; the row, the file, the audit and the export hold no secret', () => {
    const file = path.join(dir, 'memory.sqlite');
    const store = MemoryStore.open(file);
    const tally = new RedactionTally();
    const [rec] = store.add(
      [
        {
          ...sampleRecord({ id: 'r1', code: `client = OpenAI(api_key="${OPENAI_KEY}")\npassword = "${PASSWORD}"\nanswer = 1` }),
          question: `why does my key ${OPENAI_KEY} fail?`,
          execution: { code: `client = OpenAI(api_key="${OPENAI_KEY}")\npassword = "${PASSWORD}"`, language: 'python', outcome: 'error', answer: { token: GITHUB_TOKEN }, outputExcerpt: `AuthenticationError: Incorrect API key provided: ${OPENAI_KEY}` },
          metadata: { note: `pushed with ${GITHUB_TOKEN}`, password: PASSWORD },
        },
      ],
      { trigger: 'agent', redactions: tally },
    );
    assert.ok(tally.count >= 6, `counted ${tally.count}`);
    assert.ok(rec.question.includes('[redacted:openai-key]'));
    assert.ok(rec.execution.code.includes('[redacted:openai-key]') && rec.execution.code.includes('[redacted:assignment]'));
    const audit = store.audit({ recordId: 'r1' })[0];
    assert.deepEqual(audit.evidence.redacted, tally.byKind);
    let exported = '';
    exportJsonl(store, (line) => (exported += line));
    const raw = JSON.stringify(store.connectionForQueries().prepare('SELECT * FROM records').all()) + JSON.stringify(store.connectionForQueries().prepare('SELECT * FROM audit').all());
    store.close();
    for (const secret of [OPENAI_KEY, GITHUB_TOKEN, PASSWORD]) {
      assert.ok(!raw.includes(secret), `row holds ${secret}`);
      assert.ok(!exported.includes(secret), `export holds ${secret}`);
      assert.ok(!fileBytes(file).includes(secret), `database file holds ${secret}`);
    }
  });

  it('JSONL import redacts and reports the count', () => {
    const store = MemoryStore.open(':memory:');
    const line = JSON.stringify({ id: 'imp', question: `token is ${GITHUB_TOKEN}`, execution: { code: 'answer = 1', language: 'python', outcome: 'success' }, status: 'active', provenance: 'import', createdTask: 0, createdAt: '2026-01-01T00:00:00.000Z', metadata: {} });
    const { imported, redacted } = importJsonl(store, line + '\n');
    assert.equal(imported, 1);
    assert.equal(redacted, 1);
    assert.equal(store.get('imp')!.question, 'token is [redacted:github-token]');
    assert.deepEqual(store.audit({ recordId: 'imp' })[0].evidence.redacted, { 'github-token': 1 });
    store.close();
  });

  it('the task log stores no secret (question, code, answer, log)', () => {
    const store = MemoryStore.open(':memory:');
    const tasks = new TaskLog(store);
    const t = tasks.begin(`use ${OPENAI_KEY} to call the API`);
    tasks.finish(t, { code: `key = "${OPENAI_KEY}"`, answer: [GITHUB_TOKEN], log: { error: `401 Incorrect API key provided: ${OPENAI_KEY}`, steps: [{ password: PASSWORD }] } });
    const raw = JSON.stringify(store.connectionForQueries().prepare('SELECT * FROM tasks').all());
    for (const secret of [OPENAI_KEY, GITHUB_TOKEN, PASSWORD]) assert.ok(!raw.includes(secret), `task row holds ${secret}: ${raw}`);
    assert.ok(raw.includes('[redacted:openai-key]'));
    store.close();
  });

  it('role memories are stored redacted (file and in-memory stores)', async () => {
    const memory = { ...emptyRoleMemory('coder'), lessons: [`never print the key ${OPENAI_KEY}`], mistakesToAvoid: [`password = "${PASSWORD}" in code`] };
    const fileStore = new JsonFileRoleMemoryStore(path.join(dir, 'roles'));
    await fileStore.save('coder', memory);
    const text = fs.readFileSync(fileStore.fileFor('coder'), 'utf8');
    assert.ok(!text.includes(OPENAI_KEY) && !text.includes(PASSWORD), text);
    assert.ok(text.includes('[redacted:openai-key]'));
    const mem = new InMemoryRoleMemoryStore();
    await mem.save('coder', memory);
    assert.ok(!JSON.stringify(await mem.load('coder')).includes(OPENAI_KEY));
  });

  it('every log line is redacted (messages, errors and arguments)', () => {
    const logFile = path.join(dir, 'agent-memory.log');
    const logger = tagged(fileLogger(logFile), 'test');
    logger.info(`calling with ${OPENAI_KEY}`);
    logger.warn('retrying', { headers: { authorization: `Bearer ${OPENAI_KEY}` } });
    logger.error(new Error(`401 Incorrect API key provided: ${OPENAI_KEY}`));
    logger.error('failed', new Error(`push with ${GITHUB_TOKEN}`));
    const text = fs.readFileSync(logFile, 'utf8');
    assert.ok(!text.includes(OPENAI_KEY) && !text.includes(GITHUB_TOKEN), text);
    assert.equal(text.split('[redacted:openai-key]').length - 1 >= 3, true, text);
  });

  it('reasons (a CLI --reason, an import\'s) are redacted in the audit; an id holding a secret is refused before anything is written', () => {
    const file = path.join(dir, 'memory.sqlite');
    const store = MemoryStore.open(file);
    store.add([sampleRecord({ id: 'p1', status: 'pending' })], { trigger: 'user', reason: `added with ${OPENAI_KEY}` });
    store.transition(['p1'], 'approve', { trigger: 'user', reason: `checked; key ${GITHUB_TOKEN}` });
    importJsonl(store, JSON.stringify({ id: 'i1', question: 'q?', execution: { code: 'answer = 1', language: 'python', outcome: 'success' }, status: 'active', provenance: 'import', createdTask: 0, createdAt: new Date().toISOString() }) + '\n', { reason: `import by password=${PASSWORD}` });
    const reasons = store.audit().map((a) => a.reason);
    assert.equal(reasons.length, 3);
    for (const r of reasons) assert.match(r, /\[redacted:[a-z-]+\]/, r);
    const before = store.counts();
    for (const id of [OPENAI_KEY, GITHUB_TOKEN]) {
      assert.throws(() => store.add([sampleRecord({ id })], { trigger: 'user' }), /id must not hold a secret/);
      assert.throws(() => importJsonl(store, JSON.stringify({ id, question: 'q?', execution: { code: 'answer = 1', language: 'python', outcome: 'success' }, status: 'active', provenance: 'import', createdTask: 0, createdAt: new Date().toISOString() }) + '\n'), /Line 1: field 'id': id must not hold a secret/);
    }
    assert.deepEqual(store.counts(), before);
    store.close();
    const bytes = fileBytes(file);
    for (const secret of [OPENAI_KEY, GITHUB_TOKEN, PASSWORD]) assert.ok(!bytes.includes(secret), 'a secret reached the file');
  });
});
