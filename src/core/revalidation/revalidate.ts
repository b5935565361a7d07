/**
 * Revalidation: re-runs the program of every active record that succeeded when it was
 * recorded, in the agent's sandbox (the same runners), against the agent's database,
 * and sorts each into
 * - `unchanged`: same answer as its last run;
 * - `changed`: runs, different answer (data drift; the record is still a valid
 *   demonstration, and the new answer becomes the one the next check compares to);
 * - `failing`: no longer runs (error, timeout or no answer: schema drift). The record
 *   is marked stale: retrieval (the agent and memory_search) skips it until the user
 *   approves it again or a later revalidation runs it clean.
 * Each record stores the fingerprint of the data it last ran against (./fingerprint.ts);
 * `onlyIfChanged` re-runs only records whose fingerprint differs from the data's now
 * (the editor's file watcher), otherwise every program runs (on demand).
 */
import { AgentMemoryError } from '../errors';
import type { CodeRunner, RunLanguage, RunLimits } from '../agent/runners';
import { SqlService } from '../agent/runners/sql-service';
import type { RunRequest, RunResult } from '../agent/runners/types';
import { withSqlShortcut } from '../agent/runners/sql-shortcut';
import { nullLogger } from '../logger';
import { reviewQueries, type CheckState, type CheckWrite, type RunnableRow } from '../memory/sqlite/queries/review';
import { MemoryStore } from '../memory/sqlite/store';
import { databaseFingerprint } from './fingerprint';

/**
 * Programs re-run at once. A run mostly waits on its sandbox's start (bwrap, python) and
 * the SQL service: on 2 busy cores, 100 demo programs took 48 s one or two at a time and
 * 28 s eight at a time (load average 24, measured while other jobs ran).
 */
export const DEFAULT_REVALIDATION_CONCURRENCY = 8;

export interface RevalidateOptions {
  /** The SQLite database the agent's programs query. */
  dataPath: string;
  /** The sandboxed runner for a language (the caller owns and disposes them). */
  runner(language: RunLanguage): CodeRunner;
  signal?: AbortSignal;
  onProgress?(done: number, total: number): void;
  /** Programs run at once (default DEFAULT_REVALIDATION_CONCURRENCY). */
  concurrency?: number;
  /** Only records whose stored fingerprint differs from the data's (default false: all). */
  onlyIfChanged?: boolean;
  limits?: Partial<RunLimits>;
  /**
   * Programs that are one `sql()` call on a string literal (the demo's gold programs) are answered
   * by the sandbox's own read-only SQL service, without a sandbox spawn; a query that fails runs in
   * the sandbox, so a failure is always the sandbox's own (see src/core/agent/runners/sql-shortcut.ts).
   * Default true; false runs every program in the sandbox.
   */
  sqlShortcut?: boolean;
}

export interface RevalidationReport {
  checked: number;
  unchanged: number;
  changed: number;
  failing: number;
  failing_ids: string[];
  /** Of the failing ones, those that ran clean before this pass (they just became stale). */
  newly_failing: number;
  /** Records stale before this pass that now run clean again (no longer stale). */
  recovered: number;
  recovered_ids: string[];
  ms: number;
  /** True when cancelled: the records checked so far are written, the rest untouched. */
  cancelled: boolean;
  /** The data fingerprint the programs ran against. */
  fingerprint: string;
}

/**
 * Where revalidation reads the runnable records and writes their checks: a SQLite memory
 * (reviewQueries) or a team space (../memory/postgres/team-revalidation.ts).
 */
export interface RevalidationSource {
  runnable(): RunnableRow[] | Promise<RunnableRow[]>;
  /** All checks in one transaction, with an audit entry per record whose staleness changed. */
  writeChecks(checks: readonly CheckWrite[]): void | Promise<void>;
}

/**
 * @example
 * const report = await revalidate(store, { dataPath, runner: () => pythonRunner });
 * report.failing_ids; // now stale
 */
