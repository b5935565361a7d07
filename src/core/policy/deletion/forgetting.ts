import type { Database } from '../../memory/database';
import { candidatePlan, CandidateRow, ForgettingOptions, ForgettingOptionsSchema, PolicyDeletionPlan, runCandidateQuery, seedFilter } from './types';

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
 * planForgetting(store.connectionForQueries(), { taskIndex: 1000, threshold: 0.01, timeScale: 40 });
 */
export function planForgetting(db: Database, input: ForgettingOptions): PolicyDeletionPlan {
  const o = ForgettingOptionsSchema.parse(input);
  const k = Math.log(1 / o.threshold);
  const found = runCandidateQuery<CandidateRow>(db, {
    where: `r.status = 'active' ${seedFilter(o.protectSeeds)} AND (@t - COALESCE(r.last_retrieved_task, r.created_task)) > @k * @s * (1 + r.retrieval_count)`,
    params: { t: o.taskIndex, k, s: o.timeScale },
    limit: o.limit,
  });
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
