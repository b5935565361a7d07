#!/usr/bin/env node
/**
 * `npm run bench:paper -- --agent reuse|simulated|llm --stream human|paper --seeds N --seed-base B [--jobs J] [--json]`
 *
 * The paper's grid over many seeds: 4 additions × 4 deletions, the `followed`
 * attribution on history / combined, the error-free replay, distribution
 * shift and capacity-100 cells. Per seed: stream = the stream's test tasks
 * with a non-empty answer (`human`: the 216 EHRSQL questions; `paper`: the
 * generated paper-length stream, period 200 unscaled), shuffled by the seed;
 * initial memory = 100 gold programs drawn by the seed from the valid lines
 * of the stream's templates.
 * Seeds run in J worker processes (default 2). Writes out/bench-paper/grid.json
 * and report.html; the last stdout line is the grid JSON. The simulated agent
 * is a SIMULATION (see src/core/bench/sim/parameters.ts), labelled as such.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { aggregateGrid, cellCurves, formatComparison, GridJson, paperComparison } from '../core/bench/paper-aggregate';
import { CALIBRATION_TARGETS, cellKey, guardCells, paperCells, PaperCell } from '../core/bench/paper-cells';
import { AnswerMatchSchema, HistoryPerTaskSchema, PeriodicBoundsSchema } from '../core/policy/names';
import { formatChecks, paperChecks } from '../core/bench/paper-checks';
import { renderPaperReport } from '../core/bench/paper-report';
import { AGENTS, CellProfile, CellSeedResult } from '../core/bench/paper-seed';
import { BENCH_STREAMS, PAPER_EHR_PERIOD, STREAM_TASK_FILES, streamPeriod } from '../core/bench/config';
import { SIMULATION_LABEL } from '../core/bench/sim/parameters';
import { AgentMemoryError } from '../core/errors';
import { runGridPool } from './paper-grid-pool';
import { runMain } from './run-main';
import { HELP_SHOWN, parseBenchArgs } from './args';

const ROOT = path.resolve(__dirname, '..', '..');
const USAGE = 'Usage: npm run bench:paper -- --agent reuse|simulated|llm [--stream human|paper] [--sql-shortcut on|off] [--rerank] [--seeds N] [--seed-base B] [--jobs J] [--json] [--language python|javascript] [--limit N] [--cells a/d/v/attr[/relative][/last-of-kind],…] [--guard] [--periodic-bounds half-open|closed] [--history-per-task all|worst] [--answer-match set|contains] [--base-url URL --model M] [--out DIR]\n\nRuns the paper\'s grid of addition × deletion cells over the EHR task stream for --seeds seeds and\nprints each cell\'s accuracy and memory size; the last stdout line is the grid JSON.';

const OptionsSchema = z
  .object({
    agent: z.enum(AGENTS).default('reuse'),
    stream: z.enum(BENCH_STREAMS).default('human'),
    seeds: z.coerce.number().int().min(1).max(200).default(10),
    'seed-base': z.coerce.number().int().min(0).default(1),
    jobs: z.coerce.number().int().min(1).max(16).default(2),
    json: z.boolean().default(false),
    /** Re-rank the stream's retrieval (hybrid-search's opt-in stage); off, as the product. */
    rerank: z.boolean().default(false),
    /** Add the opt-in cells of the periodic guard (beyond the paper; paper-cells.ts guardCells). */
    guard: z.boolean().default(false),
    /** `off` runs every program in the sandbox (the baseline of the speed figures). */
    'sql-shortcut': z.enum(['on', 'off']).default('on'),
    language: z.enum(['python', 'javascript']).default('python'),
    limit: z.coerce.number().int().positive().optional(),
    period: z.coerce.number().int().positive().optional(),
    cells: z.string().optional(),
    'periodic-bounds': PeriodicBoundsSchema.default('half-open'),
    'history-per-task': HistoryPerTaskSchema.default('all'),
    'answer-match': AnswerMatchSchema.default('set'),
    'base-url': z.string().url().optional(),
    model: z.string().min(1).optional(),
    out: z.string().min(1).default(path.join(ROOT, 'out', 'bench-paper')),
    /** Defaults to the stream's task file (STREAM_TASK_FILES). */
    tasks: z.string().min(1).optional(),
    db: z.string().min(1).default(path.join(ROOT, 'data', 'ehr', 'mimic3-demo.sqlite')),
    cache: z.string().min(1).default(path.join(ROOT, 'out', 'run-cache')),
  })
  .superRefine((o, ctx) => {
    if (o.agent === 'llm' && (!o['base-url'] || !o.model)) ctx.addIssue({ code: 'custom', path: ['base-url'], message: '--agent llm needs --base-url (an OpenAI-compatible endpoint) and --model; the API key comes from AGENT_MEMORY_API_KEY' });
  });
export type PaperOptions = z.infer<typeof OptionsSchema> & { tasks: string };

const PAPER_VALUED = ['agent', 'stream', 'sql-shortcut', 'seeds', 'seed-base', 'jobs', 'language', 'limit', 'period', 'cells', 'periodic-bounds', 'history-per-task', 'answer-match', 'base-url', 'model', 'out', 'tasks', 'db', 'cache'] as const;

