import { strict as assert } from 'node:assert';
import { approvePending, decideAddition, rejectPending } from '../../../src/core/policy/addition';
import { MemoryManager } from '../../../src/core/policy/memory-manager';
import { recordAlignment, taskSimilarity } from '../../../src/core/policy/metrics';
import type { Evaluation } from '../../../src/core/policy/utility';
import { sampleRecord } from '../../support/records';
import { History } from './history-helpers';

const gt = (utility: number): Evaluation => ({ utility, evaluator: 'strict:ground-truth', reason: 'test' });
const self = (utility: number): Evaluation => ({ utility, evaluator: 'coarse:self', reason: 'test' });

describe('addition policies', () => {
  it('fixed never adds, all always adds active', () => {
    assert.equal(decideAddition('fixed', { outcome: 'success' }, gt(1)).add, false);
    assert.deepEqual([decideAddition('all', { outcome: 'error' }, null).add, decideAddition('all', { outcome: 'error' }, null).status], [true, 'active']);
  });
  it('coarse follows the automatic evaluator', () => {
    assert.equal(decideAddition('coarse', { outcome: 'success' }, self(1)).status, 'active');
    assert.equal(decideAddition('coarse', { outcome: 'success' }, self(0)).add, false);
    assert.equal(decideAddition('coarse', { outcome: 'success' }, null).add, false);
  });
  it('strict: benchmark stores only correct tasks; editor stores pending until a verdict', () => {
    assert.equal(decideAddition('strict', { outcome: 'success' }, gt(1), 'benchmark').status, 'active');
    assert.equal(decideAddition('strict', { outcome: 'success' }, gt(0), 'benchmark').add, false);
    assert.equal(decideAddition('strict', { outcome: 'success' }, self(1), 'benchmark').add, false);
    assert.equal(decideAddition('strict', { outcome: 'success' }, self(1), 'editor').status, 'pending');
    assert.equal(decideAddition('strict', { outcome: 'success' }, null, 'editor').status, 'pending');
    assert.equal(decideAddition('strict', { outcome: 'success' }, { utility: 0, evaluator: 'strict:human', reason: '' }, 'editor').add, false);
  });
  it('approve and reject pending records in batches, with audit entries', () => {
    const h = new History();
    h.record('p1', 1, 'agent', 'pending');
    h.record('p2', 1, 'agent', 'pending');
    h.record('p3', 1, 'agent', 'pending');
    approvePending(h.store, ['p1', 'p2'], { reason: 'checked' });
    rejectPending(h.store, ['p3']);
    assert.deepEqual(['p1', 'p2', 'p3'].map((id) => h.store.require(id).status), ['active', 'active', 'deleted']);
    assert.equal(h.store.audit({ recordId: 'p1' })[0].operation, 'approve');
    assert.equal(h.store.audit({ recordId: 'p1' })[0].reason, 'checked');
    assert.equal(h.store.audit({ recordId: 'p3' })[0].operation, 'reject');
    h.close();
  });
});

describe('experience-following metrics', () => {
  const sim = (a: string, b: string) => (a === b ? 1 : 0.25);
  it('input = max retrieved similarity; output = similarity to the top record code', () => {
    const s = taskSimilarity([
      { recordId: 'a', inputSimilarity: 0.5, code: 'same' },
      { recordId: 'b', inputSimilarity: 0.9, code: 'other' },
    ], 'same', 'python', sim);
    assert.deepEqual(s, { inputSimilarity: 0.9, outputSimilarity: 0.25, topRecordId: 'b' });
    assert.deepEqual(taskSimilarity([], 'x', 'python', sim), { inputSimilarity: null, outputSimilarity: null, topRecordId: null });
  });
  it('passes reference first, candidate second', () => {
    const calls: string[][] = [];
    taskSimilarity([{ recordId: 'a', inputSimilarity: 0.5, code: 'REF' }], 'CAND', 'javascript', (r, c, l) => { calls.push([r, c, l]); return 0.5; });
    assert.deepEqual(calls, [['REF', 'CAND', 'javascript']]);
  });
});

