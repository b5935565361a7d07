/**
 * `agent-memory bench` — runs the agent over a task stream with one addition ×
 * deletion configuration and writes DIR/metrics.json and DIR/report.html.
 *
 *   agent-memory bench --tasks T.jsonl --db D.sqlite --addition strict --deletion combined --out out/strict-combined
 *
 * Without --model (or with --model reuse) the offline reuse model runs (a
 * non-LLM baseline); --model <base URL> --model-name M uses an
 * OpenAI-compatible endpoint (API key from AGENT_MEMORY_API_KEY, if needed).
 */
import { z } from 'zod';
import { BenchConfigSchema } from '../../core/bench/config';
import { runBench } from '../../core/bench/harness';
import { createBenchSession } from '../../core/bench/session';
import { readTaskFile } from '../../core/bench/task-file';
import { planTasks } from '../../core/bench/task-plan';
import { configLabel, writeResults } from '../../core/bench/write-results';
import { nullLogger, stderrLogger } from '../../core/logger';
import { AdditionPolicyNameSchema } from '../../core/policy/addition';
import { BenchDeletionSchema } from '../../core/bench/policy-adapter';
import { HELP_SHOWN, ParsedCommandArgs, parseCommandArgs, parseValues } from '../args';
import { requireFileDatabase } from '../db-target';

export const summary = 'run the agent over a task stream with an addition × deletion policy; writes metrics.json and report.html';

export const USAGE = `Usage: agent-memory bench --tasks T.jsonl --db D.sqlite --addition fixed|all|coarse|strict --out DIR
  [--deletion none|periodic|history|combined|forgetting] [--capacity N] [--initial-memory 100]
  [--order given|shift] [--error-free] [--seed S] [--language python|javascript] [--limit N]
  [--model reuse|<endpoint base URL> [--model-name M]] [--period N] [--k 4] [--stream-status nonempty]
  [--fit-embedder] [--no-run-cache] [--quiet]`;

const int = (name: string) =>
  z
    .string()
    .regex(/^\d+$/, `${name} must be a non-negative integer`)
    .transform((s) => Number(s));

export const BenchArgsSchema = z
  .object({
    tasks: z.string().min(1, '--tasks is required'),
    db: z.string().min(1, '--db is required'),
    out: z.string().min(1, '--out is required'),
    addition: AdditionPolicyNameSchema,
    deletion: BenchDeletionSchema.default('none'),
    capacity: int('--capacity').pipe(z.number().int().positive('--capacity must be ≥ 1')).optional(),
    'initial-memory': int('--initial-memory').optional(),
    order: z.enum(['given', 'shift']).default('given'),
    'error-free': z.boolean().default(false),
    seed: int('--seed').optional(),
    language: z.enum(['python', 'javascript']).default('python'),
    limit: int('--limit').pipe(z.number().int().positive('--limit must be ≥ 1')).optional(),
    model: z.string().default('reuse'),
    'model-name': z.string().min(1).optional(),
    period: int('--period').pipe(z.number().int().positive('--period must be ≥ 1')).optional(),
    k: int('--k').optional(),
    'stream-status': z.string().min(1).default('nonempty'),
    'fit-embedder': z.boolean().default(false),
    'no-run-cache': z.boolean().default(false),
    quiet: z.boolean().default(false),
  })
  .superRefine((a, ctx) => {
    if (a.model !== 'reuse') {
      if (!/^https?:\/\//.test(a.model)) ctx.addIssue({ code: 'custom', path: ['model'], message: "--model must be 'reuse' or an http(s) endpoint base URL such as http://localhost:11434/v1" });
      if (!a['model-name']) ctx.addIssue({ code: 'custom', path: ['model-name'], message: '--model-name is required with an endpoint --model' });
    }
  });
export type BenchArgs = z.infer<typeof BenchArgsSchema>;

const FLAGS = new Set(['error-free', 'fit-embedder', 'no-run-cache', 'quiet']);
const OPTIONS = Object.fromEntries(Object.keys(BenchArgsSchema.shape).map((name) => [name, { type: FLAGS.has(name) ? ('boolean' as const) : ('string' as const) }]));

/** Parses argv into validated arguments; throws INVALID_INPUT with the usage on any problem. */
export function parseBenchArgs(argv: string[]): BenchArgs {
  return parseValues(BenchArgsSchema, parseArgsOrHelp(argv.filter((a) => a !== '--help' && a !== '-h'))?.values, USAGE);
}

function parseArgsOrHelp(argv: string[]): ParsedCommandArgs | null {
  const parsed = parseCommandArgs(argv, { usage: USAGE, options: OPTIONS });
  return parsed === HELP_SHOWN ? null : parsed;
}

/** The run configuration the arguments describe (validated again by the harness). */
export function configFromArgs(a: BenchArgs): z.input<typeof BenchConfigSchema> {
  return {
    addition: a.addition,
    deletion: a.deletion,
    capacity: a.capacity,
    initialMemory: a['initial-memory'],
    order: a.order,
    errorFree: a['error-free'],
    seed: a.seed,
    language: a.language,
    limit: a.limit,
    period: a.period,
    k: a.k,
    streamStatus: a['stream-status'],
    fitEmbedder: a['fit-embedder'],
    runCache: !a['no-run-cache'],
  };
}

export async function run(argv: string[]): Promise<number> {
  const parsed = parseArgsOrHelp(argv);
  if (parsed === null) return 0;
  const args = parseValues(BenchArgsSchema, parsed.values, USAGE);
  const config = BenchConfigSchema.parse(configFromArgs(args));
  requireFileDatabase(args.db, 'bench', 'the policy bench runs on a SQLite file it creates (npm run bench:team measures the team memory)');
  const tasks = readTaskFile(args.tasks);
  const plan = planTasks(tasks, { initialMemory: config.initialMemory, seed: config.seed, limit: config.limit, streamStatus: config.streamStatus });
  const logger = args.quiet ? nullLogger : stderrLogger('warn');
  const session = createBenchSession({
    databasePath: args.db,
    language: config.language,
    endpoint: args.model === 'reuse' ? undefined : { baseURL: args.model, model: args['model-name']!, apiKey: process.env.AGENT_MEMORY_API_KEY },
    logger,
  });
  const controller = new AbortController();
  const onSigint = (): void => controller.abort();
  process.once('SIGINT', onSigint);
  try {
    const result = await runBench(plan, config, {
      ...session.deps,
      signal: controller.signal,
      onTask: (row, total) => {
        if (!args.quiet && (row.position % 25 === 0 || row.position === total)) process.stderr.write(`[bench] ${row.position}/${total} tasks, memory ${row.memorySize}\n`);
      },
    });
    const metrics = writeResults(result, args.out);
    process.stdout.write(
      `${configLabel(result.config)}: accuracy ${(metrics.final_accuracy * 100).toFixed(2)}% (${metrics.correct}/${metrics.tasks}), memory ${metrics.initial_memory_size} → ${metrics.memory_size_final}, ` +
        `mean input/output similarity ${metrics.mean_input_similarity?.toFixed(3) ?? '–'}/${metrics.mean_output_similarity?.toFixed(3) ?? '–'}, prompt tokens ${metrics.prompt_tokens}, ` +
        `agent overhead ${metrics.agent_overhead_ms.mean.toFixed(2)} ms/task (p95 ${metrics.agent_overhead_ms.p95.toFixed(2)}). Model: ${metrics.model}.\n` +
        `Wrote ${args.out}/metrics.json and ${args.out}/report.html\n`,
    );
    return 0;
  } finally {
    process.removeListener('SIGINT', onSigint);
    session.dispose();
  }
}
