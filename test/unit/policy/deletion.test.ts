import { strict as assert } from 'node:assert';
import {
  applyDeletionPlan,
  planCapacity,
  planCombined,
  planDeletion,
  planForgetting,
  planHistory,
  planPeriodic,
  purgeRecords,
  restoreRecords,
  retention,
} from '../../../src/core/policy/deletion';
import { isAgentMemoryError } from '../../../src/core/errors';
import { History } from './history-helpers';

const ids = (plan: { candidates: { recordId: string }[] }) => plan.candidates.map((c) => c.recordId).sort();

describe('history-based deletion', () => {
  let h: History;
  beforeEach(() => (h = new History()));
  afterEach(() => h.close());

  it('deletes a record retrieved 6 times at mean 0.2, keeps one at 0.9', () => {
    h.record('bad', 0);
    h.record('good', 0);
    h.retrieveSeries('bad', 1, [0, 0, 1, 0, 0, 0.2]); // mean 0.2
    h.retrieveSeries('good', 11, [1, 1, 0.4, 1, 1, 1]); // mean 0.9
    const plan = planHistory(h.store, { taskIndex: 20, minRetrievals: 5, beta: 0.7 });
    assert.deepEqual(ids(plan), ['bad']);
    const ev = plan.candidates[0].evidence;
    assert.equal(ev.totalRetrievals, 6);
    assert.equal(ev.evaluatedRetrievals, 6);
    assert.ok(Math.abs((ev.meanUtility as number) - 0.2) < 1e-12);
    assert.equal(ev.ageTasks, 20);
    assert.equal(plan.candidates[0].rule, 'history');
    assert.equal(plan.candidates[0].question, 'question for bad');
  });

  it('fires at exactly n retrievals (freq ≥ n, the paper\'s text and code), not at n − 1', () => {
    // Hand computation: n = 5, β = 0.7. After 4 retrievals at Φ 0: freq 4 < 5 → kept.
    // After the 5th: freq 5 ≥ 5 and mean 0 ≤ 0.7 → deleted.
    h.record('five', 0);
    h.retrieveSeries('five', 1, [0, 0, 0, 0]);
    assert.deepEqual(ids(planHistory(h.store, { taskIndex: 10, minRetrievals: 5, beta: 0.7 })), []);
    h.retrieve(5, ['five'], 0);
    assert.deepEqual(ids(planHistory(h.store, { taskIndex: 10, minRetrievals: 5, beta: 0.7 })), ['five']);
  });

  it('deletes at mean exactly β (≤), keeps just above', () => {
    h.record('at', 0);
    h.record('above', 0);
    h.retrieveSeries('at', 1, [0.7, 0.7, 0.7, 0.7, 0.7, 0.7]); // floating sum 4.2000000000000002
    h.retrieveSeries('above', 11, [0.7, 0.7, 0.7, 0.7, 0.7, 0.71]);
    assert.deepEqual(ids(planHistory(h.store, { taskIndex: 20, beta: 0.7 })), ['at']);
    assert.deepEqual(ids(planHistory(h.store, { taskIndex: 20, beta: 0.3 })), []);
  });

  it('restricted to named records, considers only those', () => {
    h.record('a', 0);
    h.record('b', 0);
    h.retrieveSeries('a', 1, [0, 0, 0, 0, 0, 0]);
    h.retrieveSeries('b', 11, [0, 0, 0, 0, 0, 0]);
    assert.deepEqual(ids(planHistory(h.store, { taskIndex: 20, recordIds: ['b', 'missing'] })), ['b']);
    assert.deepEqual(ids(planHistory(h.store, { taskIndex: 20 })), ['a', 'b']);
  });

  it('counts only evaluated retrievals toward n', () => {
    h.record('r', 0);
    // 7 retrievals, 4 evaluated: 4 < n = 5 → kept.
    h.retrieveSeries('r', 1, [0, 0, 0, 0, null, null, null]);
    assert.deepEqual(ids(planHistory(h.store, { taskIndex: 10 })), []);
  });

  it('ignores pending and deleted records, and seeds when protected', () => {
    h.record('seed', 0, 'seed');
    h.record('pend', 0, 'agent', 'pending');
    h.record('gone', 0);
    h.retrieveSeries('seed', 1, [0, 0, 0, 0, 0, 0]);
    h.retrieveSeries('pend', 11, [0, 0, 0, 0, 0, 0]);
    h.retrieveSeries('gone', 21, [0, 0, 0, 0, 0, 0]);
    h.store.transition(['gone'], 'delete', { trigger: 'user' });
    assert.deepEqual(ids(planHistory(h.store, { taskIndex: 30 })), ['seed']);
    assert.deepEqual(ids(planHistory(h.store, { taskIndex: 30, protectSeeds: true })), []);
  });
});