/** The bench's options (HELP_SHOWN after printing the usage for --help); a bad option is a usage error. */
export function parsePaperOptions(argv: string[]): PaperOptions | typeof HELP_SHOWN {
  const parsed = parseBenchArgs(argv, { usage: USAGE, flags: ['json', 'rerank', 'guard'], valued: PAPER_VALUED }, OptionsSchema);
  if (parsed === HELP_SHOWN) return HELP_SHOWN;
  return { ...parsed, tasks: parsed.tasks ?? path.join(ROOT, 'data', 'ehr', STREAM_TASK_FILES[parsed.stream]) };
}

/** The periodic window passed to the runs: --period, else the paper's 200 on the paper stream (the human stream scales it per run). */
export function gridPeriod(o: Pick<PaperOptions, 'period' | 'stream'>): number | undefined {
  return o.period ?? (o.stream === 'paper' ? PAPER_EHR_PERIOD : undefined);
}

/** The cells to run: the default grid (plus the guard cells with `guard`), or the `--cells` subset of both (keys addition/deletion/variant/attribution[/relative][/last-of-kind]). */
export function selectCells(spec: string | undefined, guard = false): PaperCell[] {
  const all = [...paperCells(), ...guardCells()];
  if (!spec) return guard ? all : paperCells();
  const keys = spec.split(',').map((s) => s.trim());
  const chosen = all.filter((c) => keys.includes(cellKey(c)));
  if (chosen.length !== keys.length) throw new AgentMemoryError('INVALID_INPUT', `Unknown cell in --cells (${spec}); a cell is addition/deletion/variant/attribution[/relative][/last-of-kind], e.g. strict/combined/standard/shown or strict/combined/standard/shown/relative.`);
  return chosen;
}

/** Runs the grid and writes grid.json + report.html; returns the JSON. */
export async function runPaperGrid(o: PaperOptions, log: (line: string) => void): Promise<{ json: GridJson; seconds: number }> {
  const cells = selectCells(o.cells, o.guard);
  const switches = { periodicBounds: o['periodic-bounds'], historyPerTask: o['history-per-task'], answerMatch: o['answer-match'] };
  const seeds = Array.from({ length: o.seeds }, (_, i) => o['seed-base'] + i);
  const started = performance.now();
  let done = 0;
  const results = await runGridPool(
    {
      jobs: seeds.map((seed) => ({ agent: o.agent, seed, cells, language: o.language, period: gridPeriod(o), limit: o.limit, switches, rerank: o.rerank })),
      tasks: o.tasks,
      db: o.db,
      cacheRoot: o.cache,
      sqlShortcut: o['sql-shortcut'] === 'on',
      ...(o.agent === 'llm' ? { endpoint: { baseURL: o['base-url']!, model: o.model! } } : {}),
    },
    o.jobs,
    (r) => log(`[bench:paper] ${++done}/${cells.length * seeds.length} seed ${r.result.seed} ${r.result.key}: ${r.result.accuracy.toFixed(2)} % (${(r.result.durationMs / 1000).toFixed(1)} s)`),
  );
  const seconds = (performance.now() - started) / 1000;
  const label = o.agent === 'simulated' ? SIMULATION_LABEL : undefined;
  const json: GridJson = { ...aggregateGrid(o.agent, o.seeds, o['seed-base'], cells, results.map((r) => r.result), label), stream: o.stream, period: gridPeriod(o) ?? streamPeriod(o.stream, results[0]?.result.tasks ?? 0), switches, retrieval: o.rerank ? 're-ranked' : 'fused' };
  const hits = results.reduce((s, r) => s + r.result.cacheHits, 0);
  const misses = results.reduce((s, r) => s + r.result.cacheMisses, 0);
  const footer = [
    `${o.seeds} seeds from ${o['seed-base']}; ${cells.length} cells; ${json.tasks} tasks per stream; ${o.jobs} worker process(es); wall time ${seconds.toFixed(1)} s; program executions ${misses} run, ${hits} from the run cache.`,
    `Stream ${o.stream} (${path.basename(o.tasks)}), periodic window ${json.period}: test tasks with a non-empty answer, shuffled by seed; initial memory: 100 gold programs drawn by seed from the valid lines of the stream's templates.`,
    `Retrieval: ${o.rerank ? 're-ranked (--rerank; the editor\'s default)' : 'fused + collapse (the benches\' and the CLI\'s default; the editor re-ranks by default)'}.`,
    `Fidelity switches: periodic window ${switches.periodicBounds === 'closed' ? '[t − P, t]' : '(t − P, t]'}; history deletes ${switches.historyPerTask === 'worst' ? 'at most the worst record per task (the paper\'s code)' : 'every match'}; strict evaluator ${switches.answerMatch === 'contains' ? 'ground truth contained in the answer (the paper)' : 'set-of-rows match'}. Relative threshold: Wilson upper bound (z = 1.96) of a record's mean Φ below the running accuracy (beyond the paper).`,
    `Shift: k-means (k = 3, cosine on the hashing embedder's question vectors) instead of the paper's GMM; groups run one after another.`,
    `Error-free: add-all's retrievals, every task added, each record holding the ground-truth program (the paper's controlled replay).`,
  ];
  footer.push(formatProfile(results.map((r) => r.result.profile), seconds, o.jobs), formatCpu(results.map((r) => r.result), seconds, o.jobs));
  const checks = paperChecks(json);
  const comparison = paperComparison(json, o.agent === 'simulated' ? CALIBRATION_TARGETS : []);
  fs.mkdirSync(o.out, { recursive: true });
  fs.writeFileSync(path.join(o.out, 'grid.json'), JSON.stringify({ ...json, checks }, null, 2) + '\n');
  const title = `Agent Memory — the paper grid on the EHR stream (${o.agent === 'simulated' ? 'SIMULATION: simulated agent' : o.agent === 'reuse' ? 'reuse model, the floor' : `LLM ${o.model}`})`;
  fs.writeFileSync(path.join(o.out, 'report.html'), renderPaperReport({ title, json, curves: cellCurves(cells, results.map((r) => r.result)), comparison, checks, footer }));
  log(footer.join('\n'));
  if (comparison.length > 0) log(`Predicted vs paper (EHRAgent, Tables 1–2; ${o.agent === 'simulated' ? 'SIMULATION' : o.agent}, stream ${o.stream}):\n${formatComparison(comparison)}`);
  log(`What the grid must show (${o.stream === 'paper' ? 'issue 19, paper-length stream' : 'issue 9, human stream'}), as measured — differences paired by seed, 95 % CI:\n${formatChecks(checks)}`);
  return { json, seconds };
}

