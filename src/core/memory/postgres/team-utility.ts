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
      c.query<{ task_index: number }>(
        "INSERT INTO tasks (space, task_index, question, started_at) VALUES ($1, nextval('task_index_seq'), $2, $3) RETURNING task_index",
        [team.space, redactText(question), new Date().toISOString()],
      ),
    'begin a task',
  );
  return r.rows[0].task_index;
}

/** Logs the read step and bumps each record's retrieval counters; returns how many rows were new. */
export async function logTeamRetrievals(team: TeamMemoryStore, taskIndex: number, entries: readonly RetrievalLogEntry[]): Promise<number> {
  if (entries.length === 0) return 0;
  return team.transaction(async (c) => {
    const r = await c.query<{ id: string }>(
      `WITH input AS (SELECT * FROM unnest($3::text[], $4::int[], $5::float8[]) AS t(id, rank, sim)),
       ins AS (
         INSERT INTO retrievals (space, task_index, rid, rank, input_similarity)
         SELECT $1, $2, r.rid, i.rank, i.sim FROM input i JOIN records r ON r.space = $1 AND r.id = i.id
         ON CONFLICT (space, task_index, rid) DO NOTHING RETURNING rid, input_similarity),
       -- Records locked in rid order: two clients crediting overlapping records cannot deadlock.
       locked AS (SELECT rid FROM records WHERE rid IN (SELECT rid FROM ins) ORDER BY rid FOR UPDATE)
       UPDATE records SET retrieval_count = retrieval_count + 1,
         last_retrieved_task = GREATEST(COALESCE(last_retrieved_task, 0), $2),
         in_sim_sum = in_sim_sum + COALESCE(ins.input_similarity, 0),
         in_sim_count = in_sim_count + (ins.input_similarity IS NOT NULL)::int
       FROM ins JOIN locked USING (rid) WHERE records.rid = ins.rid RETURNING records.id`,
      [team.space, taskIndex, entries.map((e) => e.recordId), entries.map((e) => e.rank), entries.map((e) => e.inputSimilarity)],
    );
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
    const r = await c.query<{ id: string }>(
      `WITH old AS (
         SELECT id, rid, utility FROM retrievals
         WHERE space = $1 AND task_index = $2 AND shown = 1 AND (followed IS NULL OR followed <> 0) FOR UPDATE),
       upd AS (UPDATE retrievals t SET utility = $3 FROM old WHERE t.id = old.id RETURNING t.rid, old.utility AS before),
       locked AS (SELECT rid FROM records WHERE rid IN (SELECT rid FROM old) ORDER BY rid FOR UPDATE)
       UPDATE records SET utility_sum = utility_sum + $3 - COALESCE(upd.before, 0), utility_count = utility_count + (upd.before IS NULL)::int
       FROM upd JOIN locked USING (rid) WHERE records.rid = upd.rid RETURNING records.id`,
      [team.space, taskIndex, phi],
    );
    await c.query('UPDATE tasks SET utility = $3, evaluator = $4 WHERE space = $1 AND task_index = $2', [team.space, taskIndex, phi, evaluator ?? null]);
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
    (c) =>
      c.query(
        'UPDATE retrievals t SET shown = 0 FROM records r WHERE t.space = $1 AND t.task_index = $2 AND t.utility IS NULL AND r.rid = t.rid AND r.space = $1 AND r.id = ANY($3::text[])',
        [team.space, taskIndex, [...recordIds]],
      ),
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
    const r = await c.query<{ rid: number; before: number | null }>(
      `WITH old AS (
         SELECT t.id, t.rid, t.output_similarity AS before FROM retrievals t JOIN records r ON r.rid = t.rid
         WHERE t.space = $1 AND t.task_index = $2 AND r.space = $1 AND r.id = $3 FOR UPDATE OF t)
       UPDATE retrievals t SET output_similarity = $4 FROM old WHERE t.id = old.id RETURNING t.rid, old.before`,
      [team.space, taskIndex, recordId, value],
    );
    const row = r.rows[0];
    if (!row) throw new AgentMemoryError('NOT_FOUND', `Record '${recordId}' was not retrieved in team task ${taskIndex}. Nothing was changed.`);
    await c.query('UPDATE records SET out_sim_sum = out_sim_sum - COALESCE($2::float8, 0) + $3, out_sim_count = out_sim_count + ($2::float8 IS NULL)::int WHERE rid = $1', [row.rid, row.before, value]);
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
