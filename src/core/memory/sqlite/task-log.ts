import type { Statement } from 'better-sqlite3';
import { z } from 'zod';
import { AgentMemoryError } from '../../errors';
import { RedactionTally, redactText } from '../../security/redact';
import type { MemoryStore, RetrievalLogEntry } from './store';

/** Φ and output similarities are in [0, 1] (schemas built once: building one costs more than parsing). */
const UnitIntervalSchema = z.number().min(0).max(1);

const SQL = {
  insertTask: 'INSERT INTO tasks (task_index, question, started_at) VALUES (?, ?, ?)',
  finish: `UPDATE tasks SET language = COALESCE(?, language), code = COALESCE(?, code), answer = COALESCE(?, answer),
      outcome = COALESCE(?, outcome), evaluator = COALESCE(?, evaluator), input_similarity = COALESCE(?, input_similarity),
      output_similarity = COALESCE(?, output_similarity), record_id = COALESCE(?, record_id), finished_at = ?,
      log = COALESCE(?, log) WHERE task_index = ?`,
  get: 'SELECT * FROM tasks WHERE task_index = ?',
  list: 'SELECT * FROM tasks WHERE task_index >= ? ORDER BY task_index LIMIT ?',
  insertRetrieval: 'INSERT INTO retrievals (task_index, rid, rank, input_similarity) VALUES (?, ?, ?, ?)',
  bumpRetrieved: 'UPDATE records SET retrieval_count = retrieval_count + 1, last_retrieved_task = MAX(COALESCE(last_retrieved_task, 0), @task), in_sim_sum = in_sim_sum + COALESCE(@sim, 0), in_sim_count = in_sim_count + (@sim IS NOT NULL) WHERE rid = @rid',
  // One pass over the task's retrieval rows: undo a previous evaluation's Φ (if any) and apply the new one.
  // Only credited rows (shown in the prompt, and not judged 'not followed') take Φ; see markAttribution.
  utilityOnRecords: `UPDATE records SET utility_sum = utility_sum - COALESCE(r.utility, 0) + ?, utility_count = utility_count + (r.utility IS NULL)
      FROM retrievals r WHERE r.task_index = ? AND r.rid = records.rid AND r.shown = 1 AND COALESCE(r.followed, 1) = 1`,
  utilityOnRetrievals: 'UPDATE retrievals SET utility = ? WHERE task_index = ? AND shown = 1 AND COALESCE(followed, 1) = 1',
  // Attribution marks of a task in two statements: the rids of the records named (in order, NULL when unknown), then
  // one UPDATE over the [rid, shown, followed] triples.
  ridsOf: 'SELECT j.key, r.rid FROM json_each(?) j LEFT JOIN records r ON r.id = j.value',
  attribution: `UPDATE retrievals SET shown = m.value ->> 1, followed = m.value ->> 2 FROM json_each(?) m
      WHERE retrievals.task_index = ? AND retrievals.rid = m.value ->> 0 AND retrievals.utility IS NULL`,
  utilityOnTask: 'UPDATE tasks SET utility = ?, evaluator = COALESCE(?, evaluator) WHERE task_index = ?',
  // The inverse of the three above: take a task's Φ back off the records and rows it was credited to.
  withdrawOnRecords: `UPDATE records SET utility_sum = utility_sum - r.utility, utility_count = utility_count - 1
      FROM retrievals r WHERE r.task_index = ? AND r.rid = records.rid AND r.utility IS NOT NULL`,
  withdrawOnRetrievals: 'UPDATE retrievals SET utility = NULL WHERE task_index = ? AND utility IS NOT NULL',
  withdrawOnTask: 'UPDATE tasks SET utility = NULL, evaluator = ? WHERE task_index = ?',
  retrievalOf: 'SELECT r.rid, r.output_similarity FROM retrievals r JOIN records ON records.rid = r.rid WHERE records.id = ? AND r.task_index = ?',
  outputOnRetrieval: 'UPDATE retrievals SET output_similarity = ? WHERE task_index = ? AND rid = ?',
  outputOnRecord: 'UPDATE records SET out_sim_sum = out_sim_sum - COALESCE(?, 0) + ?, out_sim_count = out_sim_count + (? IS NULL) WHERE rid = ?',
  creditedOf: 'SELECT records.id FROM retrievals r JOIN records ON records.rid = r.rid WHERE r.task_index = ? AND r.utility IS NOT NULL ORDER BY r.rank',
  retrievalsOf: 'SELECT task_index, rank, input_similarity, output_similarity, utility, shown, followed FROM retrievals WHERE rid = ? ORDER BY task_index DESC LIMIT ?',
} as const;

