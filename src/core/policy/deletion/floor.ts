import type { FloorNote, PolicyDeletionPlan } from './types';

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
      `The memory floor (agentMemory.deletion.minActiveRecords = ${minActiveRecords}) kept ${keptCount} of the ${plan.total} record(s) the ${plan.policy} rule selected, ` +
      `so that ${active - allowed} active record(s) remain${named ? `: ${named}${more}` : ''}.`,
  };
  return { ...plan, params, candidates, total: allowed, truncated: allowed > candidates.length, floor };
}
