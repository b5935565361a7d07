import { strict as assert } from 'node:assert';
import { answerContains, answersAgree } from '../../../src/core/policy/answers';
import { belowRunningAccuracy, planCapacity, planCombined, planDeletion, planHistory, planPeriodic, wilsonUpper } from '../../../src/core/policy/deletion';
import { MemoryManager } from '../../../src/core/policy/memory-manager';
import { evaluateRules, RuleSpecInput } from '../../../src/core/policy/rules';
import { evaluateGroundTruth, Evaluation } from '../../../src/core/policy/utility';
import { History } from './history-helpers';
import { deletionQueries, RUNNING_ACCURACY_SQL } from '../../../src/core/memory/sqlite/queries/deletion-candidates';

const gt = (utility: number): Evaluation => ({ utility, evaluator: 'strict:ground-truth', reason: 'test' });
const ids = (plan: { candidates: { recordId: string }[] }) => plan.candidates.map((c) => c.recordId);
const active = (h: History) => h.store.list({ status: 'active' }).items.map((r) => r.id).sort();

describe('relative threshold: Wilson upper bound of mean Φ below the running accuracy (beyond the paper)', () => {
  it('wilsonUpper matches hand-computed values (z = 1.96)', () => {
    // All zeros: upper = z²/(n + z²). n = 5: 3.8416/8.8416 = 0.43449; n = 10: 3.8416/13.8416 = 0.27754.
    assert.ok(Math.abs(wilsonUpper(0, 5) - 0.43449) < 1e-4);
    assert.ok(Math.abs(wilsonUpper(0, 10) - 0.27754) < 1e-4);
    // p̂ = 0.5, n = 10: (0.5 + 0.19208 + 1.96·√(0.025 + 0.009604)) / 1.38416 = 0.76341.
    assert.ok(Math.abs(wilsonUpper(5, 10) - 0.76341) < 1e-4);
    assert.equal(wilsonUpper(3, 3), 1);
    assert.equal(wilsonUpper(0, 0), 1);
  });

  it('the polynomial test (what the SQL evaluates) agrees with the bound on a grid', () => {
    for (let count = 1; count <= 30; count++) {
      for (let sum = 0; sum <= count; sum++) {
        for (const accuracy of [0, 0.05, 0.31, 0.5, 0.7, 0.95]) {
          const bound = wilsonUpper(sum, count);
          if (Math.abs(bound - accuracy) < 1e-9) continue;
          assert.equal(belowRunningAccuracy(sum, count, accuracy), bound < accuracy, `sum ${sum} count ${count} accuracy ${accuracy}`);
        }
      }
    }
  });

  describe('plans', () => {
    let h: History;
    beforeEach(() => (h = new History()));
    afterEach(() => h.close());

    function build(): void {
      // bad: 10 retrievals at Φ 0 (upper 0.278); few: 5 at Φ 0 (upper 0.434); good: 20 at Φ 1.
      h.record('bad', 0);
      h.record('few', 0);
      h.record('good', 0);
      h.retrieveSeries('bad', 1, Array(10).fill(0));
      h.retrieveSeries('few', 11, Array(5).fill(0));
      h.retrieveSeries('good', 16, Array(20).fill(1));
    }

    it('deletes only the record whose bound lies below the given accuracy; the paper β deletes both zero records', () => {
      build();
      assert.deepEqual(ids(planHistory(h.store, { taskIndex: 40, historyThreshold: 'relative', runningAccuracy: 0.31 })), ['bad']);
      assert.deepEqual(ids(planHistory(h.store, { taskIndex: 40 })), ['bad', 'few']);
      // An accuracy above 0.434 also takes 'few'; 'good' (mean 1) is never below.
      assert.deepEqual(ids(planHistory(h.store, { taskIndex: 40, historyThreshold: 'relative', runningAccuracy: 0.5 })), ['bad', 'few']);
    });

    it('by default the running accuracy is mean Φ of the evaluated tasks up to t, and the evidence says so', () => {
      for (let i = 1; i <= 35; i++) assert.equal(h.tasks.begin(`q${i}`), i);
      build();
      // Tasks 1..35: 15 at Φ 0, 20 at Φ 1 → 20/35 = 0.5714 at t = 40; at t = 15 (10 + 4 zeros) it is 0 → nothing below it.
      const plan = planHistory(h.store, { taskIndex: 40, historyThreshold: 'relative' });
      assert.deepEqual(ids(plan), ['bad', 'few']);
      assert.ok(Math.abs(Number(plan.candidates[0].evidence.runningAccuracy) - 20 / 35) < 1e-9);
      assert.equal(plan.candidates[0].evidence.z, 1.96);
      assert.deepEqual(ids(planHistory(h.store, { taskIndex: 15, historyThreshold: 'relative' })), []);
    });

    it('the running accuracy reads the covering index of evaluated tasks, not the task rows', () => {
      for (let i = 1; i <= 35; i++) h.tasks.begin(`q${i}`);
      build();
      const plan = h.store
        .connectionForQueries()
        .prepare(`EXPLAIN QUERY PLAN ${RUNNING_ACCURACY_SQL}`)
        .all(40) as { detail: string }[];
      assert.match(plan.map((r) => r.detail).join('\n'), /COVERING INDEX tasks_utility/);
      assert.ok(Math.abs((deletionQueries(h.store).runningAccuracy(40) ?? NaN) - 20 / 35) < 1e-9);
      assert.equal(deletionQueries(h.store).runningAccuracy(0), null);
    });

    it('combined deletion uses the same relative history condition', () => {
      build();
      const plan = planCombined(h.store, { taskIndex: 40, period: 200, historyThreshold: 'relative', runningAccuracy: 0.31 });
      assert.deepEqual(plan.candidates.map((c) => `${c.recordId}:${c.rule}`), ['bad:history']);
    });

    it('the memory floor holds under the relative threshold', () => {
      h.record('only', 0);
      h.retrieveSeries('only', 1, Array(12).fill(0));
      h.retrieveSeries('only', 13, Array(12).fill(null));
      const plan = planDeletion(h.store, 'history', 30, { historyThreshold: 'relative', runningAccuracy: 0.5 });
      assert.deepEqual(ids(plan), []);
      assert.deepEqual(plan.floor?.kept.map((c) => c.recordId), ['only']);
    });
  });

  it('the utility-drop rule names records by the relative condition on the snapshot accuracy', () => {
    const rule: RuleSpecInput = { id: 'utility-drop', kind: 'utility-drop', minRetrievals: 5, beta: 0.7, threshold: 'relative', operation: 'delete:history' };
    const updates = [
      { recordId: 'bad', meanUtility: 0, evaluatedCount: 10 },
      { recordId: 'few', meanUtility: 0, evaluatedCount: 5 },
      { recordId: 'ok', meanUtility: 0.6, evaluatedCount: 10 },
    ];
    const [f] = evaluateRules([rule], { taskIndex: 9, activeCount: 3, lastRunByRule: {}, utilityUpdates: updates, runningAccuracy: 0.31 });
    assert.deepEqual(f.recordIds, ['bad']);
    assert.match(f.reason, /Wilson upper bound \(z = 1\.96\) below the running accuracy 0\.310/);
    assert.equal(evaluateRules([rule], { taskIndex: 9, activeCount: 3, lastRunByRule: {}, utilityUpdates: updates, runningAccuracy: 0 }).length, 0);
  });
});

