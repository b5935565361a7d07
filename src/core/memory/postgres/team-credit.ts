/**
 * The memory tools' outcome on the team memory (the same contract as the personal memory,
 * src/core/tools/tool-credit.ts): the first outcome on an exploratory search logs and counts its
 * retrievals, then only the credited records (the ones the client used, else the ones the task's
 * code follows) keep their rows creditable; the others are marked "not followed", so
 * setTeamUtility gives them no Φ. And the verdicts memory_search shows, read from the space's tasks.
 */
import { codeSimilarity } from '../../similarity/code';
import { DEFAULT_FOLLOW_THRESHOLD } from '../../policy/deletion/types';
import { follows } from '../../policy/follows';
import type { TaskCredit } from '../../policy/memory-manager-types';
import type { TaskVerdict } from '../../agent/task-evaluators';
import type { MemoryRecord } from '../types';
import { awaitsCount, madeInTask, recordVerdict } from '../../tools/tool-credit';
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
  return records.filter((r) => follows(codeSimilarity, r.execution.code, code, language ?? r.execution.language, DEFAULT_FOLLOW_THRESHOLD)).map((r) => r.id);
}

/** Marks the task's not-yet-evaluated retrieval rows followed (credited) or not (no Φ from setTeamUtility). */
export async function markTeamCredit(team: TeamMemoryStore, taskIndex: number, credited: readonly string[]): Promise<void> {
  await team.withClient(
    (c) =>
      c.query('SELECT agent_memory_mark_credit($1, $2, $3::text[])', [team.space, taskIndex, [...credited]]),
    'mark the credited retrievals',
  );
}

/** The verdict on the task that made each record, when one exists (one query for all of them). */
export async function teamVerdicts(team: TeamMemoryStore, records: readonly MemoryRecord[]): Promise<Map<string, TaskVerdict>> {
  const indexes = [...new Set(records.flatMap((r) => madeInTask(r) ?? []))];
  const verdicts = new Map<string, TaskVerdict>();
  if (indexes.length === 0) return verdicts;
  const rows = await team.withClient(
    (c) =>
      c.query<{ task_index: string | number; utility: number | null; evaluator: string | null; log: string | null; record_id: string | null }>(
        'SELECT task_index, utility, evaluator, log, record_id FROM tasks WHERE space = $1 AND task_index = ANY($2::bigint[])',
        [team.space, indexes],
      ),
    'read the verdicts of the records',
    { retryBroken: true },
  );
  const byIndex = new Map(rows.rows.map((r) => [Number(r.task_index), { utility: r.utility, evaluator: r.evaluator, log: parseLog(r.log), recordId: r.record_id }]));
  for (const r of records) {
    const verdict = recordVerdict(r, (index) => byIndex.get(index));
    if (verdict) verdicts.set(r.id, verdict);
  }
  return verdicts;
}

function parseLog(text: string | null): Record<string, unknown> {
  try {
    const value: unknown = text ? JSON.parse(text) : {};
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
