/**
 * Settings of one benchmark run (zod-validated; the CLI and the paper grid
 * both build them), and the periodic window scaled to the stream length.
 */
import { z } from 'zod';
import { AdditionPolicyNameSchema } from '../policy/addition';
import { BenchDeletionSchema } from './policy-adapter';
import { AnswerMatchSchema, AttributionSchema, CapacityRuleSchema, DeletionThresholdSchema, HistoryPerTaskSchema, PeriodicBoundsSchema, PeriodicGuardSchema } from '../policy/names';

/** The paper's EHRAgent stream: 2,311 tasks (add-all ends at 2,411 records from 100), period 200. */
export const PAPER_EHR_STREAM_TASKS = 2311;
export const PAPER_EHR_PERIOD = 200;

/**
 * The bench's two EHR streams: `human`, the 216 EHRSQL test questions with a
 * non-empty answer on the demo database (the default, reported); `paper`, the
 * paper-length stream generated from EHRSQL's templates × demo-database values
 * (data/ehr/PAPER-STREAM-CARD.md), run with the paper's parameters unscaled.
 */
export const BENCH_STREAMS = ['human', 'paper'] as const;
export type BenchStream = (typeof BENCH_STREAMS)[number];
export const STREAM_TASK_FILES: Record<BenchStream, string> = { human: 'ehrsql-mimic3-tasks.jsonl', paper: 'ehrsql-mimic3-paper-stream.jsonl' };

/**
 * The periodic window of a stream: the paper's 200 on the paper-length stream;
 * on the short human stream, the window scaled to its length (scaledPeriod).
 */
export function streamPeriod(stream: BenchStream, tasks: number): number {
  return stream === 'paper' ? PAPER_EHR_PERIOD : scaledPeriod(tasks);
}
export const MIN_PERIOD = 10;
export const DEFAULT_INITIAL_MEMORY = 100;
export const DEFAULT_BENCH_SEED = 7;

/**
 * The periodic window for a stream of `tasks` tasks: the paper's 200-task
 * period over its 2,311-task EHR stream, scaled to keep the same number of
 * periods per stream (≈ 11.6): round(tasks × 200 / 2311), at least 10.
 * For the 332-task EHR stream this is 29.
 *
 * @example
 * scaledPeriod(332); // 29
 */
export function scaledPeriod(tasks: number): number {
  return Math.max(MIN_PERIOD, Math.round((tasks * PAPER_EHR_PERIOD) / PAPER_EHR_STREAM_TASKS));
}

/**
 * The paper-fidelity switches a whole grid runs with (bench:paper --periodic-bounds,
 * --history-per-task, --answer-match); each is documented where it is defined (policy/names.ts).
 */
export const FidelitySwitchesSchema = z.object({
  periodicBounds: PeriodicBoundsSchema.default('half-open'),
  historyPerTask: HistoryPerTaskSchema.default('all'),
  answerMatch: AnswerMatchSchema.default('set'),
});
export type FidelitySwitches = z.input<typeof FidelitySwitchesSchema>;

export const BenchConfigSchema = z.object({
  addition: AdditionPolicyNameSchema,
  deletion: BenchDeletionSchema.default('none'),
  capacity: z.number().int().positive().optional(),
  initialMemory: z.number().int().min(0).max(100_000).default(DEFAULT_INITIAL_MEMORY),
  order: z.enum(['given', 'shift']).default('given'),
  errorFree: z.boolean().default(false),
  seed: z.number().int().min(0).max(2 ** 31 - 1).default(DEFAULT_BENCH_SEED),
  language: z.enum(['python', 'javascript']).default('python'),
  /** Run only the first N stream tasks. */
  limit: z.number().int().positive().optional(),
  /** Periodic window; defaults to scaledPeriod(stream length). */
  period: z.number().int().positive().optional(),
  k: z.number().int().min(1).max(32).default(4),
  /** Stream = lines with this answer_status (others feed the initial memory). */
  streamStatus: z.string().min(1).default('nonempty'),
  now: z.string().regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/).default('2105-12-31 23:59:00'),
  maxDebugRounds: z.number().int().min(0).max(20).default(5),
  /**
   * Fit the hashing embedder's statistics on the initial memory. Off by default:
   * on the EHR stream a fit on 100 seed records put a same-template record first
   * less often than the unfitted embedder (see README, bench section).
   */
  fitEmbedder: z.boolean().default(false),
  /** Re-rank retrieval (hybrid-search's opt-in stage); off, as the product. */
  rerank: z.boolean().default(false),
  /** Which retrieved records take Φ: `shown` (the paper) or `followed` (a labelled variant beyond the paper). */
  attribution: AttributionSchema.default('shown'),
  /** Memory floor: no deletion takes active memory below it (the paper's code keeps ≥ 1). */
  minActiveRecords: z.number().int().min(0).optional(),
  /** Memoise deterministic executions (see run-cache.ts). */
  runCache: z.boolean().default(true),
  /** The history rule's threshold: `paper` (β) or `relative` (a labelled mode beyond the paper). */
  historyThreshold: DeletionThresholdSchema.default('paper'),
  /** The periodic guard: `none` (the paper) or `last-of-kind` (a labelled mode beyond the paper). */
  periodicGuard: PeriodicGuardSchema.default('none'),
  /** The capacity rule's reading of §6.2 (`paper`: never force-delete a never-evaluated record). */
  capacityRule: CapacityRuleSchema.default('hard-cap'),
}).extend(FidelitySwitchesSchema.shape);
export type BenchConfigInput = z.input<typeof BenchConfigSchema>;
export type BenchConfig = z.output<typeof BenchConfigSchema>;
