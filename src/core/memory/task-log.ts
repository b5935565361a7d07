import { z } from 'zod';
import { AgentMemoryError } from '../errors';
import type { MemoryStore, RetrievalLogEntry } from './store';

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
  constructor(private readonly store: MemoryStore) {}

  private get db() {
    return this.store.db;
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
      this.db.prepare('INSERT INTO tasks (task_index, question, started_at) VALUES (?, ?, ?)').run(index, question, new Date().toISOString());
      this.store.setMeta('next_task_index', String(index + 1));
      return index;
    });
    return run.immediate();
  }

  finish(taskIndex: number, input: TaskFinish): void {
    const f = TaskFinishSchema.parse(input);
    const info = this.db.prepare(`UPDATE tasks SET language = COALESCE(@language, language), code = COALESCE(@code, code), answer = COALESCE(@answer, answer),
      outcome = COALESCE(@outcome, outcome), evaluator = COALESCE(@evaluator, evaluator), input_similarity = COALESCE(@in_sim, input_similarity),
      output_similarity = COALESCE(@out_sim, output_similarity), record_id = COALESCE(@record_id, record_id), finished_at = @finished_at,
      log = COALESCE(@log, log) WHERE task_index = @task_index`).run({
      task_index: taskIndex,
      language: f.language ?? null,
      code: f.code ?? null,
      answer: f.answer === undefined ? null : JSON.stringify(f.answer),
      outcome: f.outcome ?? null,
      evaluator: f.evaluator ?? null,
      in_sim: f.inputSimilarity ?? null,
      out_sim: f.outputSimilarity ?? null,
      record_id: f.recordId ?? null,
      finished_at: new Date().toISOString(),
      log: f.log ? JSON.stringify(f.log) : null,
    });
    if (info.changes === 0) throw new AgentMemoryError('NOT_FOUND', `No task ${taskIndex} to finish.`);
    this.store.fireChange({ kind: 'task', ids: [] });
  }

  get(taskIndex: number): TaskRow | undefined {
    const r = this.db.prepare('SELECT * FROM tasks WHERE task_index = ?').get(taskIndex) as Record<string, unknown> | undefined;
    return r ? toTaskRow(r) : undefined;
  }

  /** Tasks in index order (for dashboards and reports). */
  list(options: { fromIndex?: number; limit?: number } = {}): TaskRow[] {
    const rows = this.db.prepare('SELECT * FROM tasks WHERE task_index >= ? ORDER BY task_index LIMIT ?').all(options.fromIndex ?? 0, options.limit ?? 1_000_000) as Record<string, unknown>[];
    return rows.map(toTaskRow);
  }

  /** Logs the read step: one retrieval row per (task, record), and bumps each record's counters. */
  logRetrievals(taskIndex: number, entries: RetrievalLogEntry[]): void {
    if (entries.length === 0) return;
    const insert = this.db.prepare('INSERT INTO retrievals (task_index, rid, rank, input_similarity) VALUES (?, ?, ?, ?)');
    const bump = this.db.prepare('UPDATE records SET retrieval_count = retrieval_count + 1, last_retrieved_task = MAX(COALESCE(last_retrieved_task, 0), ?), in_sim_sum = in_sim_sum + ? WHERE rid = ?');
    const run = this.db.transaction(() => {
      for (const e of entries) {
        const rid = this.store.ridOf(e.recordId);
        if (rid === undefined) throw new AgentMemoryError('NOT_FOUND', `Cannot log a retrieval of unknown record '${e.recordId}'.`);
        insert.run(taskIndex, rid, e.rank, e.inputSimilarity);
        bump.run(taskIndex, e.inputSimilarity ?? 0, rid);
      }
    });
    run.immediate();
    this.store.fireChange({ kind: 'retrieval', ids: entries.map((e) => e.recordId) });
  }

  /** Writes Φ onto every retrieval row of the task (re-evaluation replaces the old value). */
  setUtility(taskIndex: number, utility: number, evaluator?: string): void {
    const phi = z.number().min(0).max(1).parse(utility);
    const run = this.db.transaction(() => {
      // Undo a previous evaluation's contribution, then apply the new one.
      this.db.prepare(`UPDATE records SET utility_sum = utility_sum - (SELECT utility FROM retrievals r WHERE r.rid = records.rid AND r.task_index = @t),
        utility_count = utility_count - 1 WHERE rid IN (SELECT rid FROM retrievals WHERE task_index = @t AND utility IS NOT NULL)`).run({ t: taskIndex });
      this.db.prepare('UPDATE retrievals SET utility = ? WHERE task_index = ?').run(phi, taskIndex);
      this.db.prepare('UPDATE records SET utility_sum = utility_sum + ?, utility_count = utility_count + 1 WHERE rid IN (SELECT rid FROM retrievals WHERE task_index = ?)').run(phi, taskIndex);
      this.db.prepare('UPDATE tasks SET utility = ?, evaluator = COALESCE(?, evaluator) WHERE task_index = ?').run(phi, evaluator ?? null, taskIndex);
    });
    run.immediate();
    this.store.fireChange({ kind: 'task', ids: [] });
  }

  /** Records the output similarity of one retrieval (task code vs the record's code). */
  setOutputSimilarity(taskIndex: number, recordId: string, similarity: number): void {
    const value = z.number().min(0).max(1).parse(similarity);
    const rid = this.store.ridOf(recordId);
    if (rid === undefined) throw new AgentMemoryError('NOT_FOUND', `Unknown record '${recordId}'.`);
    const run = this.db.transaction(() => {
      const prev = this.db.prepare('SELECT output_similarity FROM retrievals WHERE task_index = ? AND rid = ?').get(taskIndex, rid) as { output_similarity: number | null } | undefined;
      if (!prev) throw new AgentMemoryError('NOT_FOUND', `Record '${recordId}' was not retrieved in task ${taskIndex}.`);
      this.db.prepare('UPDATE retrievals SET output_similarity = ? WHERE task_index = ? AND rid = ?').run(value, taskIndex, rid);
      if (prev.output_similarity === null) {
        this.db.prepare('UPDATE records SET out_sim_sum = out_sim_sum + ?, out_sim_count = out_sim_count + 1 WHERE rid = ?').run(value, rid);
      } else {
        this.db.prepare('UPDATE records SET out_sim_sum = out_sim_sum - ? + ? WHERE rid = ?').run(prev.output_similarity, value, rid);
      }
    });
    run.immediate();
  }

  /** Retrieval rows of one record, newest first. */
  retrievalsOf(recordId: string, limit = 20): { taskIndex: number; rank: number; inputSimilarity: number | null; outputSimilarity: number | null; utility: number | null }[] {
    const rid = this.store.ridOf(recordId);
    if (rid === undefined) return [];
    return (this.db.prepare('SELECT task_index, rank, input_similarity, output_similarity, utility FROM retrievals WHERE rid = ? ORDER BY task_index DESC LIMIT ?').all(rid, limit) as { task_index: number; rank: number; input_similarity: number | null; output_similarity: number | null; utility: number | null }[]).map((r) => ({
      taskIndex: r.task_index,
      rank: r.rank,
      inputSimilarity: r.input_similarity,
      outputSimilarity: r.output_similarity,
      utility: r.utility,
    }));
  }
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