describe('periodic deletion', () => {
  let h: History;
  beforeEach(() => (h = new History()));
  afterEach(() => h.close());

  it('deletes a record not retrieved during the last period, keeps one retrieved in it', () => {
    h.record('stale', 0);
    h.record('fresh', 0);
    h.retrieve(50, ['stale', 'fresh'], 1); // before the window (200, 400]
    h.retrieve(350, ['fresh'], 1);
    const plan = planPeriodic(h.store, { taskIndex: 400, period: 200, alpha: 0 });
    assert.deepEqual(ids(plan), ['stale']);
    assert.equal(plan.candidates[0].evidence.retrievalsInWindow, 0);
    assert.equal(plan.candidates[0].evidence.totalRetrievals, 1);
    assert.equal(plan.candidates[0].evidence.windowStart, 200);
  });

  it('window is (t − period, t]: a retrieval at t − period is outside, at t − period + 1 inside', () => {
    h.record('edge', 0);
    h.record('inside', 0);
    h.retrieve(200, ['edge'], 1);
    h.retrieve(201, ['inside'], 1);
    assert.deepEqual(ids(planPeriodic(h.store, { taskIndex: 400 })), ['edge']);
  });

  it('α boundary: deleted with exactly α retrievals in the window, kept with α + 1', () => {
    h.record('two', 0);
    h.record('three', 0);
    h.retrieve(300, ['two', 'three'], 1);
    h.retrieve(310, ['two', 'three'], 1);
    h.retrieve(320, ['three'], 1);
    assert.deepEqual(ids(planPeriodic(h.store, { taskIndex: 400, alpha: 2 })), ['two']);
    assert.deepEqual(ids(planPeriodic(h.store, { taskIndex: 400, alpha: 1 })), []);
  });

  it('keeps records younger than one period', () => {
    h.record('old', 200);
    h.record('young', 201);
    assert.deepEqual(ids(planPeriodic(h.store, { taskIndex: 400 })), ['old']);
  });

  it('protects seeds when asked', () => {
    h.record('seed', 0, 'seed');
    h.record('agent', 0);
    assert.deepEqual(ids(planPeriodic(h.store, { taskIndex: 400, protectSeeds: true })), ['agent']);
  });

  it('materializes at most `limit` candidates, oldest first, and counts the total', () => {
    for (let i = 0; i < 5; i++) h.record(`r${i}`, 10 - i);
    const plan = planPeriodic(h.store, { taskIndex: 400, limit: 2 });
    assert.equal(plan.total, 5);
    assert.equal(plan.truncated, true);
    assert.deepEqual(plan.candidates.map((c) => c.recordId), ['r4', 'r3']);
  });
});

describe('combined deletion', () => {
  let h: History;
  beforeEach(() => (h = new History()));
  afterEach(() => h.close());

  function build(): void {
    h.record('stale', 0); // periodic only
    h.record('bad', 0); // history only (retrieved in the window)
    h.record('both', 0); // both rules
    h.record('ok', 0); // neither
    h.retrieveSeries('both', 1, [0, 0, 0, 0, 0, 0]);
    h.retrieveSeries('bad', 301, [0, 0, 0, 0, 0, 0]);
    h.retrieve(350, ['ok'], 1);
  }

  it('default (either rule fires) removes periodic, history and both, labelled by rule', () => {
    build();
    const plan = planCombined(h.store, { taskIndex: 400 });
    const rules = Object.fromEntries(plan.candidates.map((c) => [c.recordId, c.rule]));
    assert.deepEqual(rules, { stale: 'periodic', bad: 'history', both: 'periodic+history' });
    assert.equal(plan.candidates.find((c) => c.recordId === 'bad')!.evidence.retrievalsInWindow, 6);
  });

  it("mode 'both' is the paper's product of indicators", () => {
    build();
    assert.deepEqual(ids(planCombined(h.store, { taskIndex: 400, mode: 'both' })), ['both']);
  });
});

