#!/usr/bin/env node
/**
 * `npm run bench:paper [-- --json] [-- --language javascript] [-- --workers 1]`
 *
 * The paper's grid (Tables 1–2) on the EHR stream: the 332 `answer_status =
 * nonempty` tasks of data/ehr/ehrsql-mimic3-tasks.jsonl, initial memory = 100
 * gold programs drawn with a fixed seed from the other lines, the offline reuse
 * model, addition fixed/all/coarse/strict × deletion none/periodic/history/
 * combined. Cells run in parallel child processes (one runner and one run
 * cache per process). Writes out/bench-paper/<cell>/metrics.json + report.html
 * and out/bench-paper/report.html (all cells overlaid); prints both tables, or
 * with --json a list of rows {addition, deletion, final_accuracy, memory_size_final, …}.
 */
import { fork } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { BenchConfigSchema, DEFAULT_BENCH_SEED, DEFAULT_INITIAL_MEMORY, scaledPeriod } from '../core/bench/config';
import { runBench } from '../core/bench/harness';
import type { BenchMetrics } from '../core/bench/metrics';
import { formatPaperTables, GridCell, GridRow, paperGridCells } from '../core/bench/paper-grid';
import { renderReport } from '../core/bench/report-html';
import { createBenchSession } from '../core/bench/session';
import { readTaskFile } from '../core/bench/task-file';
import { planTasks } from '../core/bench/task-plan';
import { configLabel, writeResults } from '../core/bench/write-results';
import { AgentMemoryError, errorMessage, isAgentMemoryError } from '../core/errors';
import { nullLogger } from '../core/logger';
import { AdditionPolicyNameSchema, AutoDeletionPolicySchema } from '../core/policy/names';

const ROOT = path.resolve(__dirname, '..', '..');
const USAGE = 'usage: npm run bench:paper -- [--json] [--language python|javascript] [--workers 1|2] [--seed S] [--period N] [--out DIR]';

const OptionsSchema = z.object({
  json: z.boolean().default(false),
  language: z.enum(['python', 'javascript']).default('python'),
  workers: z.coerce.number().int().min(1).max(8).default(2),
  seed: z.coerce.number().int().min(0).default(DEFAULT_BENCH_SEED),
  period: z.coerce.number().int().positive().optional(),
  out: z.string().min(1).default(path.join(ROOT, 'out', 'bench-paper')),
  tasks: z.string().min(1).default(path.join(ROOT, 'data', 'ehr', 'ehrsql-mimic3-tasks.jsonl')),
  db: z.string().min(1).default(path.join(ROOT, 'data', 'ehr', 'mimic3-demo.sqlite')),
});
type Options = z.infer<typeof OptionsSchema>;

const JobSchema = z.object({ options: OptionsSchema, cells: z.array(z.object({ addition: AdditionPolicyNameSchema, deletion: AutoDeletionPolicySchema })) });
const WorkerMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('result'), cell: z.object({ addition: z.string(), deletion: z.string() }), dir: z.string(), cacheHits: z.number(), cacheMisses: z.number() }),
  z.object({ type: z.literal('error'), message: z.string() }),
]);
type WorkerMessage = z.infer<typeof WorkerMessageSchema>;

function parseOptions(argv: string[]): Options {
  const raw: Record<string, string | boolean> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--json') raw.json = true;
    else if (/^--(language|workers|seed|period|out|tasks|db)$/.test(a) && argv[i + 1] !== undefined) raw[a.slice(2)] = argv[++i];
    else throw new AgentMemoryError('INVALID_INPUT', `Unknown or incomplete option '${a}'. ${USAGE}`);
  }
  const parsed = OptionsSchema.safeParse(raw);
  if (!parsed.success) throw new AgentMemoryError('INVALID_INPUT', `Invalid options (${parsed.error.issues.map((i) => `--${i.path.join('.')}: ${i.message}`).join('; ')}). ${USAGE}`);
  return parsed.data;
}

function cellDir(options: Options, cell: GridCell): string {
  return path.join(options.out, `${cell.addition}-${cell.deletion}`);
}

/** Worker: runs its cells with one runner and one run cache, reports each result over IPC. */
async function worker(jobText: string): Promise<void> {
  const job = JobSchema.parse(JSON.parse(jobText));
  const o = job.options;
  const plan = planTasks(readTaskFile(o.tasks), { initialMemory: DEFAULT_INITIAL_MEMORY, seed: o.seed });
  const session = createBenchSession({ databasePath: o.db, language: o.language, logger: nullLogger });
  try {
    for (const cell of job.cells) {
      const config = BenchConfigSchema.parse({ ...cell, language: o.language, seed: o.seed, period: o.period, initialMemory: DEFAULT_INITIAL_MEMORY });
      const run = await runBench(plan, config, session.deps);
      writeResults(run, cellDir(o, cell));
      const msg: WorkerMessage = { type: 'result', cell, dir: cellDir(o, cell), cacheHits: run.runCache?.hits ?? 0, cacheMisses: run.runCache?.misses ?? 0 };
      process.send?.(msg);
    }
  } finally {
    session.dispose();
  }
}