export async function revalidate(memory: MemoryStore | RevalidationSource, options: RevalidateOptions): Promise<RevalidationReport> {
  const started = performance.now();
  const queries: RevalidationSource = memory instanceof MemoryStore ? reviewQueries(memory) : memory;
  const fingerprint = databaseFingerprint(options.dataPath).id;
  const rows = (await queries.runnable()).filter((r) => !options.onlyIfChanged || r.fingerprint !== fingerprint);
  const results: (CheckWrite & { id: string; wasStale: boolean })[] = [];
  const retry: RunnableRow[] = [];
  const sandbox = (request: RunRequest, signal?: AbortSignal): Promise<RunResult> => options.runner(request.language).run(request, signal);
  const sqlService = options.sqlShortcut === false || rows.length === 0 ? undefined : new SqlService(options.dataPath, nullLogger);
  const run = sqlService ? withSqlShortcut(sandbox, sqlService, options.dataPath) : sandbox;
  let next = 0;
  let done = 0;
  const worker = async (): Promise<void> => {
    while (next < rows.length && !options.signal?.aborted) {
      const row = rows[next++];
      const check = await rerun(row, fingerprint, options, run);
      // A sandbox that crashed or ran out of time says nothing about the data yet: run it again, alone.
      if (check?.retry) retry.push(row);
      else if (check) results.push(check);
      if (!check?.retry) options.onProgress?.(++done, rows.length);
    }
  };
  const concurrency = Math.max(1, Math.min(options.concurrency ?? DEFAULT_REVALIDATION_CONCURRENCY, rows.length || 1));
  try {
    await Promise.all(Array.from({ length: concurrency }, () => worker()));
    for (const row of retry) {
      if (options.signal?.aborted) break;
      const check = await rerun(row, fingerprint, options, run);
      if (check) results.push(check);
      options.onProgress?.(++done, rows.length);
    }
  } finally {
    sqlService?.dispose();
  }
  await queries.writeChecks(results);
  const count = (s: CheckState): number => results.filter((r) => r.state === s).length;
  const recovered = results.filter((r) => r.wasStale && !r.stale).map((r) => r.id);
  return {
    checked: results.length,
    unchanged: count('unchanged'),
    changed: count('changed'),
    failing: count('failing'),
    failing_ids: results.filter((r) => r.state === 'failing').map((r) => r.id),
    newly_failing: results.filter((r) => !r.wasStale && r.stale).length,
    recovered: recovered.length,
    recovered_ids: recovered,
    ms: Math.round(performance.now() - started),
    cancelled: options.signal?.aborted === true,
    fingerprint,
  };
}

/** Failures of the sandbox rather than of the program: retried once, alone, before they count. */
const RETRIED_KINDS = new Set(['Crashed', 'Timeout', 'MemoryLimit']);

/** One re-run; undefined when cancelled mid-run (nothing is written for it). */
async function rerun(
  row: RunnableRow,
  fingerprint: string,
  options: RevalidateOptions,
  run: (request: RunRequest, signal?: AbortSignal) => Promise<RunResult>,
): Promise<(CheckWrite & { id: string; wasStale: boolean; retry?: boolean }) | undefined> {
  let result;
  try {
    result = await run({ code: row.code, language: row.language, databasePath: options.dataPath, limits: options.limits }, options.signal);
  } catch (error) {
    if (options.signal?.aborted) return undefined;
    throw error instanceof AgentMemoryError ? error : new AgentMemoryError('RUNNER', `Revalidation could not run record ${row.id}: ${String(error)}. Check the runner (agent-memory run).`, undefined, { cause: error });
  }
  if (result.killedBy === 'cancel' || options.signal?.aborted) return undefined;
  const base = { rid: row.rid, id: row.id, wasStale: row.stale, fingerprint };
  if (result.outcome !== 'success') {
    const error = result.error ? `${result.error.kind}: ${result.error.message}` : result.outcome;
    return { ...base, state: 'failing', stale: true, answer: row.answer, error: error.slice(0, 500), ...(result.error && RETRIED_KINDS.has(result.error.kind) ? { retry: true } : {}) };
  }
  const answer = JSON.stringify(result.answer ?? null);
  const same = canonical(row.answer) === answer;
  return { ...base, state: same ? 'unchanged' : 'changed', stale: false, answer, error: null };
}

/** A stored JSON answer in the form JSON.stringify gives a fresh run's answer. */
function canonical(stored: string): string {
  try {
    return JSON.stringify(JSON.parse(stored) ?? null);
  } catch {
    return stored;
  }
}
