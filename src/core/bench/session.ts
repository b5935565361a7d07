/**
 * Wires the real components a benchmark needs: the sandboxed runner, the
 * read-only EHR database for value linking, and the code generator (the
 * offline reuse model, or an LLM over an OpenAI-compatible endpoint, which
 * also serves as the coarse judge).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { LlmCodeGenerator, ReuseCodeGenerator, CodeGenerator } from '../agent/loop/generators';
import { ModelClient } from '../agent/model/model-client';
import type { ChatModel } from '../agent/model/types';
import { DatabaseValueLookup } from '../agent/reuse/value-lookup';
import { createRunner } from '../agent/runners';
import type { CodeRunner } from '../agent/runners/types';
import { AgentMemoryError, errorMessage } from '../errors';
import { Logger, nullLogger } from '../logger';
import type { BenchDeps } from './harness';
import { RunCache } from './run-cache';

export interface BenchSessionOptions {
  databasePath: string;
  language: 'python' | 'javascript';
  /** Absent → the offline reuse model. */
  endpoint?: { baseURL: string; model: string; apiKey?: string };
  logger?: Logger;
}

export interface BenchSession {
  deps: BenchDeps;
  /** The read-only EHR database (value linking, the simulated agent's schema). */
  db: BetterSqlite3.Database;
  runner: CodeRunner;
  dispose(): void;
}

/**
 * The interpreter behind `python3` on PATH, resolved once: a version manager's
 * shim (pyenv) costs a shell script per spawn, and a benchmark grid spawns
 * thousands of programs. Falls back to `python3` when it cannot be resolved.
 */
export function resolvePython(): string {
  try {
    const exe = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8', timeout: 10_000 }).trim();
    return exe && fs.existsSync(exe) ? exe : 'python3';
  } catch {
    return 'python3';
  }
}

/**
 * @example
 * const session = createBenchSession({ databasePath: 'data/ehr/mimic3-demo.sqlite', language: 'python' });
 * try { await runBench(plan, config, session.deps); } finally { session.dispose(); }
 */
export function createBenchSession(options: BenchSessionOptions): BenchSession {
  if (!fs.existsSync(options.databasePath)) {
    throw new AgentMemoryError('NOT_FOUND', `Database not found: ${options.databasePath}. Pass the EHR SQLite file with --db (e.g. data/ehr/mimic3-demo.sqlite).`);
  }
  let db: BetterSqlite3.Database;
  try {
    db = new BetterSqlite3(options.databasePath, { readonly: true, fileMustExist: true });
    db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' LIMIT 1").get();
  } catch (error) {
    throw new AgentMemoryError('DATABASE', `Cannot open ${options.databasePath} as a SQLite database (${errorMessage(error)}); check --db.`);
  }
  const logger = options.logger ?? nullLogger;
  const runner = createRunner(options.language, { logger, ...(options.language === 'python' ? { pythonPath: resolvePython() } : {}) });
  let generator: CodeGenerator;
  let judge: ChatModel | undefined;
  if (options.endpoint) {
    const model = new ModelClient({ baseURL: options.endpoint.baseURL, model: options.endpoint.model, apiKey: options.endpoint.apiKey }, logger);
    generator = new LlmCodeGenerator(model);
    judge = model;
  } else {
    generator = new ReuseCodeGenerator(new DatabaseValueLookup(db));
  }
  const run: BenchDeps['run'] = (request, signal) => runner.run(request, signal);
  return {
    runner,
    db,
    deps: { run, cache: new RunCache(run), generator, judge, databasePath: options.databasePath, logger },
    dispose: () => {
      runner.dispose();
      if (db.open) db.close();
    },
  };
}