describe('history deletion: at most the worst record per task (the paper\'s code) or every match', () => {
  let h: History;
  beforeEach(() => (h = new History()));
  afterEach(() => h.close());

  it('the plan picks the lowest mean, then the most evaluated retrievals', () => {
    h.record('a', 0);
    h.record('b', 0);
    h.record('c', 0);
    h.retrieveSeries('a', 1, [1, 0, 0, 0, 0]); // mean 0.2
    h.retrieveSeries('b', 6, [0, 0, 0, 0, 0]); // mean 0, 5 retrievals
    h.retrieveSeries('c', 11, [0, 0, 0, 0, 0, 0]); // mean 0, 6 retrievals → the worst
    assert.deepEqual(ids(planHistory(h.store, { taskIndex: 20 })), ['a', 'b', 'c']);
    const worst = planHistory(h.store, { taskIndex: 20, historyPerTask: 'worst' });
    assert.deepEqual(ids(worst), ['c']);
    assert.equal(worst.total, 1);
    // Combined: every periodic candidate plus at most one history-only one (the worst).
    h.record('stale', 0);
    const combined = planCombined(h.store, { taskIndex: 20, period: 15, historyPerTask: 'worst' });
    assert.deepEqual(combined.candidates.map((c) => `${c.recordId}:${c.rule}`).sort(), ['a:periodic', 'c:history', 'stale:periodic']);
  });

  it('the rule engine and the manager delete one record per task, across all firings', () => {
    h.record('x', 0);
    h.record('y', 0);
    h.record('keep', 0);
    const manager = new MemoryManager(h.store, { addition: 'fixed', deletion: 'combined', deletionParams: { historyPerTask: 'worst', period: 1000 } });
    const run = (shown: string[]) => {
      const t = h.tasks.begin('q');
      h.tasks.logRetrievals(t, shown.map((recordId, rank) => ({ recordId, rank, inputSimilarity: 0.5 })));
      return manager.afterTask({ taskIndex: t, retrieved: shown.map((recordId) => ({ recordId, inputSimilarity: 0.5, shown: true })), evaluation: gt(0), candidate: null });
    };
    for (let i = 0; i < 4; i++) assert.deepEqual(run(['x', 'y']).deletions.flatMap((d) => d.recordIds), []);
    // Task 5: both x and y reach n = 5 at mean 0: only one goes (ties → older, then insertion order: x).
    assert.deepEqual(run(['x', 'y']).deletions.flatMap((d) => d.recordIds), ['x']);
    assert.deepEqual(run(['y']).deletions.flatMap((d) => d.recordIds), ['y']);
    assert.deepEqual(active(h), ['keep']);
    manager.dispose();
  });
});

