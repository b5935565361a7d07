import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { nullLogger } from '../../../src/core/logger';
import { TaskLog } from '../../../src/core/memory/sqlite/task-log';
import { redactJson } from '../../../src/core/security/redact';
import { openToolMemory, type ToolMemory } from '../../../src/mcp/tool-memory';

// Built at run time so this file itself holds no key-shaped literal.
const OPENAI_KEY = ['sk', 'proj', 'Zq8xT2vLm4Np7Rk1Wd9Yb3Hc6Jf0Gs5Ua2Ee8Io4'].join('-');
const PG_PASSWORD = 'Hunter2-Pg-Secret';

function fileBytes(file: string): string {
  return [file, `${file}-wal`].filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f).toString('latin1')).join('');
}

describe('memory tools: one record per retrieval, ground truth kept, no secret stored (real SQLite file)', () => {
  let dir: string;
  let db: string;
  let memory: ToolMemory;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-tool-integrity-'));
    db = path.join(dir, 'memory.sqlite');
    memory = openToolMemory({ databasePath: db, addition: 'all', logger: nullLogger, citationRoot: dir });
  });
  afterEach(async () => {
    await memory.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const client = { via: 'mcp' as const, name: 'agent' };
  const record = (retrievalId: string, n: number) => memory.tools.record({ question: `sum column ${n}`, code: `total(${n})`, language: 'go', outcome: 'success', retrievalId }, client);

  it('three memory_record calls on one retrievalId at once: one is stored, the others are refused and write nothing', async () => {
    await memory.tools.record({ question: 'sum a CSV column', code: 'total()', language: 'go', outcome: 'success' }, client);
    const { retrievalId } = await memory.tools.search({ query: 'sum a CSV column' }, client);
    const before = memory.store.counts().active;
    const settled = await Promise.allSettled([record(retrievalId, 1), record(retrievalId, 2), record(retrievalId, 3)]);
    assert.deepEqual(settled.map((s) => s.status).sort(), ['fulfilled', 'rejected', 'rejected']);
    for (const s of settled) if (s.status === 'rejected') assert.match(String(s.reason), /INVALID_STATE|already has a memory_record/);
    assert.equal(memory.store.counts().active, before + 1);
  });

  it("a self-report does not replace the client's tests on a retrieval; tests again do", async () => {
    await memory.tools.record({ question: 'parse a date', code: 'parse()', language: 'go', outcome: 'success' }, client);
    const { retrievalId } = await memory.tools.search({ query: 'parse a date' }, client);
    assert.equal(memory.tools.feedback({ retrievalId, outcome: 'failure', source: 'tests' }, client).evaluator, 'strict:ground-truth');
    assert.throws(() => memory.tools.feedback({ retrievalId, outcome: 'success' }, client), /already has an outcome from the client's tests.*Nothing was written/);
    const tasks = new TaskLog(memory.store);
    assert.equal(tasks.get(Number(retrievalId))?.utility, 0);
    assert.equal(memory.tools.feedback({ retrievalId, outcome: 'success', source: 'tests' }, client).utility, 1);
    assert.equal(tasks.get(Number(retrievalId))?.utility, 1);
  });

  it("the client's self-given name, keys of the answer and credentials in a citation path never reach the file", async () => {
    const hostile = { via: 'mcp' as const, name: `agent ${OPENAI_KEY}`, version: OPENAI_KEY };
    await memory.tools.record(
      {
        question: 'connect to the warehouse',
        code: 'connect()',
        language: 'go',
        outcome: 'success',
        answer: { [OPENAI_KEY]: 1 },
        citations: [{ path: `postgres://admin:${PG_PASSWORD}@db.internal/warehouse`, sha256: '0'.repeat(64) }],
      },
      hostile,
    );
    await memory.close();
    memory = openToolMemory({ databasePath: db, addition: 'all', logger: nullLogger, citationRoot: dir });
    const bytes = fileBytes(db);
    assert.ok(!bytes.includes(OPENAI_KEY), 'the key reached the memory file');
    assert.ok(!bytes.includes(PG_PASSWORD), 'the password reached the memory file');
  });

  it('redactJson redacts keys too, and keeps two keys that redact alike apart', () => {
    const { value, count } = redactJson({ [OPENAI_KEY]: 1, [`${OPENAI_KEY}x`]: 2, plain: 3 });
    assert.equal(count, 2);
    assert.deepEqual(Object.values(value).sort(), [1, 2, 3]);
    assert.ok(!JSON.stringify(value).includes(OPENAI_KEY));
  });

  it('an answer too large or nested too deep is refused naming the field, and nothing is written', async () => {
    let deep: unknown = 1;
    for (let i = 0; i < 5000; i++) deep = [deep];
    const before = JSON.stringify(memory.store.counts());
    for (const [answer, problem] of [[deep, /answer: answer is nested more than 64 levels deep/], ['x'.repeat(200_000), /answer: answer is 200002 characters as JSON, over the cap of 100000/]] as const) {
      await assert.rejects(() => memory.tools.record({ question: 'q', code: 'x', language: 'go', outcome: 'success', answer }, client), (e: unknown) => e instanceof Error && problem.test(e.message) && /INVALID|Invalid arguments for memory_record/.test(`${(e as { code?: string }).code ?? ''} ${e.message}`));
    }
    assert.equal(JSON.stringify(memory.store.counts()), before);
  });

  it('a memory_record the client cancels before its write begins writes nothing and says so', async () => {
    const before = JSON.stringify(memory.store.counts());
    const cancel = new AbortController();
    const call = memory.tools.record({ question: 'cancelled task', code: 'x()', language: 'go', outcome: 'success' }, client, cancel.signal);
    cancel.abort();
    await assert.rejects(call, /cancelled by the client before anything was written/);
    assert.equal(JSON.stringify(memory.store.counts()), before);
    assert.equal(new TaskLog(memory.store).list().length, 0);
  });

  it('a NUL character in a query, question or code is refused naming the field (the team memory cannot store one)', async () => {
    await assert.rejects(() => memory.tools.search({ query: 'sum\u0000column' }, client), /query: must not contain NUL characters/);
    await assert.rejects(() => memory.tools.record({ question: 'q\u0000', code: 'x', language: 'go', outcome: 'success' }, client), /question: must not contain NUL characters/);
    await assert.rejects(() => memory.tools.record({ question: 'q', code: 'x\u0000', language: 'go', outcome: 'success' }, client), /code: must not contain NUL characters/);
    assert.equal(new TaskLog(memory.store).list().length, 0);
  });

  it('memory_feedback on the retrievalId of a memory_record made without a search is refused: nothing was returned to credit', async () => {
    const { retrievalId } = await memory.tools.record({ question: 'no search first', code: 'x()', language: 'go', outcome: 'success' }, client);
    const before = new TaskLog(memory.store).get(Number(retrievalId))!;
    assert.throws(() => memory.tools.feedback({ retrievalId, outcome: 'failure', source: 'tests' }, client), /belongs to a memory_record made without a memory_search.*Nothing was written/);
    assert.deepEqual(new TaskLog(memory.store).get(Number(retrievalId)), before);
  });
});
