import type { Database } from '../../memory/database';
import { PERIODIC_CONDITION, planPeriodic, WINDOW_CTE, WINDOW_FROM } from './periodic';
import { baseEvidence, CandidateRow, CapacityOptions, CapacityOptionsSchema, PolicyDeletionPlan, runCandidateQuery, seedFilter } from './types';

/**
 * Capacity-limited deletion (paper §6.2, SPEC §3): when the number of active
 * records exceeds `capacity`, first the periodic rule (sliding window), then, if
 * still over, the active records with the lowest mean utility, one at a time,
 * until size ≤ capacity.
 *
 * Order of the second step: evaluated records by mean Φ ascending; records never
 * retrieved (or never evaluated, mean unknown) last; ties by age, older first
 * (created_task, then insertion order). With `protectSeeds`, seeds are never
 * removed, so the memory may stay over capacity (`params.activeAfter` says so).
 *
 * @example
 * const plan = planCapacity(store.connectionForQueries(), { taskIndex: 120, capacity: 100 });
 */
export function planCapacity(db: Database, input: CapacityOptions): PolicyDeletionPlan {
  const o = CapacityOptionsSchema.parse(input);
  const active = (db.prepare("SELECT COUNT(*) AS n FROM records WHERE status = 'active'").get() as { n: number }).n;
  const params = { capacity: o.capacity, activeBefore: active, period: o.period, alpha: o.alpha, protectSeeds: o.protectSeeds };
  if (active <= o.capacity) return { policy: 'capacity', taskIndex: o.taskIndex, params: { ...params, activeAfter: active }, total: 0, truncated: false, candidates: [] };
  const periodic = planPeriodic(db, o);
  const periodicCandidates = periodic.candidates.map((c) => ({ ...c, evidence: { ...c.evidence, capacity: o.capacity, activeBefore: active } }));
  const excess = active - periodic.total - o.capacity;
  let ranked: PolicyDeletionPlan['candidates'] = [];
  if (excess > 0) {
    const windowStart = o.taskIndex - o.period;
    const { rows } = runCandidateQuery<CandidateRow>(db, {
      cte: WINDOW_CTE,
      from: WINDOW_FROM,
      where: `r.status = 'active' ${seedFilter(o.protectSeeds)} AND NOT ${PERIODIC_CONDITION}`,
      orderBy: '(r.utility_count = 0), r.utility_sum / MAX(r.utility_count, 1), r.created_task, r.rid',
      params: { t: o.taskIndex, windowStart, alpha: o.alpha },
      limit: excess,
      countTotal: false,
    });
    ranked = rows.map((row, i) => ({
      recordId: row.id,
      question: row.question,
      rule: 'capacity',
      evidence: { ...baseEvidence(row, o.taskIndex), capacity: o.capacity, activeBefore: active, rank: i + 1 },
    }));
  }
  const total = periodic.total + ranked.length;
  const candidates = [...periodicCandidates, ...ranked.slice(0, Math.max(0, o.limit - periodicCandidates.length))];
  return { policy: 'capacity', taskIndex: o.taskIndex, params: { ...params, activeAfter: active - total }, total, truncated: total > candidates.length, candidates };
}
