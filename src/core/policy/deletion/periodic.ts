import type { Database } from '../../memory/database';
import { candidatePlan, CandidateRow, PeriodicOptions, PeriodicOptionsSchema, PolicyDeletionPlan, runCandidateQuery, seedFilter } from './types';

/**
 * Retrievals of each record inside the window (t − period, t], aggregated
 * set-based from the retrieval log (index retrievals_task): a window of 200
 * tasks with K = 4 is ~800 rows whatever the size of the memory.
 */
export const WINDOW_CTE = 'win AS (SELECT rid, COUNT(*) AS n FROM retrievals WHERE task_index > @windowStart AND task_index <= @t GROUP BY rid)';
export const WINDOW_FROM = 'records r LEFT JOIN win ON win.rid = r.rid';
/** SQL condition of the periodic rule (params @windowStart, @alpha). */
export const PERIODIC_CONDITION = '(r.created_task <= @windowStart AND COALESCE(win.n, 0) <= @alpha)';

/**
 * Periodic deletion (paper §5.1, SPEC §3): delete active record i when
 * freq_t(i) − freq_t'(i) ≤ α, with t' = t − period, i.e. when it was retrieved at
 * most α times in the last `period` tasks (t − period, t]. Only records at least
 * one period old are candidates (created_task ≤ t − period).
 *
 * Window choice: a **sliding window** ending at the current task, as the paper's
 * code. When the rule engine fires it every `period` tasks the windows are
 * exactly the fixed period boundaries (0,200], (200,400], …; the capacity policy
 * runs it after every addition, i.e. sliding.
 *
 * @example
 * const plan = planPeriodic(store.connectionForQueries(), { taskIndex: 400 }); // dry run, nothing changes
 * applyDeletionPlan(store, plan);
 */
export function planPeriodic(db: Database, input: PeriodicOptions): PolicyDeletionPlan {
  const o = PeriodicOptionsSchema.parse(input);
  const windowStart = o.taskIndex - o.period;
  const found = runCandidateQuery<CandidateRow & { in_window: number }>(db, {
    cte: WINDOW_CTE,
    from: WINDOW_FROM,
    where: `r.status = 'active' AND ${PERIODIC_CONDITION} ${seedFilter(o.protectSeeds)}`,
    extraColumns: 'COALESCE(win.n, 0) AS in_window',
    params: { t: o.taskIndex, windowStart, alpha: o.alpha },
    limit: o.limit,
  });
  return candidatePlan('periodic', o.taskIndex, { period: o.period, alpha: o.alpha, protectSeeds: o.protectSeeds, window: 'sliding' }, found, (row) => ({
    rule: 'periodic',
    evidence: { retrievalsInWindow: row.in_window, windowStart, windowEnd: o.taskIndex, period: o.period, alpha: o.alpha },
  }));
}
