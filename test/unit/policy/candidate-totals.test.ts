import { strict as assert } from 'node:assert';
import { planCombined, planPeriodic } from '../../../src/core/policy/deletion';
import { History } from './history-helpers';
import { mulberry32 } from '../../../src/core/random';

/** Deterministic PRNG. */
const rng = mulberry32;

/**
 * The total of a truncated plan (counted without materializing: the active records less the
 * window's few for which the condition fails) must be the number of candidates a plan that
 * materializes every one of them lists.
 */
describe('candidate totals of truncated periodic and combined plans', function () {
  this.timeout(120_000);
  let h: History;
  beforeEach(() => (h = new History()));
  afterEach(() => h.close());

  /** Records created over 300 tasks (seeds at 0, some pending, some deleted), retrieved with mixed Φ, some never evaluated. */
  function build(seed: number): void {
    const random = rng(seed);
    const ids: string[] = [];
    for (let i = 0; i < 160; i++) {
      const created = i < 20 ? 0 : Math.floor(random() * 300);
      ids.push(h.record(`r${i}`, created, i < 20 ? 'seed' : 'agent', random() < 0.1 ? 'pending' : 'active'));
    }
    for (let t = 1; t <= 320; t++) {
      h.tasks.begin(`q${t}`);
      const live = ids.filter((id) => h.store.get(id)?.status === 'active');
      const picked = [...new Set(Array.from({ length: 1 + Math.floor(random() * 3) }, () => live[Math.floor(random() * live.length)]))];
      const u = random();
      h.retrieve(t, picked, u < 0.15 ? null : u < 0.55 ? 0 : u < 0.65 ? 0.5 : 1);
    }
    for (const id of ids.filter(() => random() < 0.05)) if (h.store.get(id)?.status !== 'deleted') h.store.transition([id], 'delete', { trigger: 'user' });
  }

  it('match the fully materialized plans over windows, α, bounds, seeds, thresholds and n', () => {
    build(17);
    let truncated = 0;
    for (const t of [150, 260, 320, 400]) {
      for (const period of [10, 50, 200]) {
        for (const alpha of [0, 0.5, 2]) {
          for (const periodicBounds of ['half-open', 'closed'] as const) {
            for (const protectSeeds of [false, true]) {
              const common = { taskIndex: t, period, alpha, periodicBounds, protectSeeds };
              const periodic = planPeriodic(h.store, { ...common, limit: 1 });
              const periodicAll = planPeriodic(h.store, { ...common, limit: 10_000 });
              assert.equal(periodic.total, periodicAll.candidates.length, JSON.stringify(common));
              if (periodic.truncated) truncated++;
              for (const history of [{ minRetrievals: 0 }, { minRetrievals: 3, beta: 0.4 }, { minRetrievals: 2, historyThreshold: 'relative' as const, runningAccuracy: 0.6 }]) {
                const combined = planCombined(h.store, { ...common, ...history, limit: 1 });
                const combinedAll = planCombined(h.store, { ...common, ...history, limit: 10_000 });
                assert.equal(combined.total, combinedAll.candidates.length, JSON.stringify({ ...common, ...history }));
                assert.deepEqual(combined.candidates.map((c) => c.recordId), combinedAll.candidates.slice(0, 1).map((c) => c.recordId));
              }
            }
          }
        }
      }
    }
    assert.ok(truncated > 100, `the counting path ran (${truncated} truncated periodic plans)`);
  });

  it('the paper’s literal AND (mode both) still counts every record', () => {
    build(23);
    const both = planCombined(h.store, { taskIndex: 320, period: 50, mode: 'both', minRetrievals: 2, beta: 0.5, limit: 1 });
    const all = planCombined(h.store, { taskIndex: 320, period: 50, mode: 'both', minRetrievals: 2, beta: 0.5, limit: 10_000 });
    assert.ok(all.candidates.length > 1);
    assert.equal(both.total, all.candidates.length);
  });
});
