import * as assert from 'node:assert/strict';
import { toolboxDocs } from '../../../src/core/agent/runners';
import { isAgentMemoryError } from '../../../src/core/errors';
import { answersMatch } from '../../../src/core/policy/answers';
import { startFakeOpenAI, type FakeOpenAI } from '../../support/fake-openai-server';
import { AgentScript, AppHandle, closedPort, ehrTask, jsReply, openApp, ROLE_UPDATE_USAGE, settingsWith, timingProblems } from './agent-fixture';

const MODEL = 'fake-coder-1';
const TASK = ehrTask('769483cfab48dda44872f850'); // "What is the administration method for danazol?" → [["po"]]
const CORRECT = `const rows = sql("select distinct prescriptions.route from prescriptions where prescriptions.drug = 'danazol'");\nanswer = rows;`;
const FAILING = `const rows = sql("select route from prescription_table where drug = 'danazol'");\nanswer = rows;`;

interface LoggedAttempt {
  attempt: number;
  code: string;
  outcome: string;
  error?: string;
  debugAnalysis?: string;
}

describe('agent loop: LLM path through the fake OpenAI server (createApp, real openai client, javascript runner)', function () {
  this.timeout(20_000);
  let fake: FakeOpenAI;
  let script: AgentScript;
  let h: AppHandle;

  beforeEach(async () => {
    fake = await startFakeOpenAI();
    script = new AgentScript(fake);
    h = await openApp(settingsWith({ model: { baseUrl: fake.baseURL, name: MODEL }, agent: { maxDebugRounds: 2 } }));
    await h.app.seedDemoMemory(100);
  });
  afterEach(async () => {
    h?.dispose();
    await fake?.close();
  });

  it('(a) a correct fenced program: success; the prompt holds the toolbox docs, the K demonstrations and the question', async () => {
    script.coder.push({ reply: jsReply(CORRECT), usage: { prompt_tokens: 1234, completion_tokens: 56 } });
    const result = await h.app.runTask(TASK.question, { groundTruth: TASK.answer });

    assert.equal(result.outcome, 'success', result.error);
    assert.ok(answersMatch(TASK.answer, result.answer), JSON.stringify(result.answer));
    assert.equal(result.model, MODEL);
    assert.equal(result.attempts, 1);
    assert.equal(result.code, CORRECT);
    assert.equal(result.utility, 1);
    assert.equal(result.addition.status, 'active', 'strict + ground truth Φ = 1 adds an active record');

    const [call] = script.calls('coder');
    assert.equal(script.calls('coder').length, 1);
    assert.equal(call.body.model, MODEL);
    const messages = call.body.messages as { role: string; content: string }[];
    assert.equal(messages[0].role, 'system');
    assert.ok(messages[0].content.includes(toolboxDocs('javascript').trim()), 'system prompt carries the toolbox docs');
    assert.equal(result.demonstrations.length, 4, 'K = 4');
    const questionAt = messages.findIndex((m) => m.role === 'user' && m.content === `Question: ${TASK.question}`);
    assert.equal(questionAt, messages.length - 1, 'the question is the last message');
    for (const d of result.demonstrations) {
      const at = messages.findIndex((m) => m.role === 'user' && m.content === `Question: ${d.question}`);
      assert.ok(at > 0 && at < questionAt, `demonstration "${d.question}" before the question`);
      assert.equal(messages[at + 1].role, 'assistant');
      assert.ok(messages[at + 1].content.includes(d.code.trim()), 'its code follows as the assistant turn');
      assert.equal(h.app.get(d.recordId)?.status, 'active');
    }

    const row = h.app.task(result.taskIndex)!;
    const log = row.log as { usage: { promptTokens: number; completionTokens: number }; timings: unknown; gaveUp: string | null; attempts: LoggedAttempt[] };
    // The coder's tokens plus those of the role-memory update after its output, as the endpoint reported them.
    assert.ok(script.roleUpdates >= 1);
    assert.deepEqual(log.usage, { promptTokens: 1234 + ROLE_UPDATE_USAGE.prompt_tokens * script.roleUpdates, completionTokens: 56 + ROLE_UPDATE_USAGE.completion_tokens * script.roleUpdates }, 'token usage as the endpoint reported it');
    assert.equal(log.gaveUp, null);
    assert.deepEqual(timingProblems(log.timings), []);
    assert.equal(log.attempts[0].code, CORRECT);
  });

  it('(b) a failing program → debugger JSON → corrected program: success in 2 attempts, the analysis reaches the coder', async () => {
    const analysis = 'The table prescription_table does not exist; the table is prescriptions and the column drug must match exactly.';
    script.coder.push({ reply: jsReply(FAILING) }, { reply: jsReply(CORRECT) });
    script.debugger.push({ reply: JSON.stringify({ analysis, fix: 'Query prescriptions.route with select distinct.' }) });
    const result = await h.app.runTask(TASK.question, { groundTruth: TASK.answer });

    assert.equal(result.outcome, 'success', result.error);
    assert.equal(result.attempts, 2);
    assert.ok(answersMatch(TASK.answer, result.answer));
    const [first, second] = script.calls('coder');
    assert.equal(script.calls('coder').length, 2);
    assert.equal(script.calls('debugger').length, 1);

    const dbg = script.calls('debugger')[0].body.messages as { content: string }[];
    assert.ok(dbg[1].content.includes(FAILING), 'the debugger sees the failed program');
    assert.match(dbg[1].content, /prescription_table/i);

    const secondText = (second.body.messages as { content: string }[]).map((m) => m.content).join('\n');
    assert.ok(secondText.includes(analysis), 'the debug analysis is in the second coder prompt');
    assert.ok(secondText.includes(FAILING), 'so is the failed program');
    assert.ok(!(first.body.messages as { content: string }[]).some((m) => m.content.includes(analysis)));

    const log = h.app.task(result.taskIndex)!.log as { attempts: LoggedAttempt[]; gaveUp: string | null };
    assert.equal(log.attempts.length, 2);
    assert.equal(log.attempts[0].outcome, 'error');
    assert.match(log.attempts[0].error ?? '', /prescription_table/);
    assert.ok(log.attempts[0].debugAnalysis?.startsWith(analysis));
    assert.equal(log.attempts[1].outcome, 'success');
    assert.equal(log.gaveUp, null);
  });

  it('(c) garbage and code-less replies until the rounds run out: failed task with a reason, no crash', async () => {
    // maxDebugRounds = 2 → 3 coder attempts.
    const usage = (p: number, c: number) => ({ prompt_tokens: p, completion_tokens: c });
    script.coder.push(
      { reply: 'I am sorry, I cannot help with that.', usage: usage(101, 7) },
      { reply: '```javascript\nanswer = sql("select 1"\n```', usage: usage(203, 11) },
      { reply: 'Sure! ```sql\nselect 1\n```', usage: usage(307, 13) },
    );
    const result = await h.app.runTask(TASK.question, { groundTruth: TASK.answer });

    assert.notEqual(result.outcome, 'success');
    assert.equal(result.code, '');
    assert.equal(result.answer, null);
    assert.match(result.error ?? '', /no working program after 3 attempts/);
    assert.equal(script.calls('coder').length, 3, 'the coder was asked again after each invalid reply');
    assert.equal(result.addition.added, false);
    assert.equal(result.utility, 0);
    const row = h.app.task(result.taskIndex)!;
    assert.ok(row.finishedAt);
    const log = row.log as { attempts: LoggedAttempt[]; gaveUp: string | null; timings: unknown };
    assert.equal(log.attempts.length, 3);
    assert.ok(log.attempts.every((a) => a.outcome === 'error' && (a.error ?? '').length > 0));
    assert.match(log.attempts[1].error ?? '', /does not parse/);
    assert.match(String(log.gaveUp), /no working program/);
    // Unusable replies were still paid for: their tokens are counted.
    assert.deepEqual((log as unknown as { usage: { promptTokens: number; completionTokens: number } }).usage, { promptTokens: 101 + 203 + 307, completionTokens: 7 + 11 + 13 });
    assert.deepEqual(timingProblems(log.timings), []);
    // The retry prompt tells the coder what was wrong with its reply.
    const retry = (script.calls('coder')[1].body.messages as { content: string }[]).map((m) => m.content).join('\n');
    assert.match(retry, /no runnable javascript program/);
    assert.match(retry, /Reading that reply failed:\n.*does not parse/);
  });

  it('(c2) a program that keeps failing: the debugger runs after every failure but the last, an unusable debugger reply does not stop the loop', async () => {
    script.coder.push({ reply: jsReply(FAILING) }, { reply: jsReply('throw new Error("still broken");') }, { reply: jsReply('answer = undefinedHelper();') });
    script.debugger.push({ reply: 'not json at all' }, { reply: JSON.stringify({ analysis: 'Define the helper or use sql().' }) });
    const result = await h.app.runTask(TASK.question, { groundTruth: TASK.answer });
    assert.equal(result.outcome, 'error');
    assert.equal(result.attempts, 3, 'maxDebugRounds = 2 → 3 attempts');
    assert.equal(script.calls('debugger').length, 2, 'no debugger call after the last attempt');
    assert.match(result.error ?? '', /no working program after 3 attempts; last error: .*undefinedHelper/);
    assert.equal(result.code, 'answer = undefinedHelper();', 'the last program is reported');
    assert.equal(result.utility, 0);
    const second = (script.calls('coder')[1].body.messages as { content: string }[]).map((m) => m.content).join('\n');
    assert.match(second, /debugger unavailable: .*no valid JSON/);
    const third = (script.calls('coder')[2].body.messages as { content: string }[]).map((m) => m.content).join('\n');
    assert.ok(third.includes('Define the helper or use sql().'));
    assert.ok(third.indexOf('prescription_table') < third.indexOf('still broken'), 'debug turns in order');
    const log = h.app.task(result.taskIndex)!.log as { attempts: LoggedAttempt[] };
    assert.deepEqual(log.attempts.map((a) => a.outcome), ['error', 'error', 'error']);
    assert.match(log.attempts[1].error ?? '', /still broken/);
  });

  it('(d) an unreachable endpoint: the task resolves as failed with a clear error (no reject, no crash)', async () => {
    const port = await closedPort();
    const down = await openApp(settingsWith({ model: { baseUrl: `http://127.0.0.1:${port}/v1`, name: MODEL } }));
    try {
      await down.app.seedDemoMemory(20);
      // With a gold answer too: a model that cannot be reached is not the agent's wrong answer.
      const result = await down.app.runTask(TASK.question, { groundTruth: TASK.answer });
      assert.equal(result.outcome, 'no-answer');
      assert.deepEqual(result.verdict, { kind: 'unknown', source: 'none' }, 'not checked, not "wrong"');
      assert.equal(result.utility, null, 'no Φ for the demonstrations');
      assert.equal(down.app.task(result.taskIndex)!.log.correct, undefined, 'no gold verdict logged');
      assert.match(down.app.dashboard().summaryText, /0 ran · 0 correct · 0 wrong · 1 not checked/);
      assert.equal(result.code, '');
      assert.match(result.error ?? '', /code generation failed: Cannot reach chat model/);
      assert.ok((result.error ?? '').includes(`127.0.0.1:${port}`), 'names the endpoint');
      assert.equal(result.addition.added, false);
      const row = down.app.task(result.taskIndex)!;
      assert.match(String(row.log.gaveUp), /Cannot reach/);
      assert.ok(row.finishedAt);
      assert.deepEqual(timingProblems(row.log.timings), []);
    } finally {
      down.dispose();
    }
  });

  it('(e) a 429 then a reply is retried transparently', async () => {
    script.coder.push({ status: 429, headers: { 'retry-after-ms': '20' } }, { reply: jsReply(CORRECT) });
    const result = await h.app.runTask(TASK.question, { groundTruth: TASK.answer });
    assert.equal(result.outcome, 'success', result.error);
    assert.equal(result.attempts, 1, 'one agent attempt; the 429 stayed inside the client');
    assert.equal(script.calls('coder').length, 2);
    assert.deepEqual(script.calls('coder')[1].body.messages, script.calls('coder')[0].body.messages, 'the same request was re-sent');
  });

  it('(f) cancelling during a slow reply rejects with CANCELLED promptly; the task is logged as cancelled and the app keeps working', async () => {
    script.coder.push({ reply: jsReply(CORRECT), delayMs: 15_000 });
    const controller = new AbortController();
    const started = Date.now();
    const pending = h.app.runTask(TASK.question, { signal: controller.signal });
    await waitFor(() => script.calls('coder').length === 1);
    controller.abort();
    await assert.rejects(pending, (error: unknown) => isAgentMemoryError(error, 'CANCELLED'));
    assert.ok(Date.now() - started < 10_000, 'did not wait for the slow reply');

    const cancelled = h.app.tasks().at(-1)!;
    assert.equal(cancelled.question, TASK.question);
    assert.ok(cancelled.finishedAt, 'the cancelled task is closed in the log');
    assert.equal(cancelled.log.cancelled, true);
    assert.equal(cancelled.outcome, null);

    script.coder.push({ reply: jsReply(CORRECT) });
    const after = await h.app.runTask(TASK.question, { groundTruth: TASK.answer });
    assert.equal(after.outcome, 'success');
    assert.ok(after.taskIndex > cancelled.taskIndex);
  });

  it('an already-aborted signal rejects before any model call', async () => {
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(h.app.runTask(TASK.question, { signal: controller.signal }), (error: unknown) => isAgentMemoryError(error, 'CANCELLED'));
    assert.equal(script.calls('coder').length, 0);
  });

  it('role memories: updated after each coder and debugger output, injected into later prompts, reset empties them', async () => {
    assert.ok(h.app.roleMemories().every((m) => m.updates === 0 && m.lessons.length === 0));
    script.coder.push({ reply: jsReply(FAILING) }, { reply: jsReply(CORRECT) });
    script.debugger.push({ reply: '```json\n{"analysis": "Use the prescriptions table."}\n```' });
    const result = await h.app.runTask(TASK.question, { groundTruth: TASK.answer });
    assert.equal(result.outcome, 'success', result.error);

    const roleCalls = script.calls('role');
    assert.equal(roleCalls.length, 3, 'coder, debugger, coder');
    assert.match(roleCalls[0].body.messages[0].content, /CODER/);
    assert.ok(roleCalls[0].body.messages[1].content.includes(FAILING), 'the coder update sees the coder output');
    assert.match(roleCalls[1].body.messages[0].content, /DEBUGGER/);
    assert.ok(roleCalls[1].body.messages[1].content.includes('Use the prescriptions table.'));
    assert.ok(roleCalls[2].body.messages[1].content.includes(CORRECT));

    const [coder, debuggerMemory] = h.app.roleMemories();
    assert.equal(coder.role, 'coder');
    assert.equal(coder.updates, 2);
    assert.deepEqual(coder.lessons, ['coder lesson 3']);
    assert.equal(debuggerMemory.role, 'debugger');
    assert.equal(debuggerMemory.updates, 1);
    assert.deepEqual(debuggerMemory.lessons, ['debugger lesson 2']);

    // The second coder call already carried the memory written after the first output.
    const secondCoder = script.calls('coder')[1].body.messages[0].content as string;
    assert.match(secondCoder, /Your memory as the coder[\s\S]*coder lesson 1/);
    assert.doesNotMatch(script.calls('coder')[0].body.messages[0].content as string, /Your memory as the coder/);
    assert.match(script.calls('debugger')[0].body.messages[0].content as string, /^You are the debugger/);

    // Persisted: a new app over the same storage folder sees them.
    const reopened = await openApp(settingsWith(), h.dir);
    try {
      assert.deepEqual(reopened.app.roleMemories().map((m) => m.updates), [2, 1]);
    } finally {
      reopened.app.dispose();
    }

    h.app.resetRoleMemory('coder');
    const afterReset = h.app.roleMemories();
    assert.deepEqual([afterReset[0].lessons, afterReset[0].validPatterns, afterReset[0].updates], [[], [], 0]);
    assert.equal(afterReset[1].updates, 1, 'the other role is untouched');
    script.coder.push({ reply: jsReply(CORRECT) });
    await h.app.runTask(TASK.question);
    assert.doesNotMatch(script.calls('coder')[2].body.messages[0].content as string, /coder lesson [123]/, 'the reset memory is no longer injected');
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
