import { deletionQueries } from '../../memory/queries/deletion-candidates';
import type { MemoryStore } from '../../memory/store';
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
 * @example
 * const plan = planCombined(store, { taskIndex: 600, beta: 0.7 });
 * plan.candidates.map((c) => [c.recordId, c.rule]);
 */
export function planCombined(store: MemoryStore, input: CombinedOptions): PolicyDeletionPlan {
  const o = CombinedOptionsSchema.parse(input);
  const windowStart = o.taskIndex - o.period;
  const found = deletionQueries(store).combinedCandidates({ ...o, eps: UTILITY_EPSILON }, o.limit);
  const params = { period: o.period, alpha: o.alpha, minRetrievals: o.minRetrievals, beta: o.beta, mode: o.mode, protectSeeds: o.protectSeeds, window: `(t − ${o.period}, t]` };
  return candidatePlan('combined', o.taskIndex, params, found, (row) => ({
    rule: row.periodic_hit && row.history_hit ? 'periodic+history' : row.periodic_hit ? 'periodic' : 'history',
    evidence: { retrievalsInWindow: row.in_window, windowStart, windowEnd: o.taskIndex, period: o.period, alpha: o.alpha, minRetrievals: o.minRetrievals, beta: o.beta },
  }));
}