describe('capacity (§6.2): periodic first, then the single least-useful record while over the cap', () => {
  let h: History;
  beforeEach(() => (h = new History()));
  afterEach(() => h.close());

  it("'paper' never force-deletes a never-evaluated record; 'hard-cap' does, last", () => {
    h.record('fresh1', 10);
    h.record('fresh2', 10);
    assert.deepEqual(ids(planCapacity(h.store, { taskIndex: 12, capacity: 1 })), ['fresh1']);
    assert.deepEqual(ids(planCapacity(h.store, { taskIndex: 12, capacity: 1, capacityRule: 'paper' })), []);
    h.record('used', 10);
    h.retrieveSeries('used', 11, [1, 1]);
    // Over the cap (3 > 1): the paper rule may only take 'used' (the one record with a mean), one per task.
    const plan = planCapacity(h.store, { taskIndex: 13, capacity: 1, capacityRule: 'paper' });
    assert.deepEqual(plan.candidates.map((c) => `${c.recordId}:${c.rule}`), ['used:capacity']);
  });

  it('through the manager: one record per task beyond periodic deletion, never-retrieved ones kept', () => {
    for (const id of ['a', 'b', 'c', 'd']) h.record(id, 0);
    h.retrieveSeries('a', 1, [0, 0]);
    h.retrieveSeries('b', 3, [1, 1]);
    const manager = new MemoryManager(h.store, { addition: 'fixed', deletion: 'capacity', deletionParams: { capacity: 1, capacityRule: 'paper', period: 1000 } });
    const run = () => manager.afterTask({ taskIndex: h.tasks.begin('q'), retrieved: [], evaluation: null, candidate: null }).deletions.flatMap((d) => d.recordIds);
    assert.deepEqual(run(), ['a']);
    assert.deepEqual(run(), ['b']);
    assert.deepEqual(run(), []);
    assert.deepEqual(active(h), ['c', 'd']);
    manager.dispose();
  });
});