describe('MemoryManager.afterTask', () => {
  let h: History;
  beforeEach(() => (h = new History()));
  afterEach(() => h.close());

  it('writes Φ on the retrieval rows, output similarity, adds the record and logs the task', () => {
    h.record('demo', 0, 'seed');
    const manager = new MemoryManager(h.store, { addition: 'strict', mode: 'benchmark', codeSimilarity: () => 0.3 });
    const t = h.tasks.begin('how many patients?');
    h.tasks.logRetrievals(t, [{ recordId: 'demo', rank: 0, inputSimilarity: 0.9 }]);
    const result = manager.afterTask({ taskIndex: t, retrieved: [{ recordId: 'demo', inputSimilarity: 0.9, code: 'x', shown: true }], evaluation: gt(1), candidate: sampleRecord({ question: 'how many patients?' }) });
    assert.equal(result.addition.status, 'active');
    const rec = h.store.require(result.addition.recordId!);
    assert.equal(rec.provenance, 'seed'); // sampleRecord sets provenance explicitly
    assert.equal(rec.createdTask, t);
    assert.equal(rec.execution.inputSimilarity, 0.9);
    assert.deepEqual(h.tasks.retrievalsOf('demo').map((r) => [r.utility, r.outputSimilarity]), [[1, 0.3]]);
    const task = h.tasks.get(t)!;
    assert.deepEqual([task.utility, task.evaluator, task.inputSimilarity, task.outputSimilarity, task.recordId], [1, 'strict:ground-truth', 0.9, 0.3, rec.id]);
    const demo = h.store.require('demo');
    assert.equal(recordAlignment(demo).misaligned, true); // mean in 0.9 ≥ 0.6, mean out 0.3 ≤ 0.5
    manager.dispose();
  });

  it('refuses a task that was never begun, changing nothing', () => {
    const manager = new MemoryManager(h.store, { addition: 'all' });
    assert.throws(() => manager.afterTask({ taskIndex: 99, retrieved: [], evaluation: null, candidate: sampleRecord() }), /begin it/);
    assert.equal(h.store.counts().active, 0);
    manager.dispose();
  });

  it('strict in the editor stores a pending record that is not retrievable', () => {
    const manager = new MemoryManager(h.store, { addition: 'strict' });
    const t = h.tasks.begin('q');
    const r = manager.afterTask({ taskIndex: t, retrieved: [], evaluation: null, candidate: sampleRecord({ provenance: 'agent' }) });
    assert.equal(r.addition.status, 'pending');
    assert.equal(h.store.counts().pending, 1);
    manager.approve([r.addition.recordId!]);
    assert.equal(h.store.counts().active, 1);
    manager.dispose();
  });

  it('fires history deletion through the utility-drop rule on the 5th bad retrieval (≥ n = 5)', () => {
    h.record('bad', 0);
    h.record('keep', 0);
    const manager = new MemoryManager(h.store, { addition: 'fixed', deletion: 'history', deletionParams: { beta: 0.7 } });
    const outcomes = [];
    for (let i = 0; i < 5; i++) {
      const t = h.tasks.begin(`q${i}`);
      h.tasks.logRetrievals(t, [{ recordId: 'bad', rank: 0, inputSimilarity: 0.5 }]);
      outcomes.push(manager.afterTask({ taskIndex: t, retrieved: [{ recordId: 'bad', inputSimilarity: 0.5, shown: true }], evaluation: gt(0), candidate: null }));
    }
    assert.deepEqual(outcomes.slice(0, 4).map((o) => o.firings.length), [0, 0, 0, 0]);
    assert.deepEqual(outcomes[4].deletions.map((d) => [d.ruleId, d.policy, d.recordIds]), [['utility-drop', 'history', ['bad']]]);
    assert.equal(h.store.audit({ recordId: 'bad' })[0].trigger, 'rule:utility-drop');
    manager.dispose();
  });

  it('with the fixed window, runs combined deletion every period and remembers the last run across managers', () => {
    h.record('stale', 0);
    h.record('fresh', 5);
    const opts = { addition: 'fixed' as const, deletion: 'combined' as const, deletionParams: { period: 5 }, periodicWindow: 'fixed' as const };
    let manager = new MemoryManager(h.store, opts);
    const run = () => { const t = h.tasks.begin('q'); return manager.afterTask({ taskIndex: t, retrieved: [], evaluation: gt(1), candidate: null }); };
    const results = [run(), run(), run(), run(), run()];
    assert.deepEqual(results.map((r) => r.firings.map((f) => f.ruleId)), [[], [], [], [], ['periodic-deletion']]);
    assert.deepEqual(results[4].deletions[0].recordIds, ['stale']);
    manager.dispose();
    manager = new MemoryManager(h.store, opts);
    assert.deepEqual(run().firings, []);
    manager.dispose();
  });

  it('capacity rule keeps the active memory at the cap after additions', () => {
    const manager = new MemoryManager(h.store, { addition: 'all', deletion: 'capacity', deletionParams: { capacity: 3 } });
    for (let i = 0; i < 6; i++) {
      const t = h.tasks.begin(`q${i}`);
      manager.afterTask({ taskIndex: t, retrieved: [], evaluation: null, candidate: sampleRecord({ id: `r${i}`, provenance: 'agent' }) });
      assert.ok(h.store.counts().active <= 3);
    }
    // Never-retrieved ties go oldest first: the three newest remain.
    assert.deepEqual(h.store.list({ status: 'active' }).items.map((r) => r.id).sort(), ['r3', 'r4', 'r5']);
    // A record added behind the manager's back is counted too.
    h.store.add([sampleRecord({ id: 'outside', provenance: 'user', createdTask: 7 })], { trigger: 'user' });
    const t = h.tasks.begin('q');
    manager.afterTask({ taskIndex: t, retrieved: [], evaluation: null, candidate: null });
    assert.equal(h.store.counts().active, 3);
    manager.dispose();
  });
});
