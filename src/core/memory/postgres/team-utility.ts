/**
 * The retrieval log and Φ on the team memory: every counter is an atomic increment in
 * one statement (`x = x + $1`), never read-modify-write, so concurrent clients lose no
 * update. Logging a retrieval twice (a retried request) counts once: rows are keyed by
 * (space, task, record) and only the rows actually inserted bump the counters.
 */
import { z } from 'zod';
import { AgentMemoryError } from '../../errors';
import { redactText } from '../../security/redact';
import type { RetrievalLogEntry } from '../sqlite/store-types';
import type { TeamMemoryStore } from './team-store';

const UnitIntervalSchema = z.number().min(0).max(1);

/** Starts a task: a team-wide unique task index (a sequence, so clients never collide). */
export async function beginTeamTask(team: TeamMemoryStore, question: string): Promise<number> {
  const r = await team.withClient(
    (c) =>
      // The server's function takes the index from the sequence (application roles hold no right on it).
      c.query<{ task_index: number }>('SELECT agent_memory_begin_task($1, $2, $3) AS task_index', [team.space, redactText(question), new Date().toISOString()]),
    'begin a task',
  );
  return r.rows[0].task_index;
}

/** Logs the read step and bumps each record's retrieval counters; returns how many rows were new. */
export async function logTeamRetrievals(team: TeamMemoryStore, taskIndex: number, entries: readonly RetrievalLogEntry[]): Promise<number> {
  if (entries.length === 0) return 0;
  return team.transaction(async (c) => {
    // The owner's function (migration 5) inserts the rows and bumps the counters: no client updates a counter itself.
    const r = await c.query<{ id: string }>('SELECT id FROM agent_memory_log_retrievals($1, $2, $3::text[], $4::int[], $5::float8[]) AS id', [team.space, taskIndex, entries.map((e) => e.recordId), entries.map((e) => e.rank), entries.map((e) => e.inputSimilarity)]);
    const known = await c.query<{ n: number }>('SELECT count(*)::int AS n FROM records WHERE space = $1 AND id = ANY($2::text[])', [team.space, entries.map((e) => e.recordId)]);
    if (known.rows[0].n < new Set(entries.map((e) => e.recordId)).size) {
      throw new AgentMemoryError('NOT_FOUND', `Cannot log a retrieval of a record that is not in space '${team.space}' (purged meanwhile?). Nothing was logged.`);
    }
    return r.rowCount ?? 0;
  }, 'log retrievals');
}

/**
 * Writes Φ onto the task's credited retrieval rows (shown, not "not followed") and onto
 * their records, atomically: a first verdict adds Φ and one to the count; a re-evaluation
 * replaces the old Φ (sum += new − old, count unchanged). Returns the records credited.
 */
export async function setTeamUtility(team: TeamMemoryStore, taskIndex: number, utility: number, evaluator?: string): Promise<string[]> {
  const phi = UnitIntervalSchema.parse(utility);
  return team.transaction(async (c) => {
    const r = await c.query<{ id: string }>('SELECT id FROM agent_memory_set_utility($1, $2, $3, $4) AS id', [team.space, taskIndex, phi, evaluator ?? null]);
    return r.rows.map((row) => row.id);
  }, 'record the utility');
}

/** The retrieval log of a space, in (task, rank) order (export, migrate). */
export interface TeamRetrievalRow {
  taskIndex: number;
  recordId: string;
  rank: number;
  inputSimilarity: number | null;
  outputSimilarity: number | null;
  utility: number | null;
  shown: number;
  followed: number | null;
}

/** Marks retrieval rows of a task that no prompt showed (`shown = 0`): they take no Φ (setTeamUtility credits shown rows only). */
export async function markTeamNotShown(team: TeamMemoryStore, taskIndex: number, recordIds: readonly string[]): Promise<void> {
  if (recordIds.length === 0) return;
  await team.withClient(
    (c) => c.query('SELECT agent_memory_mark_not_shown($1, $2, $3::text[])', [team.space, taskIndex, [...recordIds]]),
    'mark the retrievals not shown',
  );
}

/**
 * The output similarity of one retrieval (the task's code vs the record's), on its row and,
 * as an atomic increment, on the record (a re-measure replaces the old value: sum += new − old).
 */
export async function setTeamOutputSimilarity(team: TeamMemoryStore, taskIndex: number, recordId: string, similarity: number): Promise<void> {
  const value = UnitIntervalSchema.parse(similarity);
  await team.transaction(async (c) => {
    const r = await c.query<{ found: boolean }>('SELECT agent_memory_set_output_similarity($1, $2, $3, $4) AS found', [team.space, taskIndex, recordId, value]);
    if (!r.rows[0].found) throw new AgentMemoryError('NOT_FOUND', `Record '${recordId}' was not retrieved in team task ${taskIndex}. Nothing was changed.`);
  }, 'record the output similarity');
}

/** What finishes a team task row (each field kept when absent). */
export interface TeamTaskFinish {
  log: Record<string, unknown>;
  language?: string;
  code?: string;
  /** The answer as JSON text. */
  answer?: string;
  outcome?: string;
  recordId?: string | null;
  evaluator?: string | null;
  inputSimilarity?: number | null;
  outputSimilarity?: number | null;
}

/** Finishes a team task: its log and what the agent ran, redacted (one statement). */
export async function finishTeamTask(team: TeamMemoryStore, taskIndex: number, done: TeamTaskFinish): Promise<void> {
  await team.withClient(
    (c) =>
      c.query(
        `UPDATE tasks SET log = $3, finished_at = $4, language = COALESCE($5, language), code = COALESCE($6, code), answer = COALESCE($7, answer),
           outcome = COALESCE($8, outcome), record_id = COALESCE($9, record_id), evaluator = COALESCE($10, evaluator),
           input_similarity = COALESCE($11, input_similarity), output_similarity = COALESCE($12, output_similarity) WHERE space = $1 AND task_index = $2`,
        [team.space, taskIndex, redactText(JSON.stringify(done.log)), new Date().toISOString(), done.language ?? null, done.code === undefined ? null : redactText(done.code),
          done.answer === undefined ? null : redactText(done.answer), done.outcome ?? null, done.recordId ?? null, done.evaluator ?? null, done.inputSimilarity ?? null, done.outputSimilarity ?? null],
      ),
    'finish a task',
  );
}
