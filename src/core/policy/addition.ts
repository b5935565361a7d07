import type { MemoryStore } from '../memory/sqlite/store';
import type { MemoryRecord, RecordStatus, Trigger } from '../memory/types';
import { AdditionMode, AdditionPolicyName, AdditionPolicyNameSchema } from './names';
import type { Evaluation } from './utility';

export { AdditionPolicyNameSchema };
export type { AdditionMode, AdditionPolicyName };

/**
 * Addition policies (SPEC §2, paper §4): whether a finished task `(q, e)`
 * becomes a memory record, and with which status.
 *
 * - `fixed`: never add.
 * - `all`: add everything, active.
 * - `coarse`: add (active) when a coarse evaluator (LLM judge or the agent's own
 *   termination signal) gave Φ ≥ 0.5.
 * - `strict`, mode `benchmark`: the ground truth decides: active when Φ ≥ 0.5
 *   (i.e. correct), otherwise not added.
 * - `strict`, mode `editor`: stored as `pending` (not retrievable) until the user
 *   approves it; if a human verdict is already known it is applied directly
 *   (approve → active, reject → not added).
 */

export const ADDITION_THRESHOLD = 0.5;

export interface AdditionDecision {
  add: boolean;
  status: Extract<RecordStatus, 'active' | 'pending'> | null;
  reason: string;
}

/** The part of a task result the addition policy looks at. */
export interface AdditionInput {
  outcome: 'success' | 'error' | 'timeout' | 'no-answer';
}

/**
 * Decides whether a task result becomes a record.
 *
 * @example
 * decideAddition('strict', { outcome: 'success' }, { utility: 1, evaluator: 'strict:ground-truth', reason: '' }, 'benchmark');
 * // → { add: true, status: 'active', reason: 'strict: correct per strict:ground-truth' }
 */
export function decideAddition(policy: AdditionPolicyName, task: AdditionInput, evaluation: Evaluation | null, mode: AdditionMode = 'editor'): AdditionDecision {
  switch (policy) {
    case 'fixed':
      return { add: false, status: null, reason: 'fixed: memory is never extended' };
    case 'all':
      return { add: true, status: 'active', reason: `all: every task is stored (outcome ${task.outcome})` };
    case 'coarse': {
      if (!evaluation || evaluation.utility === null) return { add: false, status: null, reason: 'coarse: no automatic evaluation available' };
      const ok = evaluation.utility >= ADDITION_THRESHOLD;
      return { add: ok, status: ok ? 'active' : null, reason: `coarse: ${evaluation.evaluator} said ${ok ? 'yes' : 'no'} (${evaluation.reason})` };
    }
    case 'strict': {
      const strictVerdict = evaluation && evaluation.utility !== null && evaluation.evaluator.startsWith('strict:');
      if (strictVerdict) {
        const ok = evaluation.utility! >= ADDITION_THRESHOLD;
        return { add: ok, status: ok ? 'active' : null, reason: `strict: ${ok ? 'correct' : 'incorrect'} per ${evaluation.evaluator} (${evaluation.reason})` };
      }
      if (mode === 'benchmark') return { add: false, status: null, reason: 'strict: benchmark mode needs a ground-truth evaluation' };
      return { add: true, status: 'pending', reason: 'strict: stored as pending until the user approves it' };
    }
  }
}

/**
 * Approves pending records (pending → active, retrievable), in one transaction
 * with one audit entry each.
 *
 * @example
 * approvePending(store, ['rec-1', 'rec-2'], { trigger: 'user', reason: 'checked the SQL' });
 */
export function approvePending(store: MemoryStore, ids: string[], context: { trigger?: Trigger; reason?: string } = {}): MemoryRecord[] {
  return store.transition(ids, 'approve', { trigger: context.trigger ?? 'user', reason: context.reason ?? 'approved' });
}

/** Rejects pending records (pending → deleted; kept in the audit trail, never retrieved). */
export function rejectPending(store: MemoryStore, ids: string[], context: { trigger?: Trigger; reason?: string } = {}): MemoryRecord[] {
  return store.transition(ids, 'reject', { trigger: context.trigger ?? 'user', reason: context.reason ?? 'rejected' });
}
