import { strict as assert } from 'node:assert';
import { applyDeletionPlan, planDeletion, planPeriodic } from '../../../src/core/policy/deletion';
import { MemoryManager } from '../../../src/core/policy/memory-manager';
import type { Evaluation } from '../../../src/core/policy/utility';
import { sampleRecord } from '../../support/records';
import { History } from './history-helpers';

const gt = (utility: number): Evaluation => ({ utility, evaluator: 'strict:ground-truth', reason: 'test' });
const active = (h: History) => h.store.list({ status: 'active' }).items.map((r) => r.id).sort();

describe('memory floor (agentMemory.deletion.minActiveRecords)', () => {
  let h: History;
  beforeEach(() => (h = new History()));
  afterEach(() => h.close());

  it('a plan never takes the memory below the floor, and says which records the floor kept', () => {
    // Hand computation: 3 active records, all created at task 0, never retrieved; periodic at t = 400
    // (window (200, 400]) selects all 3, oldest first: a, b, c. Floor 1 → at most 3 − 1 = 2 go: a, b; c is kept.
    // Floor 2 → 1 goes (a); b and c are kept.
    h.record('a', 0);
    h.record('b', 0);
    h.record('c', 0);
    assert.equal(planPeriodic(h.store, { taskIndex: 400 }).total, 3);
    const plan = planDeletion(h.store, 'periodic', 400);
    assert.deepEqual(plan.candidates.map((c) => c.recordId), ['a', 'b']);
    assert.equal(plan.total, 2);
    assert.equal(plan.floor?.minActiveRecords, 1);
    assert.equal(plan.floor?.keptCount, 1);
    assert.deepEqual(plan.floor?.kept.map((c) => c.recordId), ['c']);
    assert.match(plan.floor?.sentence ?? '', /minActiveRecords = 1\) kept 1 of the 3 record\(s\) the periodic rule selected, so that 1 active record\(s\) remain: 'question for c'/);
    const two = planDeletion(h.store, 'periodic', 400, { minActiveRecords: 2 });
    assert.deepEqual(two.candidates.map((c) => c.recordId), ['a']);
    assert.deepEqual(two.floor?.kept.map((c) => c.recordId), ['b', 'c']);
    // No floor note when the floor keeps nothing.
    assert.equal(planDeletion(h.store, 'periodic', 400, { minActiveRecords: 0 }).floor, null);
  });

  it('apply enforces the floor even for a plan made without it (the memory may have shrunk since)', () => {
    // The raw planner (no floor) selects a, b, c; apply deletes 3 − 1 = 2 of them in plan order.
    h.record('a', 0);
    h.record('b', 0);
    h.record('c', 0);
    const result = applyDeletionPlan(h.store, planPeriodic(h.store, { taskIndex: 400 }));
    assert.deepEqual(result, { deleted: ['a', 'b'], skipped: [], floorKept: ['c'] });
    assert.deepEqual(active(h), ['c']);
  });

  it('rule-fired history deletion stops at the floor: the last record is kept', () => {
    // Hand computation: one active record 'only' retrieved and shown 5 times at Φ 0 → the history rule (n = 5,
    // β = 0.7) selects it at task 5, but 1 − 1 = 0 may go: the floor keeps it and the run says so.
    h.record('only', 0);
    const manager = new MemoryManager(h.store, { addition: 'fixed', deletion: 'history' });
    let last;
    for (let i = 0; i < 5; i++) {
      const t = h.tasks.begin(`q${i}`);
      h.tasks.logRetrievals(t, [{ recordId: 'only', rank: 0, inputSimilarity: 0.5 }]);
      last = manager.afterTask({ taskIndex: t, retrieved: [{ recordId: 'only', inputSimilarity: 0.5, shown: true }], evaluation: gt(0), candidate: null });
    }
    assert.deepEqual(last?.deletions.map((d) => [d.ruleId, d.recordIds, d.floorKept]), [['utility-drop', [], ['only']]]);
    assert.deepEqual(active(h), ['only']);
    manager.dispose();
  });

  it('the capacity policy also stops at the floor', () => {
    // cap 0 with 2 records created at task 10 (too young for periodic at t = 11): §6.2 removes one (least utility,
    // never evaluated → older first: x); at the next task the floor of 1 keeps y.
    h.record('x', 10);
    h.record('y', 10);
    const manager = new MemoryManager(h.store, { addition: 'fixed', deletion: 'capacity', deletionParams: { capacity: 0 } });
    const run = () => manager.afterTask({ taskIndex: h.tasks.begin('q'), retrieved: [], evaluation: null, candidate: null });
    assert.deepEqual(run().deletions.map((d) => d.recordIds), [['x']]);
    assert.deepEqual(run().deletions.map((d) => [d.recordIds, d.floorKept]), [[[], ['y']]]);
    assert.deepEqual(active(h), ['y']);
    manager.dispose();
  });
});

