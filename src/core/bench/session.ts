/**
 * Wires the real components a benchmark needs: the sandboxed runner, the
 * read-only EHR database for value linking, and the code generator (the
 * offline reuse model, or an LLM over an OpenAI-compatible endpoint, which
 * also serves as the coarse judge).
 */
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
  runner: CodeRunner;
  dispose(): void;
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
  const runner = createRunner(options.language, { logger });
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
    deps: { run, cache: new RunCache(run), generator, judge, databasePath: options.databasePath, logger },
    dispose: () => {
      runner.dispose();
      if (db.open) db.close();
    },
  };
}