describe('capacity-limited deletion', () => {
  let h: History;
  beforeEach(() => (h = new History()));
  afterEach(() => h.close());

  it('under capacity removes only what periodic deletion removes (§6.2 runs periodic after every task)', () => {
    h.record('a', 0);
    h.record('b', 0);
    // t = 100 < period: nothing is old enough for periodic, and 2 ≤ 2.
    assert.equal(planCapacity(h.store, { taskIndex: 100, capacity: 2 }).candidates.length, 0);
    // t = 500: both were created at 0 ≤ 300 and never retrieved in (300, 500] → periodic takes both, under the cap too.
    assert.deepEqual(planCapacity(h.store, { taskIndex: 500, capacity: 2 }).candidates.map((c) => c.rule), ['periodic', 'periodic']);
  });

  it('periodic first, then the SINGLE record with the least mean utility (ties: fewer retrievals, older); never-evaluated last', () => {
    // Hand computation at t = 500, period 200 (window (300, 500]), α = 0:
    //   stale (created 0, no retrieval in the window)      → periodic
    //   low  Φ 0.1 ×1 | mid-old Φ 0.5 ×2 | mid-new Φ 0.5 ×1 | high Φ 0.9 ×1 | never-old, never-new (created 310/320: too young)
    // 7 active. cap 6: 7 − 1 = 6 ≤ 6 → periodic only. cap 5 or even cap 1: periodic + ONE record, the least mean: low.
    // Applying it and planning again (cap 1) picks, one per run: mid-new (0.5, 1 retrieval, before mid-old's 2),
    // mid-old, high, then the never-evaluated, older first: never-old, never-new (which the floor of 1 keeps).
    h.record('stale', 0);
    h.record('low', 100);
    h.record('mid-old', 50);
    h.record('mid-new', 60);
    h.record('high', 100);
    h.record('never-old', 310);
    h.record('never-new', 320);
    h.retrieveSeries('low', 301, [0.1]);
    h.retrieve(302, ['mid-old', 'mid-new'], 0.5);
    h.retrieve(303, ['high'], 0.9);
    h.retrieve(304, ['mid-old'], 0.5);
    const at = (capacity: number) => planCapacity(h.store, { taskIndex: 500, capacity }).candidates.map((c) => `${c.recordId}:${c.rule}`);
    assert.deepEqual(at(6), ['stale:periodic']);
    assert.deepEqual(at(5), ['stale:periodic', 'low:capacity']);
    assert.deepEqual(at(1), ['stale:periodic', 'low:capacity']);
    const first = planCapacity(h.store, { taskIndex: 500, capacity: 1 });
    assert.equal(first.params.activeAfter, 5);
    assert.equal(first.candidates[1].evidence.activeAfterPeriodic, 6);
    const order: string[] = [];
    for (let i = 0; i < 6; i++) {
      const plan = planDeletion(h.store, 'capacity', 500, { capacity: 1 });
      order.push(...plan.candidates.filter((c) => c.rule === 'capacity').map((c) => c.recordId));
      applyDeletionPlan(h.store, plan);
    }
    assert.deepEqual(order, ['low', 'mid-new', 'mid-old', 'high', 'never-old']);
    assert.deepEqual(h.store.list({ status: 'active' }).items.map((r) => r.id), ['never-new']);
  });

  it('never removes protected seeds, even if the memory stays over capacity', () => {
    h.record('s1', 0, 'seed');
    h.record('s2', 0, 'seed');
    h.record('a', 390);
    const plan = planCapacity(h.store, { taskIndex: 400, capacity: 1, protectSeeds: true });
    assert.deepEqual(ids(plan), ['a']);
    assert.equal(plan.params.activeAfter, 2);
  });
});

