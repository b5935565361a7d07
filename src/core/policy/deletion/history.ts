import type { Database } from '../../memory/database';
import { candidatePlan, CandidateRow, HistoryOptions, HistoryOptionsSchema, PolicyDeletionPlan, runCandidateQuery, seedFilter, UTILITY_EPSILON } from './types';

/** SQL condition of the history rule on `records r` (params @n, @beta, @eps). */
export const HISTORY_CONDITION = '(r.utility_count > @n AND r.utility_sum / r.utility_count <= @beta + @eps)';

/**
 * History-based deletion (paper §5.1, SPEC §3): delete active record i when
 * freq_t(i) > n and the mean Φ over its retrievals ≤ β.
 *
 * Counting choice: freq is the number of *evaluated* retrievals (Φ known); in
 * benchmark runs every retrieval is evaluated so this equals the paper's
 * freq_t(i). In the editor, retrievals still awaiting a verdict do not count
 * toward n, which keeps the paper's purpose for n (a minimum sample for the mean).
 * "≤ β" tolerates 1e-9 of floating-point error in the running sums.
 *
 * @example
 * planHistory(store.connectionForQueries(), { taskIndex: 300, minRetrievals: 5, beta: 0.7 }).candidates;
 */
export function planHistory(db: Database, input: HistoryOptions): PolicyDeletionPlan {
  const o = HistoryOptionsSchema.parse(input);
  // With named records, drive the query from the id list (CROSS JOIN fixes the join
  // order) so a per-task check costs a few index lookups, not an index scan.
  const only = o.recordIds ? 'AND r.id = j.value' : '';
  const found = runCandidateQuery<CandidateRow>(db, {
    ...(o.recordIds ? { from: 'json_each(@ids) j CROSS JOIN records r' } : {}),
    where: `r.status = 'active' AND ${HISTORY_CONDITION} ${seedFilter(o.protectSeeds)} ${only}`,
    params: { n: o.minRetrievals, beta: o.beta, eps: UTILITY_EPSILON, ...(o.recordIds ? { ids: JSON.stringify(o.recordIds) } : {}) },
    limit: o.limit,
  });
  return candidatePlan('history', o.taskIndex, { minRetrievals: o.minRetrievals, beta: o.beta, protectSeeds: o.protectSeeds }, found, () => ({
    rule: 'history',
    evidence: { minRetrievals: o.minRetrievals, beta: o.beta },
  }));
}