export interface TaskRow {
  taskIndex: number;
  question: string;
  language: string | null;
  code: string | null;
  answer: unknown;
  outcome: string | null;
  utility: number | null;
  evaluator: string | null;
  inputSimilarity: number | null;
  outputSimilarity: number | null;
  recordId: string | null;
  startedAt: string;
  finishedAt: string | null;
  log: Record<string, unknown>;
}

export const TaskFinishSchema = z.object({
  language: z.string().optional(),
  code: z.string().optional(),
  answer: z.unknown().optional(),
  outcome: z.string().optional(),
  evaluator: z.string().optional(),
  inputSimilarity: z.number().nullable().optional(),
  outputSimilarity: z.number().nullable().optional(),
  recordId: z.string().nullable().optional(),
  log: z.record(z.string(), z.unknown()).optional(),
});
export type TaskFinish = z.infer<typeof TaskFinishSchema>;

/**
 * The task log and the retrieval log (one row per (task, record) retrieval).
 * Utility Φ of a task is written onto every retrieval row of that task, and the
 * per-record counters on `records` are kept in step in the same transaction.
 *
 * @example
 * const tasks = new TaskLog(store);
 * const t = tasks.begin('how many patients were admitted in 2104?');
 * tasks.logRetrievals(t, [{ recordId, rank: 0, inputSimilarity: 0.82 }]);
 * tasks.setUtility(t, 1);
 */
export class TaskLog {
  /** Prepared statements, built on first use (preparing costs more than running these point queries). */
  private readonly statements = new Map<keyof typeof SQL, Statement>();

  constructor(private readonly store: MemoryStore) {}

  private get db() {
    return this.store.connectionForQueries();
  }

  private stmt(name: keyof typeof SQL): Statement {
    let statement = this.statements.get(name);
    if (!statement) {
      statement = this.db.prepare(SQL[name]);
      this.statements.set(name, statement);
    }
    return statement;
  }

  /** Index the next task will get (tasks are numbered 1, 2, …). */
  get nextIndex(): number {
    return Number(this.store.getMeta('next_task_index') ?? '1');
  }

  /** Index of the last begun task (0 before any task). */
  get currentIndex(): number {
    return this.nextIndex - 1;
  }

  begin(question: string): number {
    const run = this.db.transaction(() => {
      const index = this.nextIndex;
      this.stmt('insertTask').run(index, redactText(question), new Date().toISOString());
      this.store.setMeta('next_task_index', String(index + 1));
      return index;
    });
    return this.store.guard(() => run.immediate());
  }

  finish(taskIndex: number, input: TaskFinish): void {
    // The task log is stored: its code, answer and log (prompts, outputs, errors) are redacted first.
    const clean = new RedactionTally();
    const f = clean.json(TaskFinishSchema.parse(input));
    const info = this.stmt('finish').run(
      f.language ?? null,
      f.code ?? null,
      f.answer === undefined ? null : JSON.stringify(f.answer),
      f.outcome ?? null,
      f.evaluator ?? null,
      f.inputSimilarity ?? null,
      f.outputSimilarity ?? null,
      f.recordId ?? null,
      new Date().toISOString(),
      f.log ? JSON.stringify(f.log) : null,
      taskIndex,
    );
    if (info.changes === 0) throw new AgentMemoryError('NOT_FOUND', `No task ${taskIndex} to finish.`);
    this.store.fireChange({ kind: 'task', ids: [] });
  }

