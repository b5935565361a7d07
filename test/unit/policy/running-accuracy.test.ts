import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { deletionQueries, RUNNING_ACCURACY_SQL } from '../../../src/core/memory/sqlite/queries/deletion-candidates';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { TaskLog } from '../../../src/core/memory/sqlite/task-log';
import { planCombined, planHistory, PolicyDeletionPlan } from '../../../src/core/policy/deletion';
import { MemoryManager } from '../../../src/core/policy/memory-manager';
import { sampleRecord } from '../../support/records';
import { mulberry32 } from '../../../src/core/random';

/** Deterministic PRNG. */
const rng = mulberry32;

/** Φ values an evaluator may give, dyadic and not. */
const PHI = [0, 1, 1, 0, 0.5, 0.3, 0.7, 0.25, 0.9, 0.1];

/** The running accuracy read in full from the task log (what the totals must reproduce). */
const fullScan = (store: MemoryStore, t: number): number | null => (store.connectionForQueries().prepare(RUNNING_ACCURACY_SQL).get(t) as { a: number | null }).a;
const summary = (plan: PolicyDeletionPlan) => ({ total: plan.total, candidates: plan.candidates.map((c) => [c.recordId, c.rule, c.evidence]) });

/**
 * The same plan: the same totals, records, rules and evidence, numbers equal to 1e-12 (the totals subtract the
 * evaluated tasks after t, the full read sums the ones up to t: the same mean, not always the same last bit).
 */
function assertSamePlan(actual: unknown, expected: unknown, where: string): void {
  if (typeof actual === 'number' && typeof expected === 'number') {
    assert.ok(Math.abs(actual - expected) <= 1e-12, `${where}: ${actual} vs ${expected}`);
    return;
  }
  if (actual === null || expected === null || typeof actual !== 'object' || typeof expected !== 'object') {
    assert.deepEqual(actual, expected, where);
    return;
  }
  assert.deepEqual(Object.keys(actual).sort(), Object.keys(expected).sort(), `${where}: keys`);
  for (const key of Object.keys(expected)) assertSamePlan((actual as Record<string, unknown>)[key], (expected as Record<string, unknown>)[key], `${where}.${key}`);
}

