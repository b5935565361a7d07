import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { run } from '../../../src/cli/commands/bench';
import { runBench } from '../../../src/core/bench/harness';
import type { BenchMetrics } from '../../../src/core/bench/metrics';
import { createBenchSession } from '../../../src/core/bench/session';
import { goldProgram } from '../../../src/core/data/gold-program';
import { readTaskFile } from '../../../src/core/bench/task-file';
import { planTasks } from '../../../src/core/bench/task-plan';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { TaskLog } from '../../../src/core/memory/sqlite/task-log';
import { startFakeOpenAI, FakeOpenAI, FakeStep, RecordedRequest } from '../../support/fake-openai-server';

const DATA = path.resolve(__dirname, '..', '..', '..', 'data', 'ehr');
const DB = path.join(DATA, 'mimic3-demo.sqlite');
const STREAM = 12;
const API_KEY = 'sk-bench-test';

interface Line {
  question: string;
  gold_sql: string;
  answer: unknown;
  template: string;
  answer_status: string;
}

/** Which kind of model request the fake received, read from its system prompt. */
function roleOf(request: RecordedRequest): 'coder' | 'judge' | 'debugger' | 'role-memory' | 'other' {
  const system = String(request.body?.messages?.[0]?.content ?? '');
  if (system.startsWith('You are a code agent')) return 'coder';
  if (system.startsWith('You are a strict evaluator')) return 'judge';
  if (system.startsWith('You are the debugger')) return 'debugger';
  if (system.startsWith('You are maintaining the memory')) return 'role-memory';
  return 'other';
}

/** The task question of a coder or judge request (coder: the last `Question:` message; judge: the first line). */
function questionOf(request: RecordedRequest): string {
  const messages: Array<{ content: string }> = request.body.messages;
  if (roleOf(request) === 'judge') return /^Question: (.*)$/m.exec(messages[1].content)![1];
  const last = [...messages].reverse().find((m) => m.content.startsWith('Question: '))!;
  return last.content.slice('Question: '.length);
}

/**
 * The LLM path of the benchmark through the real CLI command / harness, the
 * real `openai` client and a real HTTP server on 127.0.0.1 scripted as coder,
 * judge, debugger and role-memory model, with the real JavaScript sandbox and
 * the real EHR database.
 */
