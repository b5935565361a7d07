/**
 * Undo of an approval or a rejection takes the human verdict back: the Φ it credited to the
 * records the task was shown, the retrieval rows and the task row return to their state before
 * the verdict, in the same transaction as the status change. Real SQLite file, real policies.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MemoryPolicies } from '../../../src/core/app/memory-policies';
import { SettingsSession } from '../../../src/core/app/settings-session';
import { nullLogger } from '../../../src/core/logger';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { SettingsSchema } from '../../../src/core/settings';
import { sampleRecord } from '../../support/records';

describe('undo of an approval / rejection restores the utility state (real SQLite file)', () => {
  let dir: string;
  let store: MemoryStore;
  let policies: MemoryPolicies;
  let session: SettingsSession;
  let demo: string;
  let pending: string;
  const PENDING_TASK = 3;

  const tasks = () => policies.manager.tasks;
  const meanPhi = (id: string) => store.require(id).stats.meanUtility;
  const evaluated = (id: string) => store.require(id).stats.evaluatedCount;
  const historyCandidates = () => policies.planDeletion('history').candidates.map((c) => c.recordId);

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'undo-verdict-'));
    store = MemoryStore.open(path.join(dir, 'memory.sqlite'));
    // History rule: retrieved more than 2 times and mean Φ below 0.4.
    const settings = SettingsSchema.parse({ model: {}, retrieval: {}, addition: { policy: 'strict' }, deletion: { historyMinRetrievals: 2, historyBetaStrict: 0.4, minActiveRecords: 0 }, runner: {}, agent: {}, misaligned: {} });
    session = new SettingsSession(settings, undefined);
    policies = new MemoryPolicies(store, session, nullLogger);
    [{ id: demo }] = store.add([sampleRecord({ id: 'demo' })], { trigger: 'user' });
    // Tasks 1 and 2 were shown the demonstration and got Φ 1 and Φ 0 (gold): mean Φ 1/2.
    for (const phi of [1, 0]) {
      const t = tasks().begin(`question ${phi}`);
      tasks().logRetrievals(t, [{ recordId: demo, rank: 0, inputSimilarity: 0.9 }]);
      tasks().markAttribution(t, [{ recordId: demo, shown: true, followed: null }]);
      tasks().setUtility(t, phi, 'strict:ground-truth');
    }
    // Task 3 was shown it too; under strict its Φ waits for the human; its record is pending.
    const t3 = tasks().begin('how many patients were admitted in 2105?');
    assert.equal(t3, PENDING_TASK);
    tasks().logRetrievals(t3, [{ recordId: demo, rank: 0, inputSimilarity: 0.8 }]);
    tasks().markAttribution(t3, [{ recordId: demo, shown: true, followed: null }]);
    [{ id: pending }] = store.add([sampleRecord({ question: 'how many patients were admitted in 2105?', status: 'pending', provenance: 'agent', createdTask: t3, metadata: { taskIndex: t3 } })], { trigger: 'agent' });
  });

  afterEach(() => {
    policies.dispose();
    session.dispose();
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('approve: mean Φ 1/2 → 2/3; undo: back to 1/2 over 2 retrievals, the task without a verdict', () => {
    assert.equal(meanPhi(demo), 1 / 2);
    assert.equal(evaluated(demo), 2);
    policies.approve([pending]);
    assert.equal(store.require(pending).status, 'active');
    assert.equal(meanPhi(demo), 2 / 3);
    assert.equal(evaluated(demo), 3);
    assert.deepEqual([tasks().get(PENDING_TASK)?.utility, tasks().get(PENDING_TASK)?.evaluator], [1, 'strict:human']);

    policies.unapprove([pending]);
    assert.equal(store.require(pending).status, 'pending');
    assert.equal(meanPhi(demo), 1 / 2);
    assert.equal(evaluated(demo), 2);
    assert.deepEqual([tasks().get(PENDING_TASK)?.utility, tasks().get(PENDING_TASK)?.evaluator], [null, null]);
    assert.deepEqual(tasks().retrievalsOf(demo).map((r) => [r.taskIndex, r.utility]), [[3, null], [2, 0], [1, 1]]);
    // The records' counters agree with the retrieval log they summarise.
    assert.equal(store.require(demo).stats.retrievalCount, 3);
  });

  it('reject: mean Φ 1/2 → 1/3 (the history rule fires); undo: back to 1/2 (it does not), record pending', () => {
    assert.deepEqual(historyCandidates(), []);
    policies.reject([pending]);
    assert.equal(store.require(pending).status, 'deleted');
    assert.equal(meanPhi(demo), 1 / 3);
    assert.deepEqual(historyCandidates(), [demo], 'mean Φ 1/3 < β 0.4 over 3 retrievals');

    policies.unreject([pending]);
    assert.equal(store.require(pending).status, 'pending');
    assert.equal(meanPhi(demo), 1 / 2);
    assert.equal(evaluated(demo), 2);
    assert.equal(tasks().get(PENDING_TASK)?.utility, null);
    assert.deepEqual(historyCandidates(), [], 'the withdrawn rejection no longer counts');
    // And the record can be judged again: the new verdict is credited once.
    policies.approve([pending]);
    assert.equal(meanPhi(demo), 2 / 3);
  });

  it('undo of an approval whose task already had a Φ (gold, bench mode) leaves that Φ alone', () => {
    tasks().setUtility(PENDING_TASK, 0, 'strict:ground-truth');
    assert.equal(meanPhi(demo), 1 / 3);
    policies.approve([pending]);
    assert.equal(meanPhi(demo), 1 / 3, 'the approval does not replace a gold Φ');
    policies.unapprove([pending]);
    assert.equal(meanPhi(demo), 1 / 3);
    assert.deepEqual([tasks().get(PENDING_TASK)?.utility, tasks().get(PENDING_TASK)?.evaluator], [0, 'strict:ground-truth']);
  });

  it('status change and Φ are one transaction: when taking the Φ back fails, the status change rolls back too', () => {
    policies.approve([pending]);
    const log = tasks();
    const original = log.withdrawUtility.bind(log);
    log.withdrawUtility = () => {
      throw new Error('disk full (injected)');
    };
    try {
      assert.throws(() => policies.unapprove([pending]), /disk full/);
    } finally {
      log.withdrawUtility = original;
    }
    assert.equal(store.require(pending).status, 'active', 'the status change was rolled back');
    assert.equal(meanPhi(demo), 2 / 3);
    policies.unapprove([pending]);
    assert.equal(store.require(pending).status, 'pending');
    assert.equal(meanPhi(demo), 1 / 2);
  });
});