describe('periodic window bounds: (t − P, t] or the paper\'s [t − P, t]', () => {
  let h: History;
  beforeEach(() => (h = new History()));
  afterEach(() => h.close());

  it('a retrieval exactly at t − P counts only in the closed window', () => {
    h.record('edge', 0);
    h.retrieve(200, ['edge'], 1);
    assert.deepEqual(ids(planPeriodic(h.store, { taskIndex: 400, period: 200 })), ['edge']);
    assert.deepEqual(ids(planPeriodic(h.store, { taskIndex: 400, period: 200, periodicBounds: 'closed' })), []);
    assert.equal(planPeriodic(h.store, { taskIndex: 400, period: 200, periodicBounds: 'closed' }).params.window, '[t − 200, t]');
  });
});

describe("attribution 'top-output': Φ to the shown record with the highest output similarity (beyond the paper)", () => {
  let h: History;
  beforeEach(() => (h = new History()));
  afterEach(() => h.close());

  it('credits only the most similar shown record; ties go to the higher-ranked one', () => {
    for (const id of ['r1', 'r2', 'r3']) h.record(id, 0);
    const codes: Record<string, string> = { r1: 'select a', r2: 'select b', r3: 'select c' };
    const codeSimilarity = (reference: string, candidate: string) => (reference === candidate ? 0.9 : 0.1);
    const manager = new MemoryManager(h.store, { addition: 'fixed', attribution: 'top-output', codeSimilarity });
    const task = (finalCode: string | null) => {
      const t = h.tasks.begin('q');
      h.tasks.logRetrievals(t, ['r1', 'r2', 'r3'].map((recordId, rank) => ({ recordId, rank, inputSimilarity: 0.5 })));
      const retrieved = ['r1', 'r2', 'r3'].map((recordId) => ({ recordId, inputSimilarity: 0.5, shown: recordId !== 'r3', code: codes[recordId], language: 'python' as const }));
      return manager.afterTask({ taskIndex: t, retrieved, evaluation: gt(1), candidate: null, finalCode, language: 'python' });
    };
    assert.deepEqual(task('select b').attribution, { attribution: 'top-output', shown: ['r1', 'r2'], credited: ['r2'], shownNotFollowed: ['r1'] });
    // r3 is the best match but was not shown: among the shown, all tie at 0.1 → r1 (ranked first).
    assert.deepEqual(task('select c').attribution.credited, ['r1']);
    assert.deepEqual(task(null).attribution.credited, ['r1']);
    assert.deepEqual([h.store.require('r1').stats.evaluatedCount, h.store.require('r2').stats.evaluatedCount, h.store.require('r3').stats.evaluatedCount], [2, 1, 0]);
    manager.dispose();
  });

  it('needs a code similarity function', () => {
    assert.throws(() => new MemoryManager(h.store, { addition: 'fixed', attribution: 'top-output' }), /code similarity function/);
  });
});

describe("the paper's strict evaluator: the ground truth contained in the answer", () => {
  it('accepts extra rows and columns that the set match rejects', () => {
    assert.equal(answerContains([['po']], [['po'], ['iv']]), true);
    assert.equal(answersAgree([['po']], [['po'], ['iv']]), false);
    assert.equal(answersAgree([['po']], [['po'], ['iv']], { match: 'contains' }), true);
    assert.equal(answerContains([[12.5]], [['x', '12.50']]), true);
    assert.equal(answerContains([['po'], ['iv']], ['PO']), false);
    assert.equal(answerContains([['po']], null), false);
    // Substring semantics, as the paper's string matching: '1' is contained in '12'.
    assert.equal(answerContains([[1]], [[12]]), true);
  });

  it('drives the strict ground-truth Φ when selected', () => {
    const input = { question: 'q', code: 'c', answer: [['po'], ['iv']], outcome: 'success' as const, groundTruth: [['po']] };
    assert.equal(evaluateGroundTruth(input).utility, 0);
    const contained = evaluateGroundTruth(input, { match: 'contains' });
    assert.deepEqual([contained.utility, contained.reason], [1, 'the ground truth is contained in the answer']);
  });
});
