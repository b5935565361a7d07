import * as assert from 'node:assert/strict';
import { SettingsSession } from '../../../src/core/app/settings-session';
import { SettingsSchema } from '../../../src/core/settings';
import { startFakeOpenAI, type FakeOpenAI } from '../../support/fake-openai-server';
import { AgentScript, AppHandle, ehrTask, jsReply, openApp, settingsWith } from '../agent/agent-fixture';

const TASK = ehrTask('769483cfab48dda44872f850'); // "What is the administration method for danazol?" → [["po"]]
const CORRECT = `const rows = sql("select distinct prescriptions.route from prescriptions where prescriptions.drug = 'danazol'");\nanswer = rows;`;

describe('settings apply between tasks, never mid-task', function () {
  this.timeout(60_000);

  it('SettingsSession: a change during a task waits for it, the newest pending change wins, then it applies once', async () => {
    const base = SettingsSchema.parse({ model: {}, retrieval: {}, addition: {}, deletion: {}, runner: {}, agent: {}, misaligned: {} });
    const session = new SettingsSession(base, undefined);
    const applied: number[] = [];
    session.onDidApply(({ settings }) => applied.push(settings.retrieval.k));
    let seenInside = 0;
    await session.runTask(async (settings) => {
      assert.equal(session.configure({ ...base, retrieval: { ...base.retrieval, k: 7 } }, undefined), 'deferred');
      assert.equal(session.configure({ ...base, retrieval: { ...base.retrieval, k: 9 } }, 'key'), 'deferred');
      await new Promise((r) => setTimeout(r, 5));
      seenInside = session.settings.retrieval.k;
      assert.equal(settings.retrieval.k, 4);
    });
    assert.equal(seenInside, 4, 'the running task kept its settings');
    assert.deepEqual(applied, [9], 'applied once, after the task, with the newest change');
    assert.equal(session.settings.retrieval.k, 9);
    assert.equal(session.apiKey, 'key');
    assert.equal(session.configure({ ...base, retrieval: { ...base.retrieval, k: 3 } }, undefined), 'applied', 'no task running: at once');
    assert.deepEqual(applied, [9, 3]);
    session.dispose();
  });

  describe('through the app (createApp, real runners, fake OpenAI endpoint)', () => {
    let fake: FakeOpenAI;
    let script: AgentScript;
    let h: AppHandle;
    beforeEach(async () => {
      fake = await startFakeOpenAI();
      script = new AgentScript(fake);
      h = await openApp(settingsWith({ model: { baseUrl: fake.baseURL, name: 'fake-coder-1' }, agent: { maxDebugRounds: 0 } }));
      await h.app.seedDemoMemory(20);
    });
    afterEach(async () => {
      h?.dispose();
      await fake?.close();
    });

    it('a change made while the model is thinking neither disposes the running task\'s runner nor is lost: it applies to the next task', async () => {
      script.coder.push({ reply: jsReply(CORRECT), delayMs: 1500 });
      const running = h.app.runTask(TASK.question, { groundTruth: TASK.answer });
      // Wait until the model has the request (it answers 1.5 s later): the task is mid-way.
      for (let waited = 0; script.calls('coder').length === 0 && waited < 30_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
      assert.equal(script.calls('coder').length, 1, 'the task is waiting for the model');
      // Switch to the python runner and the offline reuse model mid-task.
      const next = settingsWith({ agent: { maxDebugRounds: 0 }, addition: { policy: 'fixed' } });
      h.app.configure({ ...next, runner: { ...next.runner, language: 'python' } });
      const first = await running;
      assert.equal(first.outcome, 'success', `the JavaScript program ran on the task's own runner (${first.error ?? ''})`);
      assert.equal(first.language, 'javascript');
      assert.equal(first.modelKind, 'llm');
      assert.deepEqual(first.verdict, { kind: 'correct', source: 'gold' });
      assert.equal(first.addition.added, true, "the task's own addition policy (strict, correct answer: added), not the new 'fixed'");

      const second = await h.app.runTask(TASK.question);
      assert.equal(second.language, 'python', 'the change applied after the first task');
      assert.equal(second.modelKind, 'reuse');
      assert.equal(second.addition.added, false, "the new addition policy 'fixed' adds nothing");
      assert.equal(script.calls('coder').length, 1, 'the reuse model made no model call');
    });
  });
});
