import { deletionQueries } from '../../memory/sqlite/queries/deletion-candidates';
import type { MemoryStore } from '../../memory/sqlite/store';
import { candidatePlan, PeriodicOptions, PeriodicOptionsSchema, PolicyDeletionPlan } from './types';

/**
 * Periodic deletion (paper §5.1, SPEC §3): delete active record i when
 * freq_t(i) − freq_t'(i) ≤ α, with t' = t − period, i.e. when it was retrieved at
 * most α times in the last `period` tasks (t − period, t]. Only records at least
 * one period old are candidates (created_task ≤ t − period).
 *
 * Window: this planner evaluates the window (t − period, t] ending at the task it
 * is run at. *When* it runs is the rule engine's choice (rules.ts, setting
 * agentMemory.deletion.periodicWindow): `sliding` (default, the paper's code as
 * SPEC §3 reads it) runs it after every task, so a record goes as soon as it has
 * gone `period` tasks without more than α retrievals; `fixed` runs it every
 * `period` tasks, i.e. over (0,200], (200,400], … The capacity policy (§6.2) runs
 * it after every task.
 *
 * Bounds (fidelity switch agentMemory.deletion.periodicBounds): `half-open` (default)
 * counts retrievals in (t − period, t]; `closed` counts them in [t − period, t], the
 * window the paper's text names (§5.1: "the target retrieval count within [t′, t]").
 *
 * @example
 * const plan = planPeriodic(store, { taskIndex: 400 }); // dry run, nothing changes
 * applyDeletionPlan(store, plan);
 */
export function planPeriodic(store: MemoryStore, input: PeriodicOptions): PolicyDeletionPlan {
  const o = PeriodicOptionsSchema.parse(input);
  const windowStart = o.taskIndex - o.period;
  const found = deletionQueries(store).periodicCandidates(o, o.limit);
  const window = o.periodicBounds === 'closed' ? `[t − ${o.period}, t]` : `(t − ${o.period}, t]`;
  return candidatePlan('periodic', o.taskIndex, { period: o.period, alpha: o.alpha, protectSeeds: o.protectSeeds, window }, found, (row) => ({
    rule: 'periodic',
    evidence: { retrievalsInWindow: row.in_window, windowStart, windowEnd: o.taskIndex, period: o.period, alpha: o.alpha },
  }));
}
