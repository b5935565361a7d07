/**
 * One seed of the many-seed paper grid: builds the seed's plan (stream setup),
 * the agent (reuse | simulated | llm) and runs the given cells, returning a
 * compact summary per cell (accuracy, memory, curves, the experience-following
 * scatter). Runs inside a grid worker process (src/cli/bench-paper.ts).
 */
import type { BenchDeps, BenchTaskRow } from './harness';
import { runBench } from './harness';
import { cellConfig, cellKey, PaperCell } from './paper-cells';
import type { FidelitySwitches } from './config';
import type { BenchSession } from './session';
import { SimulationParameters, SIMULATION_PARAMETERS } from './sim/parameters';
import { withSimulatedAgent } from './sim/simulated-agent';
import { planPaperStream } from './stream-setup';
import type { BenchTask } from './task-file';
import { memoCodeSimilarity } from './grid-memo';
import { codeSimilarity } from '../similarity/code';

/** One code-similarity memo per process: every cell and seed a worker runs shares it. */
const sharedCodeSimilarity = memoCodeSimilarity(codeSimilarity);

/** Hits and misses of this process's grid memos (the worker's profile line, tests). */
export function gridMemoStats(): { codeSimilarity: { hits: number; misses: number } } {
  return { codeSimilarity: { hits: sharedCodeSimilarity.memo.hits, misses: sharedCodeSimilarity.memo.misses } };
}

export const AGENTS = ['reuse', 'simulated', 'llm'] as const;
export type AgentKind = (typeof AGENTS)[number];

export interface CellSeedResult {
  key: string;
  seed: number;
  tasks: number;
  /** Percent. */
  accuracy: number;
  memoryFinal: number;
  /** Smallest active memory at any point (initial memory included). */
  memoryMin: number;
  /** Cumulative accuracy (percent) after each task. */
  accuracyCurve: number[];
  memoryCurve: number[];
  /** Per task [input similarity, output similarity] (null when undefined). */
  scatter: [number | null, number | null][];
  groupStarts: number[];
  durationMs: number;
  /** CPU time of the worker process (all its threads, not the sandbox children) during the cell: unlike wall time, barely moved by other jobs on a shared machine. */
  cpuMs: number;
  /** Where the cell's time went (ms, summed over tasks); `other` = the rest of the wall time (store setup, pipeline, evaluation). */
  profile: CellProfile;
  cacheHits: number;
  cacheMisses: number;
}

export interface CellProfile {
  sandboxRunMs: number;
  retrieveMs: number;
  generateMs: number;
  bookkeepingMs: number;
  otherMs: number;
}

export interface SeedJob {
  agent: AgentKind;
  seed: number;
  cells: PaperCell[];
  language: 'python' | 'javascript';
  period?: number;
  limit?: number;
  params?: SimulationParameters;
  /** Paper-fidelity switches for every cell (bench:paper flags). */
  switches?: FidelitySwitches;
  /** Re-rank the stream's retrieval (hybrid-search's opt-in stage; bench:paper --rerank). */
  rerank?: boolean;
}

/** How a seed runs: `memo` (default on) shares the process-wide memos (grid-memo.ts, the simulated agent's verdicts); off = every computation afresh, same results. */
export interface SeedRunOptions {
  memo?: boolean;
}

/** The deps of one seed's agent over a session (the simulated agent is seeded). */
export function agentDeps(job: Pick<SeedJob, 'agent' | 'seed' | 'params'>, session: BenchSession, tasks: readonly BenchTask[], options: SeedRunOptions = {}): BenchDeps {
  const deps = job.agent === 'simulated' ? withSimulatedAgent(session.deps, session.db, tasks, job.seed, job.params ?? SIMULATION_PARAMETERS, options) : session.deps;
  return options.memo === false ? deps : { ...deps, codeSimilarity: sharedCodeSimilarity };
}

/** Sums a run's per-task timings into the profile split. */
export function cellProfile(rows: readonly Pick<BenchTaskRow, 'runMs' | 'retrieveMs' | 'generateMs' | 'bookkeepingMs'>[], durationMs: number): CellProfile {
  const sum = (f: (r: (typeof rows)[number]) => number) => rows.reduce((s, r) => s + f(r), 0);
  const p = { sandboxRunMs: sum((r) => r.runMs), retrieveMs: sum((r) => r.retrieveMs), generateMs: sum((r) => r.generateMs), bookkeepingMs: sum((r) => r.bookkeepingMs) };
  return { ...p, otherMs: Math.max(0, durationMs - p.sandboxRunMs - p.retrieveMs - p.generateMs - p.bookkeepingMs) };
}

/**
 * @example
 * for await (const r of runSeed(job, session, tasks)) send(r);
 */
export async function* runSeed(job: SeedJob, session: BenchSession, tasks: readonly BenchTask[], options: SeedRunOptions = {}): AsyncGenerator<CellSeedResult> {
  const plan = planPaperStream(tasks, { initialMemory: 100, seed: job.seed, limit: job.limit });
  const deps = agentDeps(job, session, tasks, options);
  const maxDebugRounds = job.agent === 'simulated' ? (job.params ?? SIMULATION_PARAMETERS).maxDebugRounds : undefined;
  for (const cell of job.cells) {
    const cpu = process.cpuUsage();
    const run = await runBench(plan, cellConfig(cell, { seed: job.seed, language: job.language, maxDebugRounds, period: job.period, switches: job.switches, rerank: job.rerank }), deps);
    let correct = 0;
    const accuracyCurve = run.rows.map((r, i) => Math.round(((correct += r.correct) / (i + 1)) * 1e5) / 1e3);
    const memoryCurve = run.rows.map((r) => r.memorySize);
    const used = process.cpuUsage(cpu);
    yield {
      key: cellKey(cell),
      seed: job.seed,
      tasks: run.rows.length,
      accuracy: run.rows.length ? (100 * correct) / run.rows.length : 0,
      memoryFinal: memoryCurve.at(-1) ?? run.initialMemory,
      memoryMin: Math.min(run.initialMemory, ...memoryCurve),
      accuracyCurve,
      memoryCurve,
      scatter: run.rows.map((r) => [r.inputSimilarity, r.outputSimilarity]),
      groupStarts: run.groupStarts,
      durationMs: run.durationMs,
      cpuMs: (used.user + used.system) / 1000,
      profile: cellProfile(run.rows, run.durationMs),
      cacheHits: run.runCache?.hits ?? 0,
      cacheMisses: run.runCache?.misses ?? 0,
    };
  }
}
