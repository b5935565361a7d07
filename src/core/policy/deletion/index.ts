import { AgentMemoryError } from '../../errors';
import type { Database } from '../../memory/database';
import { planCapacity } from './capacity';
import { planCombined } from './combined';
import { planForgetting } from './forgetting';
import { planHistory } from './history';
import { planPeriodic } from './periodic';
import type { CapacityOptions, CombinedOptions, DeletionPolicyName, ForgettingOptions, HistoryOptions, PeriodicOptions, PolicyDeletionPlan } from './types';

export * from './types';
export { planPeriodic, WINDOW_CTE } from './periodic';
export { planHistory } from './history';
export { planCombined } from './combined';
export { planCapacity } from './capacity';
export { planForgetting, retention } from './forgetting';
export { applyDeletionPlan, restoreRecords, purgeRecords, ApplyResult } from './apply';

/** Options of every policy in one bag (each planner reads what it needs). */
export type DeletionParams = Partial<Omit<CombinedOptions, 'taskIndex'> & Omit<HistoryOptions, 'taskIndex'> & Omit<ForgettingOptions, 'taskIndex'>> & {
  capacity?: number;
};

/**
 * Dry run of the named deletion policy at task `taskIndex` (nothing changes).
 *
 * @example
 * const plan = planDeletion(store.connectionForQueries(), 'combined', 400, { beta: 0.3 });
 */
export function planDeletion(db: Database, policy: DeletionPolicyName, taskIndex: number, params: DeletionParams = {}): PolicyDeletionPlan {
  switch (policy) {
    case 'periodic':
      return planPeriodic(db, { ...pick(params, ['period', 'alpha', 'protectSeeds']), taskIndex } as PeriodicOptions);
    case 'history':
      return planHistory(db, { ...pick(params, ['minRetrievals', 'beta', 'protectSeeds', 'recordIds']), taskIndex } as HistoryOptions);
    case 'combined':
      return planCombined(db, { ...pick(params, ['period', 'alpha', 'minRetrievals', 'beta', 'mode', 'protectSeeds']), taskIndex } as CombinedOptions);
    case 'capacity':
      if (params.capacity === undefined) throw new AgentMemoryError('CONFIG', 'Capacity-limited deletion needs a capacity: set agentMemory.deletion.capacity (a number of records).');
      return planCapacity(db, { ...pick(params, ['period', 'alpha', 'protectSeeds', 'capacity']), taskIndex } as CapacityOptions);
    case 'forgetting':
      return planForgetting(db, { ...pick(params, ['threshold', 'timeScale', 'protectSeeds']), taskIndex } as ForgettingOptions);
  }
}

function pick<T extends object>(obj: T, keys: string[]): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if ((obj as Record<string, unknown>)[k] !== undefined) out[k] = (obj as Record<string, unknown>)[k];
  return out as Partial<T>;
}
