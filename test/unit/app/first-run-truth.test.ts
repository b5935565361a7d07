/**
 * Issue 22, the core half of "a first run that tells the truth": who awaits approval (one
 * definition), why a deletion preview deletes nothing, which database paths are refused,
 * and the question length rule. The editor half runs in the extension host
 * (test/integration/first-run.test.ts) and in Chromium (test/e2e/memory-workflow.test.ts).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MAX_QUESTION_LENGTH, questionProblem } from '../../../src/core/agent/question';
import { awaitsApproval } from '../../../src/core/agent/task-verdict';
import { databasePathProblem } from '../../../src/core/memory/sqlite/database-path';
import { importJsonl } from '../../../src/core/memory/io/jsonl';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { emptyPlanReason } from '../../../src/core/policy/deletion/empty-reason';
import { AppHandle, openApp, settingsWith } from '../agent/agent-fixture';

describe('issue 22: a first run that tells the truth (core)', function () {
  this.timeout(60_000);

  describe('awaitsApproval', () => {
    const human = { utility: null, evaluator: 'strict:human', log: {} };
    const status = (s: Record<string, string>) => (id: string) => s[id];
    it('a task whose model call failed (no record) awaits nothing', () => {
      assert.equal(awaitsApproval({ ...human, recordId: null }, status({})), false);
    });
    it('a task whose record is pending awaits approval; once the record is active (approved, or merged into an approved one) it does not', () => {
      assert.equal(awaitsApproval({ ...human, recordId: 'r' }, status({ r: 'pending' })), true);
      assert.equal(awaitsApproval({ ...human, recordId: 'r' }, status({ r: 'active' })), false);
    });
    it('a gold-checked task never "awaits approval" as its verdict', () => {
      assert.equal(awaitsApproval({ ...human, log: { correct: 1 }, recordId: 'r' }, status({ r: 'pending' })), false);
    });
  });

  describe('dashboard: a merged record that was approved', () => {
    let h: AppHandle;
    before(async () => {
      h = await openApp(settingsWith({ addition: { policy: 'strict' } }));
      await h.app.seedDemoMemory(20);
    });
    after(() => h.dispose());

    it('the same question twice merges into one pending record; after approving it nothing awaits approval', async () => {
      const q = 'How many patients were admitted in 2104?';
      const a = await h.app.runTask(q);
      const b = await h.app.runTask(q);
      assert.equal(b.addition.recordId, a.addition.recordId, `merged: ${b.addition.reason}`);
      assert.equal(h.app.dashboard().summary.awaitingApproval, 2, 'both tasks wait for the one pending record');
      h.app.approve([a.addition.recordId!]);
      const d = h.app.dashboard();
      assert.equal(d.summary.awaitingApproval, 0);
      assert.doesNotMatch(d.summaryText, /await your approval/);
    });
  });

  describe('emptyPlanReason', () => {
    it('periodic window not yet full: names the period and the tasks run', () => {
      const why = emptyPlanReason({ policy: 'combined', taskIndex: 33, total: 0, candidates: [], params: { period: 200, alpha: 0, minRetrievals: 3, beta: 0.3, protectSeeds: true } });
      assert.match(why, /The periodic window needs 200 tasks and 33 have run/);
      assert.match(why, /retrieved at least 3 times with a mean utility at or below 0\.3 \(mean Φ ≤ β\)/);
      assert.match(why, /Seed records are protected/);
    });
    it('says nothing when the plan has candidates', () => {
      assert.equal(emptyPlanReason({ policy: 'periodic', taskIndex: 300, total: 2, candidates: [1, 2], params: { period: 200, alpha: 0 } }), '');
    });
    it('past the window: every old record was retrieved often enough', () => {
      assert.match(emptyPlanReason({ policy: 'periodic', taskIndex: 300, total: 0, candidates: [], params: { period: 200, alpha: 1, protectSeeds: false } }), /retrieved more than 1 time in the last 200 tasks/);
    });
  });

  describe('databasePathProblem', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-dbpath-'));
    const file = path.join(dir, 'a-file.txt');
    fs.writeFileSync(file, 'x');
    it('a path under a file is refused, naming the file', () => {
      const p = databasePathProblem(path.join(file, 'sub', 'memory.db'));
      assert.equal(p?.kind, 'under-a-file');
      assert.match(p?.message ?? '', new RegExp(`${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}, which is a file`));
    });
    it('a path in a missing folder is refused, naming the folder; nothing is created', () => {
      const missing = path.join(dir, 'no-such-folder');
      const p = databasePathProblem(path.join(missing, 'memory.db'));
      assert.deepEqual([p?.kind, p?.kind === 'missing-folder' ? p.folder : ''], ['missing-folder', missing]);
      assert.equal(fs.existsSync(missing), false);
    });
    it('a folder is refused; a new file in an existing folder and :memory: are fine', () => {
      assert.equal(databasePathProblem(dir)?.kind, 'is-a-folder');
      assert.equal(databasePathProblem(path.join(dir, 'new.db')), undefined);
      assert.equal(databasePathProblem(':memory:'), undefined);
    });
  });

  it('questionProblem: empty and over-long questions are refused with the length', () => {
    assert.match(questionProblem('  ') ?? '', /empty/);
    assert.equal(questionProblem('x'.repeat(MAX_QUESTION_LENGTH)), undefined);
    assert.match(questionProblem('x'.repeat(10_000)) ?? '', /at most 500 characters \(this one has 10000\)/);
  });
});

describe('issue 22: import names every bad line in words', () => {
  it('two bad lines: both listed with their line numbers, no validator jargon, nothing imported', () => {
    const good = JSON.stringify({ id: 'ok-1', question: 'q', status: 'active', provenance: 'agent', createdTask: 1, createdAt: '2026-11-24T01:02:03.000Z', updatedAt: '2026-11-24T01:02:03.000Z', execution: { code: 'x = 1', language: 'python', outcome: 'success' } });
    const missing = JSON.stringify({ id: 'bad-1', status: 'active', provenance: 'agent', createdTask: 1, createdAt: '2026-11-24T01:02:03.000Z', updatedAt: '2026-11-24T01:02:03.000Z', execution: { code: 'x', language: 'python', outcome: 'success' } });
    const badOutcome = JSON.stringify({ id: 'bad-2', question: 'q2', status: 'active', provenance: 'agent', createdTask: 1, createdAt: '2026-11-24T01:02:03.000Z', updatedAt: '2026-11-24T01:02:03.000Z', execution: { code: 'x', language: 'python', outcome: 'great' } });
    const store = MemoryStore.open(':memory:');
    assert.throws(
      () => importJsonl(store, [good, missing, good.replace('ok-1', 'ok-2'), badOutcome, '{oops'].join('\n')),
      (e: unknown) => {
        const m = (e as Error).message;
        assert.match(m, /^Line 2: field 'question': is missing; Line 4: field 'execution\.outcome': must be one of .*"success".*; Line 5: not valid JSON/);
        assert.match(m, /Nothing was imported; fix the 3 bad lines and import again\.$/);
        assert.doesNotMatch(m, /Invalid input|expected string|received undefined/);
        return true;
      },
    );
    assert.deepEqual(store.counts(), { pending: 0, active: 0, deleted: 0 });
  });
});
