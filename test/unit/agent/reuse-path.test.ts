import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { goldProgram } from '../../../src/core/data/gold-program';
import { demoSeedRecords } from '../../../src/core/data/ehr-tasks';
import { answersMatch } from '../../../src/core/policy/answers';
import { AppHandle, ehrTask, ehrTasks, openApp, settingsWith, timingProblems } from './agent-fixture';

/** A stream question ("nonempty" gold answer) whose template one of the 100 demo seeds shares. */
const STREAM_TASK_ID = '769483cfab48dda44872f850'; // "What is the administration method for danazol?"

describe('agent loop: offline reuse path end to end (createApp, javascript runner, no model)', function () {
  this.timeout(20_000);
  let h: AppHandle;
  before(async () => {
    h = await openApp(settingsWith());
    const seeded = await h.app.seedDemoMemory(100);
    assert.equal(seeded, 100);
  });
  after(() => h?.dispose());

  it('the chosen question is in the stream and a seed shares its template (data precondition)', () => {
    const task = ehrTask(STREAM_TASK_ID);
    assert.equal(task.answer_status, 'nonempty');
    const seeds = demoSeedRecords(ehrTasks(), 100, 'javascript');
    const peers = seeds.filter((s) => s.metadata?.template === task.template);
    assert.ok(peers.length >= 1, 'a same-template seed exists');
    assert.ok(!seeds.some((s) => s.question === task.question), 'the question itself is not a seed');
    const activeQuestions = new Set(h.app.list({ status: 'active', limit: 1000 }).items.map((r) => r.question));
    assert.ok(peers.every((p) => activeQuestions.has(p.question)), 'the peers are active memory records');
  });

  it('answers with the gold answer, names the non-LLM baseline, logs demonstrations and timings; strict → pending; approve → active and Φ = 1', async () => {
    const task = ehrTask(STREAM_TASK_ID);
    const before = h.app.counts();
    const result = await h.app.runTask(task.question);

    // Answer and honesty about the model.
    assert.equal(result.outcome, 'success', JSON.stringify(result));
    assert.ok(answersMatch(task.answer, result.answer), `answer ${JSON.stringify(result.answer)} vs gold ${JSON.stringify(task.answer)}`);
    assert.match(result.model, /reuse/i);
    assert.match(result.model, /non-LLM baseline/);
    assert.equal(result.error, undefined);
    assert.equal(result.attempts, 1);

    // K = 4 demonstrations from the active memory; the top one is the same-template seed.
    assert.equal(result.demonstrations.length, 4);
    const seedTemplate = new Map(demoSeedRecords(ehrTasks(), 100, 'javascript').map((s) => [s.question, s.metadata?.template]));
    assert.equal(seedTemplate.get(result.demonstrations[0].question), task.template);
    for (const d of result.demonstrations) assert.equal(h.app.get(d.recordId)?.status, 'active');
    // In retrieval order (re-ranked: agentMemory.retrieval.rerank is on by default), as the retrieval log ranks them.
    const ranks = result.demonstrations.map((d) => h.app.retrievalsOf(d.recordId).find((r) => r.taskIndex === result.taskIndex)?.rank);
    assert.deepEqual(ranks, [0, 1, 2, 3], 'in retrieval order');

    // The task log row holds everything.
    const row = h.app.task(result.taskIndex);
    assert.ok(row, 'task row exists');
    assert.equal(row.question, task.question);
    assert.equal(row.outcome, 'success');
    assert.equal(row.code, result.code);
    assert.ok(row.finishedAt);
    const log = row.log as { attempts: { code: string; outcome: string; note: string }[]; retrieved: { recordId: string; inputSimilarity: number; shown: boolean }[]; timings: unknown; model: string; gaveUp: string | null; addition: string };
    assert.equal(log.attempts.length, 1);
    assert.equal(log.attempts[0].code, result.code);
    assert.equal(log.attempts[0].outcome, 'success');
    assert.match(log.attempts[0].note, new RegExp(`reused record ${result.demonstrations[0].recordId}`));
    assert.deepEqual(log.retrieved.map((d) => d.recordId), result.demonstrations.map((d) => d.recordId));
    assert.deepEqual(log.retrieved.map((d) => d.shown), result.demonstrations.map((d) => d.shown), 'the log marks the shown demonstrations (the reuse model: the record it adapted)');
    assert.equal(log.model, result.model);
    assert.equal(log.gaveUp, null);
    assert.deepEqual(timingProblems(log.timings), []);
    for (const d of result.demonstrations) {
      const rows = h.app.retrievalsOf(d.recordId).filter((r) => r.taskIndex === result.taskIndex);
      assert.equal(rows.length, 1, 'one retrieval row per (task, record)');
      assert.equal(rows[0].utility, null, 'no Φ before the human verdict');
    }

    // Strict addition without ground truth: the new record waits for a human verdict.
    assert.equal(result.utility, null);
    assert.equal(result.addition.added, true);
    assert.equal(result.addition.status, 'pending');
    const recordId = result.addition.recordId!;
    const record = h.app.get(recordId)!;
    assert.equal(record.status, 'pending');
    assert.equal(record.question, task.question);
    assert.equal(record.execution.code, result.code);
    assert.deepEqual(record.execution.demonstrationIds, result.demonstrations.map((d) => d.recordId));
    assert.equal(h.app.counts().pending, before.pending + 1);
    assert.equal(h.app.counts().active, before.active);

    h.app.approve([recordId]);
    assert.equal(h.app.get(recordId)?.status, 'active');
    assert.equal(h.app.task(result.taskIndex)?.utility, 1);
    // Φ goes only to the demonstrations the agent was shown; the reuse model's "prompt" is the one record it adapted.
    assert.ok(result.demonstrations.length > 1, 'several records were retrieved');
    assert.deepEqual(result.demonstrations.filter((d) => d.shown).map((d) => d.recordId), [result.demonstrations.find((d) => d.shown)?.recordId], 'exactly one record is marked shown');
    for (const d of result.demonstrations) {
      const rows = h.app.retrievalsOf(d.recordId).filter((r) => r.taskIndex === result.taskIndex);
      assert.equal(rows[0].utility, d.shown ? 1 : null, `Φ on the retrieval row of ${d.recordId} (shown: ${d.shown})`);
    }
  });

  it('with ground truth, a wrong answer gets Φ = 0 and strict addition keeps it out', async () => {
    const task = ehrTask(STREAM_TASK_ID);
    const result = await h.app.runTask(task.question, { groundTruth: [['definitely not the route']] });
    assert.equal(result.outcome, 'success');
    assert.equal(result.utility, 0);
    assert.equal(result.addition.added, false);
    assert.equal(h.app.task(result.taskIndex)?.utility, 0);
  });

  it('gives up with a reason (no crash) when memory is empty', async () => {
    const empty = await openApp(settingsWith());
    try {
      const result = await empty.app.runTask('What is the administration method for danazol?');
      assert.equal(result.outcome, 'no-answer');
      assert.equal(result.code, '');
      assert.match(result.error ?? '', /at least one active memory record/);
      assert.equal(result.addition.added, false);
      const row = empty.app.task(result.taskIndex)!;
      assert.match(String(row.log.gaveUp), /code generation failed/);
      assert.deepEqual(timingProblems(row.log.timings), []);
    } finally {
      empty.dispose();
    }
  });
});

