/**
 * The dashboard shows the verdict the toasts and the stream summary show (one source: the
 * task log row, read through taskVerdict): an editor stream's gold-checked tasks are correct /
 * wrong at once, before any approval, and stay so after the user approves or rejects their
 * records (the approval is counted on its own, never as the gold verdict). The gold answer is
 * the task's Φ at once: the records it was shown are credited before any approval.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { AgentTaskResult } from '../../../src/core/app/types';
import { demoStream, readDemoTasks } from '../../../src/core/data/ehr-tasks';
import { streamCounts } from '../../../src/vscode/text/result-text';
import { AppHandle, DATA_DIR, openApp, settingsWith } from '../agent/agent-fixture';

describe('dashboard verdicts agree with the task results (editor stream, strict, human review)', function () {
  this.timeout(60_000);
  let h: AppHandle;
  let results: AgentTaskResult[];

  before(async () => {
    h = await openApp(settingsWith({ addition: { policy: 'strict' } }));
    await h.app.seedDemoMemory(30);
    const stream = demoStream(readDemoTasks(path.join(DATA_DIR, 'ehrsql-mimic3-tasks.jsonl'))).slice(0, 8);
    results = await h.app.runStream(stream, { humanReview: true });
  });
  after(() => h.dispose());

  const byTask = () => new Map(h.app.dashboard().tasks.map((t) => [t.taskIndex, t]));

  it('before any approval: each task shows its gold verdict, the summary counts what the stream summary counts', () => {
    assert.equal(results.length, 8);
    assert.ok(results.every((r) => r.verdict.source === 'gold' && r.addition.status !== 'active'), 'gold-checked, nothing approved yet');
    const d = h.app.dashboard();
    const tasks = byTask();
    for (const r of results) {
      assert.deepEqual(tasks.get(r.taskIndex)?.verdict, r.verdict, `task ${r.taskIndex}`);
      assert.equal(tasks.get(r.taskIndex)?.decision, null);
      assert.equal(tasks.get(r.taskIndex)?.utility, r.verdict.kind === 'correct' ? 1 : 0, 'the gold answer is the task\'s Φ at once (only the record waits for the human)');
    }
    // The records the tasks were shown learn from the gold answers at once, before any approval (issue 38: Φ stayed "–").
    const shown = new Set(results.flatMap((r) => r.demonstrations.filter((d) => d.shown).map((d) => d.recordId)));
    assert.ok(shown.size > 0, 'the tasks were shown demonstrations');
    assert.ok([...shown].some((id) => h.app.get(id)?.stats.meanUtility !== null), 'a shown record has a Φ from the gold answers');
    const c = streamCounts(results);
    assert.deepEqual([d.summary.correct, d.summary.wrong, d.summary.unchecked, d.summary.ran], [c.correct, c.wrong, 0, c.ran]);
    assert.equal(d.accuracyCurve.length, results.length, 'every gold-checked task counts towards accuracy');
    assert.equal(d.accuracyCurve[d.accuracyCurve.length - 1].accuracy, c.correct / results.length);
    assert.deepEqual(d.outcomeCurve[d.outcomeCurve.length - 1], { taskIndex: results[results.length - 1].taskIndex, ran: c.ran, correct: c.correct, wrong: c.wrong });
    assert.equal(d.summaryText, `8 tasks · ${c.ran} ran · ${c.correct} correct · ${c.wrong} wrong (8 checked against a non-empty gold answer) · 0 not checked`);
  });

  it('after the user approves every pending record: the gold verdicts stand, the approvals are counted apart', () => {
    const pending = results.filter((r) => r.addition.status === 'pending');
    assert.ok(pending.length > 0, 'the stream left pending records');
    h.app.approve(pending.map((r) => r.addition.recordId!));
    const d = h.app.dashboard();
    const tasks = byTask();
    for (const r of results) assert.deepEqual(tasks.get(r.taskIndex)?.verdict, r.verdict, `task ${r.taskIndex}: approving does not turn a gold verdict into the human's`);
    for (const r of pending) assert.deepEqual([tasks.get(r.taskIndex)?.decision, tasks.get(r.taskIndex)?.utility], ['approved', r.verdict.kind === 'correct' ? 1 : 0], 'the approval is logged beside the gold Φ, which stands');
    const c = streamCounts(results);
    assert.deepEqual([d.summary.correct, d.summary.wrong, d.summary.approved, d.summary.youApproved], [c.correct, c.wrong, 0, pending.length]);
    assert.match(d.summaryText, new RegExp(`· ${c.correct} correct · ${c.wrong} wrong \\(8 checked against a non-empty gold answer\\) · 0 not checked · you approved ${pending.length}$`));
  });

  it('a task without a gold answer: not checked (awaits approval) until the user decides, then approved by you', async () => {
    const r = await h.app.runTask('How many patients were admitted in 2104?');
    assert.deepEqual(r.verdict, { kind: 'unknown', source: 'human' });
    assert.deepEqual(byTask().get(r.taskIndex)?.verdict, r.verdict);
    assert.equal(h.app.dashboard().summary.awaitingApproval, 1);
    assert.match(h.app.dashboard().summaryText, /· 1 not checked \(1 await your approval\)/);
    h.app.reject([r.addition.recordId!]);
    assert.deepEqual(byTask().get(r.taskIndex)?.verdict, { kind: 'rejected', source: 'human' });
    assert.equal(h.app.dashboard().summary.rejected, 1);
  });
});