describe('bench: LLM path against a fake OpenAI-compatible endpoint', function () {
  this.timeout(40_000);
  let dir: string;
  let tasksFile: string;
  let stream: Line[];
  let gold: Map<string, string>;
  let fake: FakeOpenAI;
  /** prompt/completion tokens of every chat completion the fake answered with 200. */
  let reported: { prompt: number; completion: number }[];
  /** Judge verdicts by question. */
  let verdicts: Map<string, boolean>;
  /** Questions whose coder reply is a wrong-but-runnable program / prose / a malformed body. */
  let wrong: Set<string>;
  let prose: Set<string>;
  let malformed: Set<string>;
  /** Questions whose first coder request gets a 500. */
  let fail500: Set<string>;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-llm-'));
    const lines = fs.readFileSync(path.join(DATA, 'ehrsql-mimic3-tasks.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Line);
    const nonempty = lines.filter((l) => l.answer_status === 'nonempty');
    stream = nonempty.slice(0, STREAM);
    const templates = new Set(stream.map((l) => l.template));
    const pool = nonempty.slice(STREAM + 10).filter((l) => templates.has(l.template)).slice(0, 6).map((l) => ({ ...l, answer_status: 'seed-pool' }));
    assert.equal(pool.length, 6);
    tasksFile = path.join(dir, 'tasks.jsonl');
    fs.writeFileSync(tasksFile, [...stream, ...pool].map((l) => JSON.stringify(l)).join('\n') + '\n');
    gold = new Map(stream.map((l) => [l.question, l.gold_sql]));
    assert.equal(gold.size, STREAM, 'stream questions are distinct');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  beforeEach(async () => {
    reported = [];
    verdicts = new Map();
    wrong = new Set();
    prose = new Set();
    malformed = new Set();
    fail500 = new Set();
    fake = await startFakeOpenAI({ apiKey: API_KEY });
    fake.setDefault((request): FakeStep => {
      const reply = (text: string): FakeStep => {
        const usage = { prompt_tokens: 50 + (fake.requests.length % 17), completion_tokens: 5 + (fake.requests.length % 3) };
        reported.push({ prompt: usage.prompt_tokens, completion: usage.completion_tokens });
        return { reply: text, usage };
      };
      switch (roleOf(request)) {
        case 'coder': {
          const q = questionOf(request);
          const sql = gold.get(q);
          if (sql === undefined) return { status: 400 };
          if (fail500.delete(q)) return { status: 500 };
          if (malformed.has(q)) return { raw: '{"id": "chatcmpl-x", "choices": [ {"message": ' };
          if (prose.has(q)) return reply('I am not sure how to answer that question, sorry.');
          if (wrong.has(q)) return reply('```javascript\nanswer = 0;\n```');
          return reply('Here is the program:\n```javascript\n' + goldProgram(sql, 'javascript') + '\n```');
        }
        case 'judge': {
          const q = questionOf(request);
          const success = /^Execution outcome: success$/m.test(request.body.messages[1].content);
          verdicts.set(q, success);
          return reply(success ? 'Yes\nThe program ran and set an answer.' : 'No\nThe program did not produce an answer.');
        }
        case 'debugger':
          return reply('{"analysis": "The program failed.", "fix": "Use the gold SQL."}');
        case 'role-memory':
          return reply('{"lessons": ["use sql()"], "validPatterns": ["answer = sql(...)"], "mistakesToAvoid": []}');
        default:
          return { status: 400 };
      }
    });
  });
  afterEach(() => fake.close());

  async function cli(name: string, extra: string[]): Promise<BenchMetrics> {
    const out = path.join(dir, name);
    const stdout = process.stdout.write.bind(process.stdout);
    const key = process.env.AGENT_MEMORY_API_KEY;
    process.env.AGENT_MEMORY_API_KEY = API_KEY;
    let printed = '';
    process.stdout.write = ((chunk: string) => ((printed += chunk), true));
    let code: number;
    try {
      code = await run(['--tasks', tasksFile, '--db', DB, '--model', fake.baseURL, '--model-name', 'fake-coder', '--initial-memory', '6', '--language', 'javascript', '--quiet', '--out', out, ...extra]);
    } finally {
      process.stdout.write = stdout;
      if (key === undefined) delete process.env.AGENT_MEMORY_API_KEY;
      else process.env.AGENT_MEMORY_API_KEY = key;
    }
    assert.equal(code, 0);
    assert.match(printed, /Model: fake-coder/);
    return JSON.parse(fs.readFileSync(path.join(out, 'metrics.json'), 'utf8')) as BenchMetrics;
  }

  it('coarse addition: the coder answers, the judge decides additions, tokens are the sums the server reported, a 500 is retried', async () => {
    const questions = stream.map((l) => l.question);
    wrong.add(questions[2]);
    fail500.add(questions[4]);
    const m = await cli('coarse', ['--addition', 'coarse']);

    assert.equal(m.model, 'fake-coder');
    assert.equal(m.rows.length, STREAM);
    assert.deepEqual(m.rows.map((r) => r.question), questions, 'given order');
    // Accuracy from the rows, and the rows from what the fake coder answered.
    for (const r of m.rows) assert.equal(r.correct, wrong.has(r.question) ? 0 : 1, `task ${r.position}`);
    const correct = m.rows.filter((r) => r.correct === 1).length;
    assert.equal(correct, STREAM - 1);
    assert.equal(m.correct, correct);
    assert.equal(m.final_accuracy, Math.round((correct / STREAM) * 1e6) / 1e6);

    // Every answered chat completion's usage is counted once, nothing else.
    assert.ok(m.prompt_tokens > 0);
    assert.equal(m.prompt_tokens, reported.reduce((s, u) => s + u.prompt, 0));
    assert.equal(m.completion_tokens, reported.reduce((s, u) => s + u.completion, 0));
    assert.equal(m.rows.reduce((s, r) => s + r.promptTokens, 0), m.prompt_tokens);

    // The judge saw every task and its verdict — not the ground truth — decided the additions.
    const chats = fake.requests.filter((r) => r.path === '/v1/chat/completions');
    assert.ok(chats.every((r) => r.headers.authorization === `Bearer ${API_KEY}`), 'API key from AGENT_MEMORY_API_KEY');
    assert.equal(chats.filter((r) => roleOf(r) === 'judge').length, STREAM);
    assert.equal(verdicts.size, STREAM);
    for (const r of m.rows) {
      assert.equal(r.evaluator, 'coarse:judge');
      assert.equal(r.added, verdicts.get(r.question), `task ${r.position}: added iff the judge said yes`);
    }
    const wrongRow = m.rows[2];
    assert.equal(wrongRow.correct, 0);
    assert.equal(wrongRow.added, true, 'the judge accepted a wrong answer that ran: coarse adds it');
    assert.equal(m.memory_size_final, 6 + m.rows.filter((r) => r.added).length);

    // The 500 on task 5's first coder request was retried with the same prompt, invisibly to the run.
    const coder5 = chats.filter((r) => roleOf(r) === 'coder' && questionOf(r) === questions[4]);
    assert.equal(coder5.length, 2);
    assert.equal(coder5[0].rawBody, coder5[1].rawBody);
    assert.equal(m.rows[4].correct, 1);
    assert.equal(m.rows[4].attempts, 1);
    assert.equal(m.rows[4].gaveUp, null);
    // No fallback to another evaluator or model: one coder request per task besides the retried one.
    assert.equal(chats.filter((r) => roleOf(r) === 'coder').length, STREAM + 1);
    assert.equal(chats.filter((r) => roleOf(r) === 'other').length, 0);
    assert.ok(m.rows.every((r) => r.promptTokens > 0));
  });

  it('garbage replies fail only their task, with the reason in the row and the task log', async () => {
    const questions = stream.map((l) => l.question);
    prose.add(questions[1]);
    malformed.add(questions[6]);
    const tasks = readTaskFile(tasksFile);
    const plan = planTasks(tasks, { initialMemory: 6, seed: 7 });
    const session = createBenchSession({ databasePath: DB, language: 'javascript', endpoint: { baseURL: fake.baseURL, model: 'fake-coder', apiKey: API_KEY } });
    const storePath = path.join(dir, 'garbage.sqlite');
    let metricsRows;
    try {
      const result = await runBench(plan, { addition: 'strict', language: 'javascript', maxDebugRounds: 2 }, { ...session.deps, storePath });
      metricsRows = result.rows;
    } finally {
      session.dispose();
    }
    assert.equal(metricsRows.length, STREAM, 'the run went on after the failures');
    for (const r of metricsRows) {
      const bad = prose.has(r.question) || malformed.has(r.question);
      assert.equal(r.correct, bad ? 0 : 1, `task ${r.position}`);
      assert.equal(r.added, !bad, 'strict adds exactly the correct tasks');
      assert.equal(r.gaveUp !== null, bad, `task ${r.position}: a reason iff it failed`);
    }
    const proseRow = metricsRows[1];
    assert.equal(proseRow.outcome, 'no-answer');
    assert.equal(proseRow.attempts, 3, 'an unreadable reply is a failed attempt, retried up to maxDebugRounds');
    assert.match(proseRow.gaveUp!, /no working program after 3 attempts/);
    const malformedRow = metricsRows[6];
    assert.equal(malformedRow.outcome, 'no-answer');
    assert.match(malformedRow.gaveUp!, /code generation failed/);

    // The kept task log holds the reason and the attempts.
    const store = MemoryStore.open(storePath);
    try {
      const log = new TaskLog(store);
      const rows = log.list({ limit: 100 });
      assert.equal(rows.length, STREAM);
      const byQuestion = new Map(rows.map((t) => [t.question, t]));
      const p = byQuestion.get(questions[1])!;
      assert.equal(p.log.gaveUp, proseRow.gaveUp);
      assert.equal((p.log.attempts as unknown[]).length, 3);
      assert.equal(byQuestion.get(questions[6])!.log.gaveUp, malformedRow.gaveUp);
      assert.equal(byQuestion.get(questions[0])!.log.gaveUp, null, 'a task that did not give up logs gaveUp: null (one log shape for every client)');
      assert.equal(store.counts().active, 6 + STREAM - 2);
    } finally {
      store.close();
    }
  });
});
