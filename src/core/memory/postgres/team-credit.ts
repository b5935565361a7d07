/**
 * The memory tools' outcome on the team memory (the same contract as the personal memory,
 * src/core/tools/tool-credit.ts): the first outcome on an exploratory search logs and counts its
 * retrievals, then only the credited records (the ones the client used, else the ones the task's
 * code follows) keep their rows creditable; the others are marked "not followed", so
 * setTeamUtility gives them no Φ.
 */
import { codeSimilarity } from '../../similarity/code';
import { DEFAULT_FOLLOW_THRESHOLD } from '../../policy/deletion/types';
import type { TaskCredit } from '../../policy/memory-manager-types';
import { awaitsCount } from '../../tools/tool-credit';
import type { TeamMemoryStore } from './team-store';
import { logTeamRetrievals } from './team-utility';

interface SearchLog {
  demonstrations: { recordId: string; inputSimilarity: number | null }[];
  counted?: boolean;
}

/** Logs and counts the retrievals of an exploratory search on its first outcome (a counted one is left alone). */
export async function countTeamRetrievals(team: TeamMemoryStore, taskIndex: number, log: SearchLog): Promise<void> {
  if (!awaitsCount(log)) return;
  const present = new Set((await team.getMany(log.demonstrations.map((d) => d.recordId))).map((r) => r.id));
  const entries = log.demonstrations.flatMap((d, rank) => (present.has(d.recordId) ? [{ recordId: d.recordId, rank, inputSimilarity: d.inputSimilarity }] : []));
  await logTeamRetrievals(team, taskIndex, entries);
}

/** The records of a search that take the outcome: `used` as named, or those `code` follows (code similarity ≥ the follow threshold). */
export async function teamCredited(team: TeamMemoryStore, log: SearchLog, credit: TaskCredit, code: string | null, language: string | null): Promise<string[]> {
  if (credit !== 'followed') return [...credit.used];
  if (code === null) return [];
  const records = await team.getMany(log.demonstrations.map((d) => d.recordId));
  return records.filter((r) => safeSimilarity(r.execution.code, code, language ?? r.execution.language) >= DEFAULT_FOLLOW_THRESHOLD).map((r) => r.id);
}

/** Marks the task's not-yet-evaluated retrieval rows followed (credited) or not (no Φ from setTeamUtility). */
export async function markTeamCredit(team: TeamMemoryStore, taskIndex: number, credited: readonly string[]): Promise<void> {
  await team.withClient(
    (c) =>
      c.query(
        `UPDATE retrievals t SET followed = CASE WHEN r.id = ANY($3::text[]) THEN 1 ELSE 0 END
         FROM records r WHERE t.space = $1 AND t.task_index = $2 AND t.utility IS NULL AND r.rid = t.rid AND r.space = $1`,
        [team.space, taskIndex, [...credited]],
      ),
    'mark the credited retrievals',
  );
}

function safeSimilarity(reference: string, candidate: string, language: string): number {
  try {
    const sim = codeSimilarity(reference, candidate, language);
    return Number.isFinite(sim) ? sim : 0;
  } catch {
    return 0;
  }
}