  get(taskIndex: number): TaskRow | undefined {
    const r = this.stmt('get').get(taskIndex) as Record<string, unknown> | undefined;
    return r ? toTaskRow(r) : undefined;
  }

  /** Tasks in index order (for dashboards and reports). */
  list(options: { fromIndex?: number; limit?: number } = {}): TaskRow[] {
    const rows = this.stmt('list').all(options.fromIndex ?? 0, options.limit ?? 1_000_000) as Record<string, unknown>[];
    return rows.map(toTaskRow);
  }

  /** Logs the read step: one retrieval row per (task, record), and bumps each record's counters. */
  logRetrievals(taskIndex: number, entries: RetrievalLogEntry[]): void {
    if (entries.length === 0) return;
    const insert = this.stmt('insertRetrieval');
    const bump = this.stmt('bumpRetrieved');
    const run = this.db.transaction(() => {
      for (const e of entries) {
        const rid = this.store.ridOf(e.recordId);
        if (rid === undefined) throw new AgentMemoryError('NOT_FOUND', `Cannot log a retrieval of unknown record '${e.recordId}'.`);
        insert.run(taskIndex, rid, e.rank, e.inputSimilarity);
        bump.run({ task: taskIndex, sim: e.inputSimilarity ?? null, rid });
      }
    });
    this.store.guard(() => run.immediate());
    this.store.fireChange({ kind: 'retrieval', ids: entries.map((e) => e.recordId) });
  }

  /**
   * Marks which of the task's retrievals were shown in the prompt and, under the
   * `followed` attribution, whether the generated code followed them
   * (null = not assessed). Call before setUtility: Φ goes only to rows shown and
   * not marked "not followed". Rows that already carry a Φ are left alone.
   */
  markAttribution(taskIndex: number, entries: readonly { recordId: string; shown: boolean; followed: boolean | null }[]): void {
    if (entries.length === 0) return;
    const rids = new Array<number | null>(entries.length).fill(null);
    for (const [i, rid] of this.stmt('ridsOf').raw(true).all(JSON.stringify(entries.map((e) => e.recordId))) as [number, number | null][]) rids[i] = rid;
    const unknown = rids.indexOf(null);
    if (unknown >= 0) throw new AgentMemoryError('NOT_FOUND', `Cannot mark the attribution of unknown record '${entries[unknown].recordId}'.`);
    // A record named twice takes its last mark (as one update per entry, in order, would leave it).
    const marks = new Map<number, [number, number, number | null]>();
    entries.forEach((e, i) => marks.set(rids[i]!, [rids[i]!, e.shown ? 1 : 0, e.followed === null ? null : e.followed ? 1 : 0]));
    this.stmt('attribution').run(JSON.stringify([...marks.values()]), taskIndex);
  }

  /** Writes Φ onto the task's credited retrieval rows (shown, not "not followed"); re-evaluation replaces the old value. */
  setUtility(taskIndex: number, utility: number, evaluator?: string): void {
    const phi = UnitIntervalSchema.parse(utility);
    const run = this.db.transaction(() => {
      this.stmt('utilityOnRecords').run(phi, taskIndex);
      this.stmt('utilityOnRetrievals').run(phi, taskIndex);
      this.stmt('utilityOnTask').run(phi, evaluator ?? null, taskIndex);
    });
    this.store.guard(() => run.immediate());
    this.store.fireChange({ kind: 'task', ids: [] });
  }

