import { deletionQueries } from '../../memory/sqlite/queries/deletion-candidates';
import type { MemoryStore } from '../../memory/sqlite/store';
import { historyThresholdParams, thresholdEvidence } from './history';
import { candidatePlan, CombinedOptions, CombinedOptionsSchema, PolicyDeletionPlan, UTILITY_EPSILON } from './types';

/**
 * Combined deletion (paper §5.1, SPEC §3): periodic and history-based in one
 * set-based query over the same snapshot.
 *
 * Default `mode: 'either'` follows the paper's code (periodic deletion, then
 * history deletion on what is left): a record goes if either rule fires. Its
 * `rule` is `periodic`, `history`, or `periodic+history` when both fire.
 * `mode: 'both'` implements the paper's formula φ_period × φ_history literally.
 *
 * The history part takes the history switches (history.ts): the relative threshold,
 * and `historyPerTask: 'worst'`, under which the plan is every periodic candidate plus
 * at most one history-only candidate, the worst (`both`: the worst record both rules select).
 *
 * @example
 * const plan = planCombined(store, { taskIndex: 600, beta: 0.7 });
 * plan.candidates.map((c) => [c.recordId, c.rule]);
 */
export function planCombined(store: MemoryStore, input: CombinedOptions): PolicyDeletionPlan {
  const o = CombinedOptionsSchema.parse(input);
  const windowStart = o.taskIndex - o.period;
  const queries = deletionQueries(store);
  const threshold = historyThresholdParams(queries, o);
  const p = { ...o, eps: UTILITY_EPSILON, ...threshold };
  const window = o.periodicBounds === 'closed' ? `[t − ${o.period}, t]` : `(t − ${o.period}, t]`;
  const params = { period: o.period, alpha: o.alpha, minRetrievals: o.minRetrievals, beta: o.beta, mode: o.mode, protectSeeds: o.protectSeeds, window, historyThreshold: o.historyThreshold, historyPerTask: o.historyPerTask, ...thresholdEvidence(threshold) };
  let found = queries.combinedCandidates(p, o.limit);
  if (o.historyPerTask === 'worst') {
    if (o.mode === 'both') {
      const worst = queries.combinedCandidates(p, 1, 'worst');
      found = { rows: worst.rows, total: worst.rows.length };
    } else {
      const periodic = queries.periodicCandidates(p, o.limit);
      const worst = queries.historyCandidates(p, 1, undefined, { order: 'worst', notPeriodic: p }).rows[0];
      const rows = periodic.rows.map((r) => ({ ...r, periodic_hit: 1, history_hit: 0 }));
      found = { rows: worst ? [...rows.slice(0, Math.max(0, o.limit - 1)), { ...worst, in_window: worst.in_window ?? 0, periodic_hit: 0, history_hit: 1 }] : rows, total: periodic.total + (worst ? 1 : 0) };
    }
  }
  return candidatePlan('combined', o.taskIndex, params, found, (row) => ({
    rule: row.periodic_hit && row.history_hit ? 'periodic+history' : row.periodic_hit ? 'periodic' : 'history',
    evidence: { retrievalsInWindow: row.in_window, windowStart, windowEnd: o.taskIndex, period: o.period, alpha: o.alpha, minRetrievals: o.minRetrievals, beta: o.beta, ...thresholdEvidence(threshold) },
  }));
}