/** Splits cells over workers keeping same-addition cells together (they share most programs, so the run cache hits). */
function assign(cells: GridCell[], workers: number): GridCell[][] {
  const out: GridCell[][] = Array.from({ length: Math.min(workers, cells.length) }, () => []);
  const groups = new Map<string, GridCell[]>();
  for (const c of cells) groups.set(c.addition, [...(groups.get(c.addition) ?? []), c]);
  const sorted = [...groups.values()].sort((a, b) => b.length - a.length);
  for (const g of sorted) out.reduce((min, x) => (x.length < min.length ? x : min)).push(...g);
  return out.filter((x) => x.length > 0);
}

function runWorker(options: Options, cells: GridCell[], onResult: (m: Extract<WorkerMessage, { type: 'result' }>) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = fork(__filename, ['--worker', JSON.stringify({ options, cells })], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let failure: string | null = null;
    child.on('message', (raw) => {
      const parsed = WorkerMessageSchema.safeParse(raw);
      if (!parsed.success) failure = `malformed worker message: ${parsed.error.message}`;
      else if (parsed.data.type === 'error') failure = parsed.data.message;
      else onResult(parsed.data);
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 && !failure ? resolve() : reject(new AgentMemoryError('RUNNER', `A bench:paper worker failed (${failure ?? `exit code ${code}`}).`))));
  });
}

async function main(argv: string[]): Promise<number> {
  if (argv[0] === '--worker') {
    try {
      await worker(argv[1] ?? '');
      return 0;
    } catch (error) {
      process.send?.({ type: 'error', message: errorMessage(error) } satisfies WorkerMessage);
      return 1;
    }
  }
  const options = parseOptions(argv);
  const started = performance.now();
  const plan = planTasks(readTaskFile(options.tasks), { initialMemory: DEFAULT_INITIAL_MEMORY, seed: options.seed });
  const period = options.period ?? scaledPeriod(plan.stream.length);
  const cells = paperGridCells();
  const dirs = new Map<string, string>();
  let hits = 0;
  let misses = 0;
  await Promise.all(
    assign(cells, options.workers).map((mine) =>
      runWorker({ ...options, period }, mine, (m) => {
        dirs.set(`${m.cell.addition}/${m.cell.deletion}`, m.dir);
        hits += m.cacheHits;
        misses += m.cacheMisses;
        if (!options.json) process.stderr.write(`[bench:paper] done ${m.cell.addition} + ${m.cell.deletion}\n`);
      }),
    ),
  );
  const totalSeconds = (performance.now() - started) / 1000;
  const labelled: { label: string; metrics: BenchMetrics }[] = [];
  const rows: GridRow[] = cells.map((cell) => {
    const dir = dirs.get(`${cell.addition}/${cell.deletion}`);
    if (!dir) throw new AgentMemoryError('RUNNER', `No result for ${cell.addition} + ${cell.deletion}.`);
    const metrics = JSON.parse(fs.readFileSync(path.join(dir, 'metrics.json'), 'utf8')) as BenchMetrics;
    labelled.push({ label: configLabel(metrics.config), metrics });
    return { ...cell, final_accuracy: metrics.final_accuracy, memory_size_final: metrics.memory_size_final, agent_overhead_ms_per_task: metrics.agent_overhead_ms.mean, agent_overhead_ms_p95: metrics.agent_overhead_ms.p95 };
  });
  fs.writeFileSync(path.join(options.out, 'report.html'), renderReport(labelled, 'Agent Memory — the paper grid on the EHR stream (reuse model)'));
  fs.writeFileSync(path.join(options.out, 'rows.json'), JSON.stringify(rows, null, 2) + '\n');
  if (options.json) {
    process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
    return 0;
  }
  const m0 = labelled[0].metrics;
  const overheads = rows.map((r) => r.agent_overhead_ms_per_task);
  const footer = [
    `Stream: ${m0.tasks} EHR tasks (answer_status = nonempty); initial memory: ${m0.initial_memory_size} gold programs drawn with seed ${options.seed} from the other ${readTaskFile(options.tasks).length - m0.tasks} lines.`,
    `Model: ${m0.model}; language ${options.language}; embedder ${m0.embedder}; K = ${m0.config.k}.`,
    `Deletion: periodic window ${period} tasks (the paper's 200 of ~2,311 EHR tasks scaled to ${m0.tasks}: round(${m0.tasks} × 200 / 2311), α = 0, fired every ${period} tasks);`,
    `history n = 5, β = 0.3 (coarse) / 0.7 (strict), checked after every task; combined = history every task + periodic-or-history at period boundaries.`,
    `Coarse Φ = the agent's termination signal (success with a non-empty answer); strict Φ = ground truth. Accuracy = ground truth.`,
    `Agent overhead per task (loop + policy bookkeeping, excluding model and code execution): mean ${Math.min(...overheads).toFixed(2)}–${Math.max(...overheads).toFixed(2)} ms across cells, worst p95 ${Math.max(...rows.map((r) => r.agent_overhead_ms_p95)).toFixed(2)} ms.`,
    `Runtime: ${totalSeconds.toFixed(1)} s for ${cells.length} cells × ${m0.tasks} tasks with ${Math.min(options.workers, cells.length)} worker process(es); code executions ${misses} run, ${hits} served from the run cache.`,
    `Per-cell metrics and reports: ${options.out}/<addition>-<deletion>/; all cells: ${options.out}/report.html`,
  ].join('\n');
  process.stdout.write(formatPaperTables(rows, footer));
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`bench:paper: ${isAgentMemoryError(error) ? `${error.code}: ` : ''}${errorMessage(error)}\n`);
    process.exitCode = 1;
  },
);