describe('forgetting-curve deletion', () => {
  let h: History;
  beforeEach(() => (h = new History()));
  afterEach(() => h.close());

  it('retention is exp(−Δt/(s·λ)) with λ = 1 + retrievals', () => {
    assert.equal(retention({ deltaTasks: 0, retrievals: 0 }), 1);
    assert.ok(Math.abs(retention({ deltaTasks: 2, retrievals: 1 }) - Math.exp(-1)) < 1e-15);
    assert.ok(Math.abs(retention({ deltaTasks: 30, retrievals: 2, timeScale: 10 }) - Math.exp(-1)) < 1e-15);
  });

  it('deletes when R < threshold, measuring Δt from the last retrieval or from creation', () => {
    // threshold e^-1 and s = 10: delete when Δt > 10·λ.
    const threshold = Math.exp(-1) + 1e-12; // R = e^-1 exactly counts as below
    h.record('never', 0); // λ=1, Δt=100-0 → deleted
    h.record('young', 95); // λ=1, Δt=5 → kept
    h.record('used', 0); // retrieved at 75 and 80: λ=3, Δt=20 ≤ 30 → kept
    h.record('used-long-ago', 0); // retrieved at 10: λ=2, Δt=90 > 20 → deleted
    h.retrieve(75, ['used'], 1);
    h.retrieve(80, ['used'], 1);
    h.retrieve(10, ['used-long-ago'], 1);
    const plan = planForgetting(h.store, { taskIndex: 100, threshold, timeScale: 10 });
    assert.deepEqual(ids(plan), ['never', 'used-long-ago']);
    const ev = plan.candidates.find((c) => c.recordId === 'used-long-ago')!.evidence;
    assert.equal(ev.deltaTasks, 90);
    assert.equal(ev.lambda, 2);
    assert.ok(Math.abs((ev.retention as number) - Math.exp(-90 / 20)) < 1e-15);
  });

  it('default threshold 0.01 and time scale 40 forget a never-retrieved record after ~184 tasks', () => {
    h.record('r', 0);
    assert.deepEqual(ids(planForgetting(h.store, { taskIndex: 184 })), []);
    assert.deepEqual(ids(planForgetting(h.store, { taskIndex: 185 })), ['r']);
  });
});

describe('dry run, apply, restore, purge', () => {
  let h: History;
  beforeEach(() => (h = new History()));
  afterEach(() => h.close());

  it('a dry run changes nothing; apply soft-deletes with audit evidence; restore brings it back', () => {
    h.record('bad', 0);
    h.record('good', 0);
    h.retrieveSeries('bad', 1, [0, 0, 0, 0, 0, 0]);
    const before = h.store.changeId;
    const plan = planDeletion(h.store, 'history', 10, { beta: 0.3 });
    assert.equal(h.store.changeId, before);
    assert.equal(h.store.require('bad').status, 'active');

    const result = applyDeletionPlan(h.store, plan, 'rule:history-deletion');
    assert.deepEqual(result, { deleted: ['bad'], skipped: [], floorKept: [] });
    assert.equal(h.store.require('bad').status, 'deleted');
    const audit = h.store.audit({ recordId: 'bad' })[0];
    assert.equal(audit.operation, 'delete');
    assert.equal(audit.trigger, 'rule:history-deletion');
    assert.equal(audit.evidence.rule, 'history');
    assert.equal(audit.evidence.totalRetrievals, 6);
    assert.equal(audit.evidence.meanUtility, 0);
    assert.equal(audit.evidence.from, 'active');

    // Applying the same plan again skips the record that is no longer active.
    assert.deepEqual(applyDeletionPlan(h.store, plan), { deleted: [], skipped: ['bad'], floorKept: [] });

    restoreRecords(h.store, ['bad'], { reason: 'false positive' });
    assert.equal(h.store.require('bad').status, 'active');
    assert.equal(h.store.audit({ recordId: 'bad' })[0].operation, 'restore');

    applyDeletionPlan(h.store, planDeletion(h.store, 'history', 10, { beta: 0.3 }));
    purgeRecords(h.store, ['bad']);
    assert.equal(h.store.get('bad'), undefined);
    assert.deepEqual(h.store.audit({ recordId: 'bad' }).map((e) => e.operation).reverse(), ['add', 'delete', 'restore', 'delete', 'purge']);
  });

  it('capacity needs a capacity', () => {
    assert.throws(() => planDeletion(h.store, 'capacity', 1), (e: unknown) => isAgentMemoryError(e, 'CONFIG'));
  });
});
