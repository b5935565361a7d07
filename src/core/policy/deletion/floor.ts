import { deletionQueries } from '../../memory/sqlite/queries/deletion-candidates';
import type { MemoryStore } from '../../memory/sqlite/store';
import type { Trigger } from '../../memory/types';
import type { FloorNote, PolicyDeletionPlan } from './types';

/** The setting that holds the memory floor (named in every message about it). */
export const FLOOR_SETTING = 'agentMemory.deletion.minActiveRecords';

/**
 * Applies the memory floor to a plan (SPEC §3; the paper's code's MIN_MEMORY_SIZE):
 * with `active` records and a floor of `minActiveRecords`, at most
 * active − minActiveRecords records may go. The plan keeps its first candidates
 * (its own priority order: oldest first, or lowest utility first for capacity)
 * and the floor keeps the rest, named in `plan.floor` with a sentence for the preview.
 *
 * @example
 * // 3 active records, floor 1, a periodic plan for all 3 → 2 candidates, 1 kept by the floor.
 * withFloor(plan, 3, 1).floor?.sentence;
 */
export function withFloor(plan: PolicyDeletionPlan, active: number, minActiveRecords: number): PolicyDeletionPlan {
  const allowed = Math.max(0, active - minActiveRecords);
  const params = { ...plan.params, minActiveRecords };
  if (plan.total <= allowed) return { ...plan, params, floor: null };
  const keptCount = plan.total - allowed;
  const candidates = plan.candidates.slice(0, allowed);
  const kept = plan.candidates.slice(allowed);
  const named = kept.slice(0, 5).map((c) => `'${c.question || c.recordId}'`).join(', ');
  const more = kept.length > 5 ? ` and ${keptCount - 5} more` : keptCount > kept.length ? ` and ${keptCount - kept.length} not listed` : '';
  const floor: FloorNote = {
    minActiveRecords,
    activeBefore: active,
    keptCount,
    kept,
    sentence:
      `The memory floor (${FLOOR_SETTING} = ${minActiveRecords}) kept ${keptCount} of the ${plan.total} record(s) the ${plan.policy} rule selected, ` +
      `so that ${active - allowed} active record(s) remain${named ? `: ${named}${more}` : ''}.`,
  };
  return { ...plan, params, candidates, total: allowed, truncated: allowed > candidates.length, floor };
}

export interface FlooredDeleteContext {
  trigger: Trigger;
  reason: string;
  /** The memory floor: active records that must remain. */
  minActiveRecords: number;
  /** Audit evidence per record id. */
  evidence?: Record<string, Record<string, unknown>>;
  /**
   * `skip` (deletion plans): ids that are no longer active are skipped, not failed.
   * `fail` (user deletes): the store's rules apply — pending and active records may be
   * deleted, any other id fails the whole batch with nothing changed.
   */
  inactive: 'skip' | 'fail';
}

export interface FlooredDelete {
  /** Records soft-deleted now, in the order given. */
  deleted: string[];
  /** Ids skipped because they were not active (`inactive: 'skip'` only). */
  skipped: string[];
  /** Active records the memory floor kept: the last ones in the order given. */
  floorKept: string[];
  /**
   * Active records before the deletion, counted only up to minActiveRecords + the active
   * records asked for (a bounded scan); exact whenever the floor kept any.
   */
  activeBefore: number;
}

/**
 * THE deletion step every path goes through (deletion rules, previewed plans, capacity,
 * forgetting, the user's Delete, undo of a restore): soft-deletes `ids` in one IMMEDIATE
 * transaction, but never takes the active memory below `minActiveRecords`. The active
 * count is read inside the same transaction as the write, so another process (an MCP
 * server, the CLI, a second window) cannot slip a deletion in between. Pending records
 * do not count toward the floor and are always deleted; active ones are deleted in the
 * order given until the floor is reached, and the rest are kept (`floorKept`).
 *
 * @example
 * // 3 active records a, b, c; floor 2; the user deletes [a, b] → a deleted, b kept.
 * deleteWithinFloor(store, ['a', 'b'], { trigger: 'user', reason: 'deleted by the user', minActiveRecords: 2, inactive: 'fail' });
 */
export function deleteWithinFloor(store: MemoryStore, ids: readonly string[], context: FlooredDeleteContext): FlooredDelete {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return { deleted: [], skipped: [], floorKept: [], activeBefore: 0 };
  const queries = deletionQueries(store);
  return store.atomically(() => {
    const active = queries.activeAmong(unique);
    // Counted only as far as the decision needs (floor + the active records asked for): a bounded scan.
    const activeBefore = queries.countActiveUpTo(context.minActiveRecords + active.size);
    let allowed = Math.max(0, activeBefore - context.minActiveRecords);
    const deleted: string[] = [];
    const skipped: string[] = [];
    const floorKept: string[] = [];
    for (const id of unique) {
      if (!active.has(id)) {
        // Pending (or, for 'fail', anything the store then refuses with INVALID_STATE / NOT_FOUND).
        if (context.inactive === 'skip') skipped.push(id);
        else deleted.push(id);
      } else if (allowed > 0) {
        deleted.push(id);
        allowed--;
      } else {
        floorKept.push(id);
      }
    }
    if (deleted.length > 0) {
      const evidence = context.evidence ? Object.fromEntries(deleted.filter((id) => context.evidence![id]).map((id) => [id, context.evidence![id]])) : undefined;
      store.transition(deleted, 'delete', { trigger: context.trigger, reason: context.reason, ...(evidence ? { evidence } : {}), returnRecords: false });
    }
    return { deleted, skipped, floorKept, activeBefore };
  });
}

/**
 * The sentence a user reads when the floor kept records out of a deletion they asked for:
 * which records, why, and how to change it.
 *
 * @example
 * floorKeptMessage([{ id: 'b', question: 'how many patients?' }], 1, 1);
 * // "Kept 1 record: the memory floor (agentMemory.deletion.minActiveRecords = 1) keeps at least 1 active record(s) …"
 */
export function floorKeptMessage(kept: readonly { id: string; question: string }[], minActiveRecords: number, deletedCount: number): string {
  const named = kept.slice(0, 5).map((r) => `'${r.question || r.id}'`).join(', ');
  const more = kept.length > 5 ? ` and ${kept.length - 5} more` : '';
  const done = deletedCount > 0 ? `Deleted ${deletedCount} record(s); kept` : 'Deleted nothing; kept';
  return (
    `${done} ${kept.length} active record(s): ${named}${more}. ` +
    `The memory floor (${FLOOR_SETTING} = ${minActiveRecords}) keeps at least ${minActiveRecords} active record(s), and deleting ${kept.length === 1 ? 'it' : 'them'} would go below it. ` +
    `To delete ${kept.length === 1 ? 'it' : 'them'}, lower ${FLOOR_SETTING} in Settings (0 allows an empty memory), or approve or add other records first.`
  );
}
