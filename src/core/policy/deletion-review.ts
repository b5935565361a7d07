/**
 * Deletions the user reviews (`agentMemory.deletion.review = propose`): an automatic
 * rule's candidates become proposals (nothing deleted); the user confirms them (soft
 * delete, within the memory floor, with the rule's evidence in the audit) or keeps
 * them (exempt from every rule for one period; the choice is audited). Also the one
 * definition of a "large" deletion, which the editor asks about again.
 */
import type { ProposalRow } from '../memory/sqlite/queries/review';
import { reviewQueries } from '../memory/sqlite/queries/review';
import type { MemoryStore } from '../memory/sqlite/store';
import type { Trigger } from '../memory/types';
import { deleteWithinFloor } from './deletion/floor';
import type { PolicyDeletionPlan } from './deletion/types';

export type { ProposalRow };

/** A deletion of more than this share of the active memory asks again, with the count. */
export const LARGE_DELETION_SHARE = 0.25;

/** True when deleting `count` of `active` records is more than LARGE_DELETION_SHARE of the active memory. */
export function isLargeDeletion(count: number, active: number): boolean {
  return count > 0 && count > active * LARGE_DELETION_SHARE;
}

/** The question asked again before a large deletion (the count, the share, that it is restorable). */
export function largeDeletionMessage(count: number, active: number): string {
  const share = active > 0 ? Math.round((100 * count) / active) : 100;
  return `Delete ${count} of ${active} active record(s) (${share} % of the memory)? This is more than ${Math.round(LARGE_DELETION_SHARE * 100)} %. They stay restorable until purged.`;
}

/** Plan candidates minus the records the user kept (exempt at the plan's task). */
export function withoutExempt(store: MemoryStore, plan: PolicyDeletionPlan): PolicyDeletionPlan {
  if (plan.candidates.length === 0) return plan;
  const exempt = reviewQueries(store).exemptAmong(plan.candidates.map((c) => c.recordId), plan.taskIndex);
  if (exempt.size === 0) return plan;
  const candidates = plan.candidates.filter((c) => !exempt.has(c.recordId));
  return { ...plan, candidates, total: plan.total - exempt.size };
}

/** Stores a plan's candidates as proposals (nothing is deleted); returns the ids newly proposed. */
export function proposePlan(store: MemoryStore, plan: PolicyDeletionPlan, trigger: Trigger): string[] {
  return reviewQueries(store).propose(
    plan.candidates.map((c) => ({ recordId: c.recordId, policy: plan.policy, rule: c.rule, evidence: c.evidence, trigger, taskIndex: plan.taskIndex })),
  );
}

export interface ConfirmedDeletion {
  /** Records soft-deleted now (restorable). */
  deleted: string[];
  /** Active records the memory floor kept (their proposals stay open). */
  floorKept: string[];
  /** Proposals withdrawn instead: their records were retrieved after the task that proposed them. */
  withdrawn: string[];
}

/**
 * Confirms proposals: soft-deletes the records (within the memory floor), each audited
 * with the proposing rule and its evidence, and closes their proposals. Ids without an
 * open proposal are ignored.
 */
export function confirmProposals(store: MemoryStore, ids: readonly string[], minActiveRecords: number): ConfirmedDeletion {
  const queries = reviewQueries(store);
  return store.atomically(() => {
    // Never on stale evidence: a record retrieved since its proposal is not deleted by this confirm.
    const withdrawn = queries.withdrawStale().filter((id) => ids.includes(id));
    const open = queries.proposalsOf(ids);
    const wanted = ids.filter((id) => open.has(id));
    const evidence = Object.fromEntries(wanted.map((id) => {
      const p = open.get(id)!;
      return [id, { policy: p.policy, rule: p.rule, taskIndex: p.taskIndex, proposedBy: p.trigger, ...p.evidence }];
    }));
    const result = deleteWithinFloor(store, wanted, { trigger: 'user', reason: 'proposed deletion confirmed by the user', evidence, minActiveRecords, inactive: 'skip' });
    queries.dropProposals([...result.deleted, ...result.skipped]);
    return { deleted: result.deleted, floorKept: result.floorKept, withdrawn };
  });
}

/**
 * Keeps proposed records: closes their proposals and exempts them from every deletion
 * rule until task `taskIndex + period` (one period); each choice is audited ('keep').
 */
export function keepProposals(store: MemoryStore, ids: readonly string[], taskIndex: number, period: number): string[] {
  const queries = reviewQueries(store);
  const untilTask = taskIndex + period;
  return store.atomically(() => {
    const open = queries.proposalsOf(ids);
    const kept = ids.filter((id) => open.has(id));
    queries.exempt(kept, untilTask);
    for (const id of kept) {
      const p = open.get(id)!;
      store.writeAudit('keep', id, 'user', `kept by the user: exempt from deletion rules until task ${untilTask} (one period)`, { policy: p.policy, rule: p.rule, proposedAt: p.taskIndex, untilTask });
    }
    queries.dropProposals(kept);
    return kept;
  });
}