/** The profile split summed over every cell and seed (CPU-side ms inside the workers), with the wall time. */
export function formatProfile(profiles: readonly CellProfile[], seconds: number, jobs: number): string {
  const keys = ['sandboxRunMs', 'retrieveMs', 'generateMs', 'bookkeepingMs', 'otherMs'] as const;
  const names: Record<(typeof keys)[number], string> = { sandboxRunMs: 'sandbox runs', retrieveMs: 'retrieval', generateMs: 'generation (agent)', bookkeepingMs: 'policy bookkeeping + evaluation', otherMs: 'other (setup, pipeline)' };
  const totals = keys.map((k) => profiles.reduce((s, p) => s + p[k], 0));
  const all = totals.reduce((s, t) => s + t, 0) || 1;
  return `Profile (summed over ${jobs} worker(s); wall ${seconds.toFixed(0)} s): ${keys.map((k, i) => `${names[k]} ${(totals[i] / 1000).toFixed(1)} s (${((100 * totals[i]) / all).toFixed(0)} %)`).join(', ')}.`;
}

/**
 * The CPU the cells took in the workers, and what that makes on `jobs` free cores: the
 * load-independent figure behind the wall time (the sandbox's child processes are not counted).
 */
export function formatCpu(results: readonly Pick<CellSeedResult, 'cpuMs' | 'tasks'>[], seconds: number, jobs: number): string {
  const cpu = results.reduce((s, r) => s + r.cpuMs, 0) / 1000;
  const tasks = results.reduce((s, r) => s + r.tasks, 0);
  return `CPU in the workers: ${cpu.toFixed(0)} s for ${tasks} task runs (${tasks ? ((1000 * cpu) / tasks).toFixed(1) : '0'} ms per task), i.e. ${(cpu / jobs).toFixed(0)} s on ${jobs} free core(s); wall ${seconds.toFixed(0)} s.`;
}

/** The grid as a plain-text table. */
export function formatGrid(json: GridJson): string {
  const lines = [`agent ${json.agent}${json.label ? ` — ${json.label}` : ''}; stream ${json.stream ?? 'human'}; ${json.seeds} seeds from ${json.seed_base}; ${json.tasks} tasks; period ${json.period ?? 'scaled'}`, 'addition  deletion  variant     attribution threshold  acc %   95 % CI           memory  min'];
  for (const c of json.cells) {
    lines.push(`${c.addition.padEnd(9)} ${c.deletion.padEnd(9)} ${c.variant.padEnd(11)} ${c.attribution.padEnd(11)} ${(c.threshold ?? 'paper').padEnd(9)} ${c.accuracy_mean.toFixed(2).padStart(6)}  [${c.accuracy_ci95[0].toFixed(2)}, ${c.accuracy_ci95[1].toFixed(2)}]`.padEnd(80) + `${String(c.memory_mean).padStart(7)}  ${c.memory_min}`);
  }
  return lines.join('\n') + '\n';
}

async function main(argv: string[]): Promise<number> {
  const o = parsePaperOptions(argv);
  if (o === HELP_SHOWN) return 0;
  const { json } = await runPaperGrid(o, (line) => process.stderr.write(`${line}\n`));
  if (!o.json) process.stdout.write(formatGrid(json));
  // The last stdout line is always the grid JSON.
  process.stdout.write(JSON.stringify(json) + '\n');
  return 0;
}

if (require.main === module) runMain('bench:paper', () => main(process.argv.slice(2)));