describe('agent loop: reuse model debug rounds (createApp, javascript runner)', function () {
  this.timeout(20_000);
  const task = () => ehrTask(STREAM_TASK_ID);
  const peer = () => ehrTasks().find((t) => t.template === task().template && t.id !== task().id && t.question.startsWith('What is the intake method for'))!;
  let h: AppHandle;
  let brokenId: string;
  let peerId: string;

  beforeEach(async () => {
    h = await openApp(settingsWith());
    const now = new Date().toISOString();
    const line = (question: string, code: string) => JSON.stringify({ question, execution: { code, language: 'javascript', answer: null, outcome: 'success' }, status: 'active', provenance: 'user', createdTask: 0, createdAt: now, metadata: {} });
    const file = path.join(h.dir, 'memory.jsonl');
    // The top match is the very same question with a broken program; the runner-up is a same-template peer with its gold program.
    fs.writeFileSync(file, [line(task().question, `answer = sql("select route from no_such_table where drug = 'danazol'");`), line(peer().question, goldProgram(peer().gold_sql, 'javascript'))].join('\n') + '\n');
    assert.equal(await h.app.importJsonl(file), 2);
    const records = h.app.list({ status: 'active' }).items;
    brokenId = records.find((r) => r.question === task().question)!.id;
    peerId = records.find((r) => r.question === peer().question)!.id;
  });
  afterEach(() => h?.dispose());

  it('a failing reused program leads to a retry with the next most similar record', async () => {
    const result = await h.app.runTask(task().question, { groundTruth: task().answer });
    assert.equal(result.demonstrations[0].recordId, brokenId, 'the identical question ranks first');
    const top = result.demonstrations[0].inputSimilarity!;
    assert.ok(top > 0.99 && top <= 1, `identical question: input similarity ${top} within [-1, 1]`);
    assert.ok(h.app.get(result.addition.recordId!)!.execution.inputSimilarity! <= 1);
    assert.equal(result.outcome, 'success', result.error);
    assert.equal(result.attempts, 2);
    assert.ok(answersMatch(task().answer, result.answer), JSON.stringify(result.answer));
    assert.equal(result.utility, 1);
    const log = h.app.task(result.taskIndex)!.log as { attempts: { outcome: string; error?: string; note: string; debugAnalysis?: string }[] };
    assert.equal(log.attempts[0].outcome, 'error');
    assert.match(log.attempts[0].error ?? '', /no_such_table|no such table/i);
    assert.match(log.attempts[0].note, new RegExp(`reused record ${brokenId}`));
    assert.match(log.attempts[0].debugAnalysis ?? '', /next most similar record/);
    assert.match(log.attempts[1].note, new RegExp(`reused record ${peerId}`));
    // Φ = 1 is written onto both retrieval rows, the broken record's included (it was shown).
    assert.equal(h.app.retrievalsOf(brokenId).find((r) => r.taskIndex === result.taskIndex)?.utility, 1);
  });

  it('with maxDebugRounds = 0 it gives up after the first failure, with the error as the reason', async () => {
    h.app.configure(settingsWith({ agent: { maxDebugRounds: 0 } }));
    const result = await h.app.runTask(task().question, { groundTruth: task().answer });
    assert.equal(result.attempts, 1);
    assert.equal(result.outcome, 'error');
    assert.match(result.error ?? '', /no working program after 1 attempts; last error: .*(no_such_table|no such table)/i);
    assert.equal(result.utility, 0);
    assert.equal(result.addition.added, false);
    const row = h.app.task(result.taskIndex)!;
    assert.equal(row.outcome, 'error');
    assert.match(String(row.log.gaveUp), /no working program/);
  });
});
