import { deletionQueries } from '../../memory/sqlite/queries/deletion-candidates';
import type { MemoryStore } from '../../memory/sqlite/store';
import { candidatePlan, ForgettingOptions, ForgettingOptionsSchema, PolicyDeletionPlan } from './types';

/**
 * Retention of a record on the forgetting curve (VIMBank / MemoryBank):
 * R = exp(−Δt / (s·λ)), Δt = tasks since the last retrieval (or since creation
 * if never retrieved), λ = 1 + number of retrievals, s = time scale in tasks.
 *
 * @example
 * retention({ deltaTasks: 184, retrievals: 0, timeScale: 40 }); // ≈ 0.0101
 */
export function retention(input: { deltaTasks: number; retrievals: number; timeScale?: number }): number {
  const lambda = 1 + input.retrievals;
  return Math.exp(-Math.max(0, input.deltaTasks) / ((input.timeScale ?? 1) * lambda));
}

/**
 * Forgetting-curve deletion: delete active records whose retention R < threshold.
 * Set-based: R < θ ⇔ Δt > s·λ·ln(1/θ), evaluated in SQL without exp().
 *
 * @example
 * planForgetting(store, { taskIndex: 1000, threshold: 0.01, timeScale: 40 });
 */
export function planForgetting(store: MemoryStore, input: ForgettingOptions): PolicyDeletionPlan {
  const o = ForgettingOptionsSchema.parse(input);
  const found = deletionQueries(store).forgettingCandidates({ taskIndex: o.taskIndex, logInverseThreshold: Math.log(1 / o.threshold), timeScale: o.timeScale, protectSeeds: o.protectSeeds }, o.limit);
  return candidatePlan('forgetting', o.taskIndex, { threshold: o.threshold, timeScale: o.timeScale, protectSeeds: o.protectSeeds }, found, (row) => {
    const deltaTasks = o.taskIndex - (row.last_retrieved_task ?? row.created_task);
    return {
      rule: 'forgetting',
      evidence: {
        deltaTasks,
        lambda: 1 + row.retrieval_count,
        retention: retention({ deltaTasks, retrievals: row.retrieval_count, timeScale: o.timeScale }),
        threshold: o.threshold,
        timeScale: o.timeScale,
      },
    };
  });
}
