import { deletionQueries, DeletionQueries } from '../../memory/sqlite/queries/deletion-candidates';
import type { MemoryStore } from '../../memory/sqlite/store';
import { RELATIVE_Z } from './relative';
import { candidatePlan, HistoryOptions, HistoryOptionsSchema, PolicyDeletionPlan, UTILITY_EPSILON } from './types';

/**
 * History-based deletion (paper §5.1, SPEC §3): delete active record i when
 * freq_t(i) ≥ n and the mean Φ over its retrievals ≤ β. The paper's text ("retrieved
 * for at least n times"), its appendix ("5 or more times") and its code use ≥ n;
 * only its formula writes > n.
 *
 * Counting choice: freq is the number of *credited* retrievals (Φ known: the
 * record was shown in the prompt, and, under the `followed` / `top-output`
 * attributions, followed); in benchmark runs with the default attribution this is
 * the paper's freq_t(i) over the demonstrations the model actually saw. In the
 * editor, retrievals still awaiting a verdict do not count toward n, which keeps
 * the paper's purpose for n (a minimum sample for the mean). "≤ β" tolerates 1e-9
 * of floating-point error in the running sums.
 *
 * Switches (setting agentMemory.deletion.*):
 * - `historyThreshold: 'relative'` (beyond the paper): instead of mean ≤ β, the Wilson
 *   upper bound of the mean (z = 1.96) below the agent's running accuracy (relative.ts);
 * - `historyPerTask: 'worst'` (the paper's code, issue 19): at most one record per plan,
 *   the lowest mean Φ (ties: more evaluated retrievals, then older), instead of every match.
 *
 * @example
 * planHistory(store, { taskIndex: 300, minRetrievals: 5, beta: 0.7 }).candidates;
 */
export function planHistory(store: MemoryStore, input: HistoryOptions): PolicyDeletionPlan {
  const o = HistoryOptionsSchema.parse(input);
  const queries = deletionQueries(store);
  const threshold = historyThresholdParams(queries, o);
  const worst = o.historyPerTask === 'worst';
  const found = queries.historyCandidates({ ...o, eps: UTILITY_EPSILON, ...threshold }, worst ? 1 : o.limit, o.recordIds, { order: worst ? 'worst' : 'oldest' });
  const params = { minRetrievals: o.minRetrievals, beta: o.beta, protectSeeds: o.protectSeeds, historyThreshold: o.historyThreshold, historyPerTask: o.historyPerTask, ...thresholdEvidence(threshold) };
  return candidatePlan('history', o.taskIndex, params, worst ? { rows: found.rows, total: found.rows.length } : found, () => ({
    rule: 'history',
    evidence: { minRetrievals: o.minRetrievals, beta: o.beta, ...thresholdEvidence(threshold) },
  }));
}

/** The history condition's threshold parameters: β, or the running accuracy and z of the relative threshold. */
export interface ThresholdParams {
  threshold: 'paper' | 'relative';
  accuracy: number;
  z: number;
}

/** Resolves the relative threshold's running accuracy (given, else mean Φ of the evaluated tasks up to t; 0 when none). */
export function historyThresholdParams(queries: DeletionQueries, o: { taskIndex: number; historyThreshold: 'paper' | 'relative'; runningAccuracy?: number }): ThresholdParams {
  if (o.historyThreshold === 'paper') return { threshold: 'paper', accuracy: 0, z: RELATIVE_Z };
  return { threshold: 'relative', accuracy: o.runningAccuracy ?? queries.runningAccuracy(o.taskIndex) ?? 0, z: RELATIVE_Z };
}

/** What a plan's evidence says about the relative threshold (nothing for the paper's β). */
export function thresholdEvidence(t: ThresholdParams): Record<string, number> {
  return t.threshold === 'relative' ? { runningAccuracy: t.accuracy, z: t.z } : {};
}
