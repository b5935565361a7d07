/**
 * Runs seed jobs of the paper grid over J worker processes (both cores by
 * default) and collects the per-seed cell summaries.
 */
import { fork } from 'node:child_process';
import * as path from 'node:path';
import { z } from 'zod';
import type { CellSeedResult } from '../core/bench/paper-seed';
import { AgentMemoryError } from '../core/errors';
import type { WorkerInput } from './paper-grid-worker';

const MessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('result'), tag: z.string(), result: z.custom<CellSeedResult>((v) => typeof v === 'object' && v !== null && typeof (v as CellSeedResult).key === 'string') }),
  z.object({ type: z.literal('error'), message: z.string() }),
]);

export interface TaggedResult {
  tag: string;
  result: CellSeedResult;
}

/**
 * Splits `input.jobs` round-robin over `workers` processes.
 *
 * @example
 * const results = await runGridPool({ jobs, tasks, db, cacheRoot }, 2, (r) => log(r));
 */
export async function runGridPool(input: WorkerInput, workers: number, onResult?: (r: TaggedResult) => void): Promise<TaggedResult[]> {
  const shards: WorkerInput['jobs'][] = Array.from({ length: Math.max(1, Math.min(workers, input.jobs.length)) }, () => []);
  input.jobs.forEach((job, i) => shards[i % shards.length].push(job));
  const results: TaggedResult[] = [];
  await Promise.all(
    shards.map(
      (jobs) =>
        new Promise<void>((resolve, reject) => {
          const child = fork(path.join(__dirname, 'paper-grid-worker.ts'), [JSON.stringify({ ...input, jobs })], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
          let failure: string | null = null;
          child.on('message', (raw) => {
            const parsed = MessageSchema.safeParse(raw);
            if (!parsed.success) failure = `malformed worker message: ${parsed.error.message}`;
            else if (parsed.data.type === 'error') failure = parsed.data.message;
            else {
              const r = { tag: parsed.data.tag, result: parsed.data.result };
              results.push(r);
              onResult?.(r);
            }
          });
          child.on('error', reject);
          child.on('exit', (code) => (code === 0 && !failure ? resolve() : reject(new AgentMemoryError('RUNNER', `A grid worker failed (${failure ?? `exit code ${code}`}).`))));
        }),
    ),
  );
  return results;
}