describe('attribution of Φ to shown demonstrations', () => {
  let h: History;
  beforeEach(() => (h = new History()));
  afterEach(() => h.close());

  /** One task retrieving `shown` and `dropped` (dropped by the prompt budget), evaluated with Φ. */
  function task(manager: MemoryManager, phi: number, finalCode: string) {
    const t = h.tasks.begin('q');
    h.tasks.logRetrievals(t, [
      { recordId: 'shown', rank: 0, inputSimilarity: 0.9 },
      { recordId: 'dropped', rank: 1, inputSimilarity: 0.4 },
    ]);
    return manager.afterTask({
      taskIndex: t,
      retrieved: [
        { recordId: 'shown', inputSimilarity: 0.9, code: 'select a', shown: true },
        { recordId: 'dropped', inputSimilarity: 0.4, code: 'select b', shown: false },
      ],
      evaluation: gt(phi),
      candidate: null,
      finalCode,
      language: 'python',
    });
  }

  it("default 'shown': Φ goes to the records the prompt included, never to the dropped ones", () => {
    // Hand computation: two tasks with Φ 1 then 0 → shown: 2 evaluated retrievals, mean 0.5;
    // dropped: 2 retrievals, 0 evaluated, mean unknown.
    h.record('shown', 0);
    h.record('dropped', 0);
    const manager = new MemoryManager(h.store, { addition: 'fixed' });
    const first = task(manager, 1, 'select a');
    task(manager, 0, 'select a');
    assert.deepEqual(first.attribution, { attribution: 'shown', shown: ['shown'], credited: ['shown'], shownNotFollowed: [] });
    const s = h.store.require('shown').stats;
    const d = h.store.require('dropped').stats;
    assert.deepEqual([s.retrievalCount, s.evaluatedCount, s.meanUtility], [2, 2, 0.5]);
    assert.deepEqual([d.retrievalCount, d.evaluatedCount, d.meanUtility], [2, 0, null]);
    const log = h.tasks.retrievalsOf('dropped');
    assert.deepEqual(log.map((r) => [r.shown, r.utility]), [[false, null], [false, null]]);
    manager.dispose();
  });

  it("'followed' (beyond the paper): a shown record takes Φ only when the code follows it (similarity ≥ threshold)", () => {
    // Code similarity is 1 when the final code equals the record's code, else 0.2. followThreshold 0.5.
    // Task 1: final 'select a' follows 'shown' (1 ≥ 0.5) → Φ 1 credited.
    // Task 2: final 'select z' (0.2 < 0.5) → "shown, not followed": no Φ, not counted toward the mean.
    // So shown: 2 retrievals, 1 evaluated, mean 1; dropped: never shown, never credited.
    h.record('shown', 0);
    h.record('dropped', 0);
    const codeSimilarity = (reference: string, candidate: string) => (reference === candidate ? 1 : 0.2);
    const manager = new MemoryManager(h.store, { addition: 'fixed', attribution: 'followed', followThreshold: 0.5, codeSimilarity });
    const followed = task(manager, 1, 'select a');
    const notFollowed = task(manager, 0, 'select z');
    assert.deepEqual(followed.attribution.credited, ['shown']);
    assert.deepEqual(notFollowed.attribution, { attribution: 'followed', shown: ['shown'], credited: [], shownNotFollowed: ['shown'] });
    const s = h.store.require('shown').stats;
    assert.deepEqual([s.retrievalCount, s.evaluatedCount, s.meanUtility], [2, 1, 1]);
    assert.deepEqual(h.tasks.retrievalsOf('shown').map((r) => [r.taskIndex, r.shown, r.followed, r.utility]), [[2, true, false, null], [1, true, true, 1]]);
    assert.equal(h.store.require('dropped').stats.evaluatedCount, 0);
    manager.dispose();
  });

  it('only credited records feed the history rule', () => {
    // 'dropped' is retrieved in 5 failing tasks but never shown: 0 evaluated retrievals < n → never deleted;
    // 'shown' takes the 5 Φ = 0 and is deleted at the 5th task.
    h.record('shown', 0);
    h.record('dropped', 0);
    h.record('other', 0);
    const manager = new MemoryManager(h.store, { addition: 'fixed', deletion: 'history' });
    const deleted = Array.from({ length: 5 }, () => task(manager, 0, 'select a').deletions.flatMap((d) => d.recordIds));
    assert.deepEqual(deleted, [[], [], [], [], ['shown']]);
    assert.deepEqual(active(h), ['dropped', 'other']);
    manager.dispose();
  });
});

