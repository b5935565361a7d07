import type { Database } from '../../memory/database';
import { HISTORY_CONDITION } from './history';
import { PERIODIC_CONDITION, WINDOW_CTE, WINDOW_FROM } from './periodic';
import { candidatePlan, CandidateRow, CombinedOptions, CombinedOptionsSchema, PolicyDeletionPlan, runCandidateQuery, seedFilter, UTILITY_EPSILON } from './types';

/**
 * Combined deletion (paper §5.1, SPEC §3): periodic and history-based in one
 * set-based query over the same snapshot.
 *
 * Default `mode: 'either'` follows the paper's code (periodic deletion, then
 * history deletion on what is left): a record goes if either rule fires. Its
 * `rule` is `periodic`, `history`, or `periodic+history` when both fire.
 * `mode: 'both'` implements the paper's formula φ_period × φ_history literally.
 *
 * @example
 * const plan = planCombined(store.connectionForQueries(), { taskIndex: 600, beta: 0.7 });
 * plan.candidates.map((c) => [c.recordId, c.rule]);
 */
export function planCombined(db: Database, input: CombinedOptions): PolicyDeletionPlan {
  const o = CombinedOptionsSchema.parse(input);
  const windowStart = o.taskIndex - o.period;
  const join = o.mode === 'either' ? 'OR' : 'AND';
  const found = runCandidateQuery<CandidateRow & { in_window: number; periodic_hit: number; history_hit: number }>(db, {
    cte: WINDOW_CTE,
    from: WINDOW_FROM,
    where: `r.status = 'active' AND (${PERIODIC_CONDITION} ${join} ${HISTORY_CONDITION}) ${seedFilter(o.protectSeeds)}`,
    extraColumns: `COALESCE(win.n, 0) AS in_window, ${PERIODIC_CONDITION} AS periodic_hit, ${HISTORY_CONDITION} AS history_hit`,
    params: { t: o.taskIndex, windowStart, alpha: o.alpha, n: o.minRetrievals, beta: o.beta, eps: UTILITY_EPSILON },
    limit: o.limit,
  });
  const params = { period: o.period, alpha: o.alpha, minRetrievals: o.minRetrievals, beta: o.beta, mode: o.mode, protectSeeds: o.protectSeeds, window: 'sliding' };
  return candidatePlan('combined', o.taskIndex, params, found, (row) => ({
    rule: row.periodic_hit && row.history_hit ? 'periodic+history' : row.periodic_hit ? 'periodic' : 'history',
    evidence: { retrievalsInWindow: row.in_window, windowStart, windowEnd: o.taskIndex, period: o.period, alpha: o.alpha, minRetrievals: o.minRetrievals, beta: o.beta },
  }));
}
