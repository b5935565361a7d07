import { deletionQueries } from '../../memory/queries/deletion-candidates';
import type { MemoryStore } from '../../memory/store';
import { candidatePlan, HistoryOptions, HistoryOptionsSchema, PolicyDeletionPlan, UTILITY_EPSILON } from './types';

/**
 * History-based deletion (paper §5.1, SPEC §3): delete active record i when
 * freq_t(i) ≥ n and the mean Φ over its retrievals ≤ β. The paper's text ("retrieved
 * for at least n times"), its appendix ("5 or more times") and its code use ≥ n;
 * only its formula writes > n.
 *
 * Counting choice: freq is the number of *credited* retrievals (Φ known: the
 * record was shown in the prompt, and, under the `followed` attribution, followed);
 * in benchmark runs with the default attribution this is the paper's freq_t(i)
 * over the demonstrations the model actually saw. In the editor, retrievals still
 * awaiting a verdict do not count toward n, which keeps the paper's purpose for n
 * (a minimum sample for the mean). "≤ β" tolerates 1e-9 of floating-point error
 * in the running sums.
 *
 * @example
 * planHistory(store, { taskIndex: 300, minRetrievals: 5, beta: 0.7 }).candidates;
 */
export function planHistory(store: MemoryStore, input: HistoryOptions): PolicyDeletionPlan {
  const o = HistoryOptionsSchema.parse(input);
  const found = deletionQueries(store).historyCandidates({ ...o, eps: UTILITY_EPSILON }, o.limit, o.recordIds);
  return candidatePlan('history', o.taskIndex, { minRetrievals: o.minRetrievals, beta: o.beta, protectSeeds: o.protectSeeds }, found, () => ({
    rule: 'history',
    evidence: { minRetrievals: o.minRetrievals, beta: o.beta },
  }));
}
