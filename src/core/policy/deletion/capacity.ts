import { deletionQueries } from '../../memory/sqlite/queries/deletion-candidates';
import type { MemoryStore } from '../../memory/sqlite/store';
import { planPeriodic } from './periodic';
import { baseEvidence, CapacityOptions, CapacityOptionsSchema, PolicyDeletionPlan } from './types';

/**
 * Capacity-limited deletion, as the paper's §6.2: "after each task execution, it
 * first performs periodical-based deletion and then removes only the record with
 * the least average utility (rather than all records below the utility threshold)
 * if the memory still exceeds the limit after additions."
 *
 * So one run (the rule engine runs it after every task) is:
 * 1. the periodic plan at this task (whatever the size of the memory);
 * 2. then, only if active − periodic > capacity, the **single** active record with
 *    the lowest mean utility: evaluated records by mean Φ ascending, ties by fewer
 *    retrievals, then older (created_task, then insertion order); records never
 *    evaluated (mean unknown) last.
 * A memory far over the cap therefore shrinks by at most one record per task
 * beyond what periodic deletion removes.
 *
 * `capacityRule` (setting agentMemory.deletion.capacityRule): `hard-cap` (default)
 * falls back to never-evaluated records (oldest first) so the cap holds; `paper` reads
 * §6.2 literally: only a record *with* an average utility may be removed, so a
 * never-retrieved record is never force-deleted (periodic deletion still removes it
 * once it has gone a period unretrieved), and the memory may stay above the cap. With `protectSeeds`, seeds are never
 * removed (`params.activeAfter` says how many remain).
 *
 * @example
 * const plan = planCapacity(store, { taskIndex: 120, capacity: 100 });
 */
export function planCapacity(store: MemoryStore, input: CapacityOptions): PolicyDeletionPlan {
  const o = CapacityOptionsSchema.parse(input);
  const queries = deletionQueries(store);
  const active = queries.countActive();
  const params = { capacity: o.capacity, activeBefore: active, period: o.period, alpha: o.alpha, protectSeeds: o.protectSeeds, capacityRule: o.capacityRule };
  const periodic = planPeriodic(store, o);
  const periodicCandidates = periodic.candidates.map((c) => ({ ...c, evidence: { ...c.evidence, capacity: o.capacity, activeBefore: active } }));
  let ranked: PolicyDeletionPlan['candidates'] = [];
  if (active - periodic.total > o.capacity) {
    const least = queries.leastUtilityRecord(o, o.capacityRule === 'paper');
    ranked = (least ? [least] : []).map((row) => ({
      recordId: row.id,
      question: row.question,
      rule: 'capacity',
      evidence: { ...baseEvidence(row, o.taskIndex), capacity: o.capacity, activeBefore: active, activeAfterPeriodic: active - periodic.total },
    }));
  }
  const total = periodic.total + ranked.length;
  // The least-utility record is the plan's last candidate (periodic ones first, as they run first).
  const candidates = [...periodicCandidates.slice(0, Math.max(0, o.limit - ranked.length)), ...ranked];
  return { policy: 'capacity', taskIndex: o.taskIndex, params: { ...params, activeAfter: active - total }, total, truncated: total > candidates.length, candidates };
}