  /**
   * Takes a task's Φ back (the inverse of setUtility): the records it was credited to lose it
   * (sum and count), its retrieval rows and the task row have no Φ again, and the task's
   * evaluator becomes `evaluatorBefore`. Used when the user undoes an approval or rejection.
   *
   * @example
   * tasks.setUtility(t, 1, 'strict:human');
   * tasks.withdrawUtility(t); // as before the approval
   */
  withdrawUtility(taskIndex: number, evaluatorBefore: string | null = null): void {
    const run = this.db.transaction(() => {
      this.stmt('withdrawOnRecords').run(taskIndex);
      this.stmt('withdrawOnRetrievals').run(taskIndex);
      this.stmt('withdrawOnTask').run(evaluatorBefore, taskIndex);
    });
    this.store.guard(() => run.immediate());
    this.store.fireChange({ kind: 'task', ids: [] });
  }

  /** Records the output similarity of one retrieval (task code vs the record's code). */
  setOutputSimilarity(taskIndex: number, recordId: string, similarity: number): void {
    const value = UnitIntervalSchema.parse(similarity);
    const run = this.db.transaction(() => {
      const prev = this.stmt('retrievalOf').get(recordId, taskIndex) as { rid: number; output_similarity: number | null } | undefined;
      if (!prev) {
        if (this.store.ridOf(recordId) === undefined) throw new AgentMemoryError('NOT_FOUND', `Unknown record '${recordId}'.`);
        throw new AgentMemoryError('NOT_FOUND', `Record '${recordId}' was not retrieved in task ${taskIndex}.`);
      }
      this.stmt('outputOnRetrieval').run(value, taskIndex, prev.rid);
      this.stmt('outputOnRecord').run(prev.output_similarity, value, prev.output_similarity, prev.rid);
    });
    this.store.guard(() => run.immediate());
  }

  /** The records a task's Φ was credited to (its retrieval rows that carry a Φ), in rank order. */
  creditedOf(taskIndex: number): string[] {
    return (this.stmt('creditedOf').all(taskIndex) as { id: string }[]).map((r) => r.id);
  }

  /** Retrieval rows of one record, newest first. */
  retrievalsOf(recordId: string, limit = 20): RetrievalRow[] {
    const rid = this.store.ridOf(recordId);
    if (rid === undefined) return [];
    return (this.stmt('retrievalsOf').all(rid, limit) as { task_index: number; rank: number; input_similarity: number | null; output_similarity: number | null; utility: number | null; shown: number; followed: number | null }[]).map((r) => ({
      taskIndex: r.task_index,
      rank: r.rank,
      inputSimilarity: r.input_similarity,
      outputSimilarity: r.output_similarity,
      utility: r.utility,
      shown: r.shown === 1,
      followed: r.followed === null ? null : r.followed === 1,
    }));
  }
}

/** One row of the retrieval log. `shown && followed === false` is "shown, not followed". */
export interface RetrievalRow {
  taskIndex: number;
  rank: number;
  inputSimilarity: number | null;
  outputSimilarity: number | null;
  /** Φ credited to this retrieval; null when not evaluated or not credited. */
  utility: number | null;
  /** Placed in the prompt. */
  shown: boolean;
  /** Followed by the generated code (attribution 'followed'); null when not assessed. */
  followed: boolean | null;
}

function toTaskRow(r: Record<string, unknown>): TaskRow {
  return {
    taskIndex: r.task_index as number,
    question: r.question as string,
    language: (r.language as string | null) ?? null,
    code: (r.code as string | null) ?? null,
    answer: r.answer == null ? null : (JSON.parse(r.answer as string) as unknown),
    outcome: (r.outcome as string | null) ?? null,
    utility: (r.utility as number | null) ?? null,
    evaluator: (r.evaluator as string | null) ?? null,
    inputSimilarity: (r.input_similarity as number | null) ?? null,
    outputSimilarity: (r.output_similarity as number | null) ?? null,
    recordId: (r.record_id as string | null) ?? null,
    startedAt: r.started_at as string,
    finishedAt: (r.finished_at as string | null) ?? null,
    log: JSON.parse((r.log as string) ?? '{}') as Record<string, unknown>,
  };
}
