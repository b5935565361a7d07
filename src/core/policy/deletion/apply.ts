import type { MemoryStore } from '../../memory/store';
import type { MemoryRecord, Trigger } from '../../memory/types';
import type { DeletionPlan } from './types';

export interface ApplyResult {
  /** Records soft-deleted now. */
  deleted: string[];
  /** Plan entries skipped because the record is no longer active (changed since the dry run). */
  skipped: string[];
}

/**
 * Applies a dry-run plan as soft deletes, in one transaction, writing each
 * candidate's rule and evidence to the audit log. Records that stopped being
 * active since the plan was computed are skipped, not failed.
 *
 * @example
 * const plan = planCombined(store.connectionForQueries(), { taskIndex: 400 });
 * applyDeletionPlan(store, plan, 'rule:periodic-deletion');
 */
export function applyDeletionPlan(store: MemoryStore, plan: DeletionPlan, trigger: Trigger = `rule:${plan.policy}`): ApplyResult {
  if (plan.candidates.length === 0) return { deleted: [], skipped: [] };
  const ids = plan.candidates.map((c) => c.recordId);
  const active = new Set(
    (store.connectionForQueries().prepare("SELECT id FROM records WHERE status = 'active' AND id IN (SELECT value FROM json_each(?))").all(JSON.stringify(ids)) as { id: string }[]).map((r) => r.id),
  );
  const deleted = ids.filter((id) => active.has(id));
  const skipped = ids.filter((id) => !active.has(id));
  if (deleted.length > 0) {
    const evidence: Record<string, Record<string, unknown>> = {};
    for (const c of plan.candidates) if (active.has(c.recordId)) evidence[c.recordId] = { policy: plan.policy, rule: c.rule, taskIndex: plan.taskIndex, ...c.evidence };
    store.transition(deleted, 'delete', { trigger, reason: `${plan.policy} deletion at task ${plan.taskIndex}`, evidence });
  }
  return { deleted, skipped };
}

/** Restores soft-deleted records (to the status they had), with audit entries. */
export function restoreRecords(store: MemoryStore, ids: string[], context: { trigger?: Trigger; reason?: string } = {}): MemoryRecord[] {
  return store.transition(ids, 'restore', { trigger: context.trigger ?? 'user', reason: context.reason ?? 'restored' });
}

/** Removes soft-deleted records for good (the audit trail keeps their entries). */
export function purgeRecords(store: MemoryStore, ids: string[], context: { trigger?: Trigger; reason?: string } = {}): void {
  store.transition(ids, 'purge', { trigger: context.trigger ?? 'user', reason: context.reason ?? 'purged' });
}