describe('running accuracy from running totals (relative threshold)', function () {
  this.timeout(120_000);
  let dir: string;
  let store: MemoryStore;
  let tasks: TaskLog;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'running-accuracy-'));
    store = MemoryStore.open(path.join(dir, 'memory.sqlite'));
    tasks = new TaskLog(store);
  });
  afterEach(() => {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /**
   * A history with every way a task's Φ changes: tasks evaluated out of order (later tasks first),
   * re-evaluations, withdrawals, tasks never evaluated, task rows deleted, records deleted.
   */
  function buildHistory(seed: number, taskCount: number): void {
    const random = rng(seed);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];
    const ids = Array.from({ length: 30 }, (_, i) => `r${i}`);
    store.add(ids.map((id) => sampleRecord({ id, createdTask: 0, provenance: 'agent', question: `question for ${id}` })), { trigger: 'agent' });
    const open: number[] = [];
    // Φ of a task: low when it retrieved one of the first five records (some records fall below the agent's accuracy).
    const phiOf = new Map<number, readonly number[]>();
    for (let i = 0; i < taskCount; i++) {
      const t = tasks.begin(`q${i}`);
      const live = ids.filter((id) => store.get(id)?.status === 'active');
      const retrieved = [...new Set([pick(live), pick(live), pick(live)])];
      tasks.logRetrievals(t, retrieved.map((recordId, rank) => ({ recordId, rank, inputSimilarity: 0.8 })));
      open.push(t);
      phiOf.set(t, retrieved.some((id) => Number(id.slice(1)) < 5) ? [0, 0, 0, 0.1] : PHI);
      // Evaluate one of the open tasks, not always the oldest (a later task evaluated first).
      if (open.length > 3 || random() < 0.6) {
        const at = random() < 0.5 ? open.length - 1 : Math.floor(random() * open.length);
        const [task] = open.splice(at, 1);
        if (random() < 0.9) tasks.setUtility(task, pick(phiOf.get(task) ?? PHI));
      }
      const r = random();
      if (r < 0.05 && t > 5) tasks.setUtility(t - 1 - Math.floor(random() * Math.min(t - 1, 50)), pick(PHI)); // re-evaluation
      else if (r < 0.08 && t > 5) tasks.withdrawUtility(t - 1 - Math.floor(random() * Math.min(t - 1, 50))); // undone verdict
      else if (r < 0.09 && t > 5) store.connectionForQueries().prepare('DELETE FROM tasks WHERE task_index = ?').run(1 + Math.floor(random() * (t - 1)));
      else if (r < 0.1 && live.length > 10) store.transition([pick(live)], 'delete', { trigger: 'user' });
    }
  }

  it('equals the full read of the task log at every task, after re-evaluations, withdrawals and deletions', () => {
    buildHistory(7, 400);
    const queries = deletionQueries(store);
    const lastEvaluated = (store.connectionForQueries().prepare('SELECT MAX(task_index) AS t FROM tasks WHERE utility IS NOT NULL').get() as { t: number }).t;
    for (let t = 0; t <= 405; t++) {
      const expected = fullScan(store, t);
      const got = queries.runningAccuracy(t);
      if (expected === null || t >= lastEvaluated || t < 200) {
        // No evaluated task after t (the totals alone), or t in the first half (read in full): the same double.
        assert.equal(got, expected, `t = ${t}`);
      } else {
        // Evaluated tasks after t are taken off the totals: the same mean to the last bits.
        assert.ok(got !== null && Math.abs(got - expected) <= 1e-12, `t = ${t}: ${got} vs ${expected}`);
      }
    }
  });

  for (const seed of [11, 12, 13]) it(`the relative-threshold plans are the same as with the accuracy read in full (history ${seed})`, () => {
    buildHistory(seed, 400);
    for (const t of [120, 250, 333, 399, 400]) {
      const accuracy = fullScan(store, t) ?? 0;
      for (const minRetrievals of [3, 5]) {
        const incremental = planHistory(store, { taskIndex: t, historyThreshold: 'relative', minRetrievals });
        const scanned = planHistory(store, { taskIndex: t, historyThreshold: 'relative', minRetrievals, runningAccuracy: accuracy });
        assertSamePlan(summary(incremental), summary(scanned), `history at t = ${t}, n = ${minRetrievals}`);
        const combined = planCombined(store, { taskIndex: t, period: 50, historyThreshold: 'relative', minRetrievals });
        const combinedScanned = planCombined(store, { taskIndex: t, period: 50, historyThreshold: 'relative', minRetrievals, runningAccuracy: accuracy });
        assertSamePlan(summary(combined), summary(combinedScanned), `combined at t = ${t}, n = ${minRetrievals}`);
      }
    }
    // The history is not trivial: some record falls below the running accuracy.
    assert.ok(planHistory(store, { taskIndex: 400, historyThreshold: 'relative', minRetrievals: 3 }).total > 0);
  });

  it('the memory manager’s rule uses the same accuracy as the full read', () => {
    buildHistory(3, 400);
    const manager = new MemoryManager(store, { addition: 'fixed', mode: 'benchmark', deletion: 'history', deletionParams: { historyThreshold: 'relative', minRetrievals: 3 } });
    try {
      const t = manager.tasks.begin('one more');
      // The three active records with the lowest mean Φ: the rule fires on them.
      const live = store.list({ status: 'active', limit: 100 }).items.sort((a, b) => (a.stats.meanUtility ?? 1) - (b.stats.meanUtility ?? 1)).slice(0, 3).map((r) => r.id);
      manager.tasks.logRetrievals(t, live.map((recordId, rank) => ({ recordId, rank, inputSimilarity: 0.8 })));
      const result = manager.afterTask({ taskIndex: t, retrieved: live.map((recordId) => ({ recordId, inputSimilarity: 0.8, shown: true })), evaluation: { utility: 0, evaluator: 'strict:ground-truth', reason: 'test' }, candidate: null });
      const evidence = result.deletions.flatMap((d) => d.recordIds).map((id) => store.audit({ recordId: id, limit: 1 })[0]?.evidence);
      assert.ok(evidence.length > 0, 'the relative rule deleted a record');
      for (const e of evidence) assert.equal((e as { runningAccuracy?: number }).runningAccuracy, fullScan(store, t));
      assert.equal(deletionQueries(store).runningAccuracy(t), fullScan(store, t));
    } finally {
      manager.dispose();
    }
  });

  it('a memory created before the totals gets them from its task log when it is migrated', () => {
    buildHistory(5, 120);
    const file = path.join(dir, 'memory.sqlite');
    const expected = fullScan(store, 1_000);
    // Back to schema v11: no totals, no triggers (as a memory written by an earlier build).
    store.connectionForQueries().exec('DROP TRIGGER tasks_utility_insert; DROP TRIGGER tasks_utility_update; DROP TRIGGER tasks_utility_delete; DROP TABLE task_utility_totals; PRAGMA user_version = 11;');
    store.close();
    store = MemoryStore.open(file);
    tasks = new TaskLog(store);
    assert.equal(deletionQueries(store).runningAccuracy(1_000), expected);
    tasks.setUtility(tasks.begin('after the upgrade'), 1);
    assert.equal(deletionQueries(store).runningAccuracy(1_000), fullScan(store, 1_000));
  });
});