describe('periodic schedule (sliding window, the default)', () => {
  it('deletes a record as soon as it has gone a full period without retrieval, at any task', () => {
    // Hand computation, period 5, α 0: 'old' created at 0, retrieved (and shown) at task 2 only; 'young' created
    // at 4 and never retrieved. Sliding: after task t the window is (t − 5, t]:
    //   t = 5: old in window (2 ∈ (0,5]) → kept; young created 4 > 0 → too young.
    //   t = 6: window (1,6] holds task 2 → kept.   t = 7: window (2,7] → task 2 is out, created 0 ≤ 2 → deleted.
    //   t = 9: young created 4 ≤ 4, 0 retrievals → deleted — but the floor (1) keeps the last record: kept.
    // With the fixed window the rule would only run at 5 and 10 (so 'old' would survive until task 10).
    const h = new History();
    h.record('old', 0);
    h.record('young', 4);
    const manager = new MemoryManager(h.store, { addition: 'fixed', deletion: 'periodic', deletionParams: { period: 5 } });
    const deletedAt: Record<number, string[]> = {};
    for (let t = 1; t <= 10; t++) {
      const index = h.tasks.begin(`q${t}`);
      const retrieved = t === 2 ? [{ recordId: 'old', inputSimilarity: 0.5, shown: true }] : [];
      if (t === 2) h.tasks.logRetrievals(index, [{ recordId: 'old', rank: 0, inputSimilarity: 0.5 }]);
      const result = manager.afterTask({ taskIndex: index, retrieved, evaluation: gt(1), candidate: null });
      const ids = result.deletions.flatMap((d) => d.recordIds);
      if (ids.length) deletedAt[t] = ids;
    }
    assert.deepEqual(deletedAt, { 7: ['old'] });
    assert.deepEqual(active(h), ['young']);
    manager.dispose();
    h.close();
  });

  it('capacity (§6.2) after each task: periodic first, then one least-utility record only if still over', () => {
    // cap 2, addition 'all', period 100 (periodic never fires in 4 tasks). Tasks 1..4 each add r1..r4 (never
    // retrieved, mean unknown → older first). After task 3: 3 > 2 → r1 goes. After task 4: r2 goes.
    const h = new History();
    const manager = new MemoryManager(h.store, { addition: 'all', deletion: 'capacity', deletionParams: { capacity: 2, period: 100 } });
    const removed = [1, 2, 3, 4].map((i) => {
      const t = h.tasks.begin(`q${i}`);
      return manager.afterTask({ taskIndex: t, retrieved: [], evaluation: null, candidate: sampleRecord({ id: `r${i}`, provenance: 'agent' }) }).deletions.flatMap((d) => d.recordIds);
    });
    assert.deepEqual(removed, [[], [], ['r1'], ['r2']]);
    assert.deepEqual(active(h), ['r3', 'r4']);
    manager.dispose();
    h.close();
  });
});
