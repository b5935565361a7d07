/**
 * The task log the agent loop writes while a task runs on the team memory: in the process,
 * synchronous, never on the network (the loop's `tasks.begin/finish/logRetrievals` are
 * synchronous calls). The team adapter (team-task-memory.ts) copies a task to the server in
 * its `afterTask`, under a team-wide task index; a `finish` of a task already copied is sent
 * to the server too, and `settled()` waits for those writes (a failed one rejects it).
 *
 * Rows are the TaskLog's (TaskRow), so the pipeline reads its verdict from here exactly as
 * from a SQLite TaskLog. The last MAX_ROWS tasks are kept.
 */
import { AgentMemoryError } from '../../errors';
import type { Logger } from '../../logger';
import { TaskFinish, TaskFinishSchema, TaskRow } from '../sqlite/task-log';
import type { RetrievalLogEntry } from '../sqlite/store-types';

const MAX_ROWS = 1000;

export class TeamTaskLog {
  private next = 1;
  private readonly rows = new Map<number, TaskRow>();
  private readonly retrievals = new Map<number, RetrievalLogEntry[]>();
  /** Local index → the team's task index, once the task was copied to the server. */
  private readonly teamIndex = new Map<number, number>();
  private readonly writes = new Set<Promise<void>>();
  private failures: unknown[] = [];

  constructor(
    private readonly sendFinish: (teamIndex: number, row: TaskRow) => Promise<void>,
    private readonly logger: Logger,
  ) {}

  begin(question: string): number {
    const index = this.next++;
    this.rows.set(index, {
      taskIndex: index, question, language: null, code: null, answer: null, outcome: null, utility: null, evaluator: null,
      inputSimilarity: null, outputSimilarity: null, recordId: null, startedAt: new Date().toISOString(), finishedAt: null, log: {},
    });
    for (const old of this.rows.keys()) {
      if (this.rows.size <= MAX_ROWS) break;
      this.forget(old);
    }
    return index;
  }

  finish(taskIndex: number, input: TaskFinish): void {
    const row = this.rows.get(taskIndex);
    if (!row) throw new AgentMemoryError('NOT_FOUND', `No task ${taskIndex} to finish.`);
    const f = TaskFinishSchema.parse(input);
    Object.assign(row, {
      ...(f.language !== undefined ? { language: f.language } : {}),
      ...(f.code !== undefined ? { code: f.code } : {}),
      ...(f.answer !== undefined ? { answer: f.answer } : {}),
      ...(f.outcome !== undefined ? { outcome: f.outcome } : {}),
      ...(f.evaluator !== undefined ? { evaluator: f.evaluator } : {}),
      ...(f.inputSimilarity != null ? { inputSimilarity: f.inputSimilarity } : {}),
      ...(f.outputSimilarity != null ? { outputSimilarity: f.outputSimilarity } : {}),
      ...(f.recordId != null ? { recordId: f.recordId } : {}),
      ...(f.log !== undefined ? { log: f.log } : {}),
      finishedAt: new Date().toISOString(),
    });
    const team = this.teamIndex.get(taskIndex);
    if (team !== undefined) this.track(this.sendFinish(team, { ...row }));
  }

  /** Φ of the task and who gave it (the verdict is read from here). */
  setUtility(taskIndex: number, utility: number, evaluator: string): void {
    const row = this.rows.get(taskIndex);
    if (!row) throw new AgentMemoryError('NOT_FOUND', `No task ${taskIndex}.`);
    row.utility = utility;
    row.evaluator = evaluator;
  }

  get(taskIndex: number): TaskRow | undefined {
    const row = this.rows.get(taskIndex);
    return row ? { ...row } : undefined;
  }

  logRetrievals(taskIndex: number, entries: RetrievalLogEntry[]): void {
    if (!this.rows.has(taskIndex)) throw new AgentMemoryError('NOT_FOUND', `No task ${taskIndex}: begin it before logging its retrievals.`);
    this.retrievals.set(taskIndex, [...(this.retrievals.get(taskIndex) ?? []), ...entries]);
  }

  /** The task's logged retrievals (copied to the server by afterTask). */
  retrievalsOf(taskIndex: number): RetrievalLogEntry[] {
    return [...(this.retrievals.get(taskIndex) ?? [])];
  }

  /** Records that `taskIndex` was copied to the server as `teamIndex` (later finishes go there too). */
  linkTeamIndex(taskIndex: number, teamIndex: number): void {
    this.teamIndex.set(taskIndex, teamIndex);
  }

  teamIndexOf(taskIndex: number): number | undefined {
    return this.teamIndex.get(taskIndex);
  }

  /** Waits for every write sent so far; rejects with the first that failed (reported once). */
  async settled(): Promise<void> {
    while (this.writes.size > 0) await Promise.allSettled([...this.writes]);
    const [first] = this.failures;
    this.failures = [];
    if (first !== undefined) throw first instanceof Error ? first : new AgentMemoryError('DATABASE', `A task log update was not stored: ${String(first)}`);
  }

  private track(write: Promise<void>): void {
    const tracked = write.then(
      () => undefined,
      (error: unknown) => {
        this.logger.warn(`[team] a task log update was not stored: ${(error as Error).message}`);
        this.failures.push(error);
      },
    );
    this.writes.add(tracked);
    void tracked.finally(() => this.writes.delete(tracked));
  }

  private forget(taskIndex: number): void {
    this.rows.delete(taskIndex);
    this.retrievals.delete(taskIndex);
    this.teamIndex.delete(taskIndex);
  }
}
