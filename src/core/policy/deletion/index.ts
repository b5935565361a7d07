import { deletionQueries } from '../../memory/sqlite/queries/deletion-candidates';
import type { MemoryStore } from '../../memory/sqlite/store';
import { planCapacity } from './capacity';
import { withFloor } from './floor';
import { withPeriodicGuard } from './kind-guard';
import { planCombined } from './combined';
import { planForgetting } from './forgetting';
import { planHistory } from './history';
import { planPeriodic } from './periodic';
import type { PeriodicGuard } from '../names';
import { CapacityOptions, capacityRequiredError, CombinedOptions, DEFAULT_MIN_ACTIVE_RECORDS, DeletionPolicyName, ForgettingOptions, HistoryOptions, PolicyDeletionPlan } from './types';

export * from './types';
export { planPeriodic } from './periodic';
export { planHistory } from './history';
export { planCombined } from './combined';
export { planCapacity } from './capacity';
export { planForgetting, retention } from './forgetting';
export { RELATIVE_Z, wilsonUpper, belowRunningAccuracy } from './relative';
export { withFloor, deleteWithinFloor, floorKeptMessage, FLOOR_SETTING, FlooredDelete, FlooredDeleteContext } from './floor';
export { programKind, withPeriodicGuard } from './kind-guard';
export { applyDeletionPlan, restoreRecords, purgeRecords, ApplyResult } from './apply';

/** Options of every policy in one bag (each planner reads what it needs). */
export type DeletionParams = Partial<Omit<CombinedOptions, 'taskIndex'> & Omit<HistoryOptions, 'taskIndex'> & Omit<ForgettingOptions, 'taskIndex'>> & {
  capacity?: number;
  /** §6.2 reading of the capacity rule (see capacity.ts). */
  capacityRule?: CapacityOptions['capacityRule'];
  /** The memory floor (default DEFAULT_MIN_ACTIVE_RECORDS = 1). */
  minActiveRecords?: number;
  /** The periodic guard (default `none`; see kind-guard.ts). */
  periodicGuard?: PeriodicGuard;
};

/**
 * Dry run of the named deletion policy at task `taskIndex` (nothing changes),
 * with the memory floor applied: the plan never takes the active memory below
 * `minActiveRecords`, and `plan.floor` names what the floor kept.
 *
 * @example
 * const plan = planDeletion(store, 'combined', 400, { beta: 0.3 });
 * plan.floor?.sentence; // set when the floor kept records
 */
export function planDeletion(store: MemoryStore, policy: DeletionPolicyName, taskIndex: number, params: DeletionParams = {}): PolicyDeletionPlan {
  const guarded = policy === 'periodic' || policy === 'combined';
  const guard = guarded ? (params.periodicGuard ?? 'none') : 'none';
  const planned = planPolicy(store, policy, taskIndex, params);
  // The guard decides over every candidate: on a truncated plan the records it keeps (the oldest, so
  // the first materialized) could fill the whole materialized part and hide the deletable rest.
  const whole = guard !== 'none' && planned.truncated ? planPolicy(store, policy, taskIndex, { ...params, limit: planned.total }) : planned;
  const plan = guarded ? withPeriodicGuard(store, whole, guard) : whole;
  if (plan.total === 0) return { ...plan, params: { ...plan.params, minActiveRecords: params.minActiveRecords ?? DEFAULT_MIN_ACTIVE_RECORDS }, floor: null };
  const floor = params.minActiveRecords ?? DEFAULT_MIN_ACTIVE_RECORDS;
  // withFloor needs the active count only up to floor + plan size (beyond it nothing is kept): a bounded scan.
  return withFloor(plan, deletionQueries(store).countActiveUpTo(floor + plan.total), floor);
}

function planPolicy(store: MemoryStore, policy: DeletionPolicyName, taskIndex: number, params: DeletionParams): PolicyDeletionPlan {
  switch (policy) {
    case 'periodic':
      return planPeriodic(store, { ...pick(params, ['period', 'alpha', 'protectSeeds', 'limit', ...WINDOW_KEYS]), taskIndex });
    case 'history':
      return planHistory(store, { ...pick(params, ['minRetrievals', 'beta', 'protectSeeds', 'recordIds', ...HISTORY_KEYS]), taskIndex });
    case 'combined':
      return planCombined(store, { ...pick(params, ['period', 'alpha', 'minRetrievals', 'beta', 'mode', 'protectSeeds', 'limit', ...WINDOW_KEYS, ...HISTORY_KEYS]), taskIndex });
    case 'capacity':
      if (params.capacity === undefined) throw capacityRequiredError();
      return planCapacity(store, { ...pick(params, ['period', 'alpha', 'protectSeeds', 'capacity', 'capacityRule', ...WINDOW_KEYS]), taskIndex } as CapacityOptions);
    case 'forgetting':
      return planForgetting(store, { ...pick(params, ['threshold', 'timeScale', 'protectSeeds']), taskIndex });
  }
}

/** The fidelity switches and modes each planner reads (types.ts documents them). */
const WINDOW_KEYS = ['periodicBounds'];
const HISTORY_KEYS = ['historyThreshold', 'runningAccuracy', 'historyPerTask'];

function pick<T extends object>(obj: T, keys: string[]): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if ((obj as Record<string, unknown>)[k] !== undefined) out[k] = (obj as Record<string, unknown>)[k];
  return out as Partial<T>;
}
