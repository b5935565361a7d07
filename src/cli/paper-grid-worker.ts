/**
 * A grid worker process (forked by paper-grid-pool.ts): runs its seed jobs with
 * one sandboxed runner and one persistent run cache, and sends each cell's
 * per-seed summary to the parent over IPC.
 */
import * as path from 'node:path';
import { z } from 'zod';
import { SqlService } from '../core/agent/runners/sql-service';
import { FidelitySwitchesSchema } from '../core/bench/config';
import { withSqlShortcut } from '../core/agent/runners/sql-shortcut';
import { cacheDirFor, PersistentRunCache } from '../core/bench/run-cache';
import { createBenchSession } from '../core/bench/session';
import { PaperCellSchema } from '../core/bench/paper-cells';
import { AGENTS, runSeed } from '../core/bench/paper-seed';
import { SimulationParametersSchema } from '../core/bench/sim/parameters';
import { readTaskFile } from '../core/bench/task-file';
import { errorMessage } from '../core/errors';
import { nullLogger } from '../core/logger';

export const WorkerInputSchema = z.object({
  jobs: z.array(
    z.object({
      agent: z.enum(AGENTS),
      seed: z.number().int().min(0),
      cells: z.array(PaperCellSchema),
      language: z.enum(['python', 'javascript']),
      period: z.number().int().positive().optional(),
      limit: z.number().int().positive().optional(),
      params: SimulationParametersSchema.optional(),
      switches: FidelitySwitchesSchema.optional(),
      rerank: z.boolean().optional(),
      /** Tag echoed back with each result (calibration: the parameter point). */
      tag: z.string().default(''),
    }),
  ),
  tasks: z.string(),
  db: z.string(),
  cacheRoot: z.string(),
  endpoint: z.object({ baseURL: z.string(), model: z.string() }).optional(),
  /** Answer SQL-only programs through the SQL service instead of a sandbox spawn (src/core/agent/runners/sql-shortcut.ts). */
  sqlShortcut: z.boolean().default(true),
});
export type WorkerInput = z.input<typeof WorkerInputSchema>;

async function main(): Promise<void> {
  const input = WorkerInputSchema.parse(JSON.parse(process.argv[2] ?? '{}'));
  const tasks = readTaskFile(input.tasks);
  const language = input.jobs[0]?.language ?? 'python';
  const session = createBenchSession({ databasePath: input.db, language, logger: nullLogger, ...(input.endpoint ? { endpoint: { ...input.endpoint, apiKey: process.env.AGENT_MEMORY_API_KEY } } : {}) });
  const sqlService = new SqlService(path.resolve(input.db), nullLogger);
  const run = input.sqlShortcut ? withSqlShortcut(session.deps.run, sqlService, path.resolve(input.db)) : session.deps.run;
  const cache = new PersistentRunCache(run, cacheDirFor(input.cacheRoot, input.db, language));
  session.deps.cache = cache;
  try {
    for (const job of input.jobs) {
      for await (const result of runSeed(job, session, tasks)) process.send?.({ type: 'result', tag: job.tag, result });
      cache.save();
    }
  } finally {
    cache.save();
    sqlService.dispose();
    session.dispose();
  }
}

main().then(
  () => {
    process.exitCode = 0;
  },
  (error: unknown) => {
    process.send?.({ type: 'error', message: errorMessage(error) });
    process.exitCode = 1;
  },
);
