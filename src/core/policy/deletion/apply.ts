import type { MemoryStore } from '../../memory/sqlite/store';
import type { MemoryRecord, Trigger } from '../../memory/types';
import { deleteWithinFloor } from './floor';
import { DEFAULT_MIN_ACTIVE_RECORDS, DeletionPlan } from './types';

export interface ApplyResult {
  /** Records soft-deleted now. */
  deleted: string[];
  /** Plan entries skipped because the record is no longer active (changed since the dry run). */
  skipped: string[];
  /** Plan entries the memory floor kept (the memory shrank since the dry run). */
  floorKept: string[];
}

/**
 * Applies a dry-run plan as soft deletes, in one transaction, writing each
 * candidate's rule and evidence to the audit log. Records that stopped being
 * active since the plan was computed are skipped, not failed. The memory floor
 * is enforced again here, in the same transaction as the write (the memory may
 * have shrunk since the dry run): the plan's `minActiveRecords`, else
 * `options.minActiveRecords`, else 1. Goes through `deleteWithinFloor`, like
 * every other deletion.
 *
 * @example
 * const plan = planCombined(store, { taskIndex: 400 });
 * applyDeletionPlan(store, plan, 'rule:periodic-deletion');
 */
export function applyDeletionPlan(store: MemoryStore, plan: DeletionPlan & { params?: Record<string, unknown> }, trigger: Trigger = `rule:${plan.policy}`, options: { minActiveRecords?: number } = {}): ApplyResult {
  if (plan.candidates.length === 0) return { deleted: [], skipped: [], floorKept: [] };
  const planFloor = plan.floor?.minActiveRecords ?? plan.params?.minActiveRecords;
  const minActiveRecords = typeof planFloor === 'number' ? planFloor : (options.minActiveRecords ?? DEFAULT_MIN_ACTIVE_RECORDS);
  const evidence: Record<string, Record<string, unknown>> = {};
  for (const c of plan.candidates) evidence[c.recordId] = { policy: plan.policy, rule: c.rule, taskIndex: plan.taskIndex, ...c.evidence };
  const { deleted, skipped, floorKept } = deleteWithinFloor(
    store,
    plan.candidates.map((c) => c.recordId),
    { trigger, reason: `${plan.policy} deletion at task ${plan.taskIndex}`, evidence, minActiveRecords, inactive: 'skip' },
  );
  return { deleted, skipped, floorKept };
}

/** Restores soft-deleted records (to the status they had), with audit entries. */
export function restoreRecords(store: MemoryStore, ids: string[], context: { trigger?: Trigger; reason?: string } = {}): MemoryRecord[] {
  return store.transition(ids, 'restore', { trigger: context.trigger ?? 'user', reason: context.reason ?? 'restored' });
}

/** Removes soft-deleted records for good (the audit trail keeps their entries). */
export function purgeRecords(store: MemoryStore, ids: string[], context: { trigger?: Trigger; reason?: string } = {}): void {
  store.transition(ids, 'purge', { trigger: context.trigger ?? 'user', reason: context.reason ?? 'purged' });
}
