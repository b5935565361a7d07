import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { AgentMemoryError } from '../../errors';

/** Languages a runner can execute. */
export const RunLanguageSchema = z.enum(['javascript', 'python']);
export type RunLanguage = z.infer<typeof RunLanguageSchema>;

/** "Now" of the EHR demo (EHRSQL convention); `current_time` / `'now'` in SQL resolve to it. */
export const DEFAULT_NOW = '2105-12-31 23:59:00';

/** Resource limits of one run. */
export interface RunLimits {
  /** Wall-clock limit (and CPU-time limit where the platform allows), in ms. */
  timeoutMs: number;
  /** Memory limit in MiB (JS heap + RSS watchdog; Python address space). */
  memoryMb: number;
  /** Combined stdout + stderr cap in bytes; the run is killed when exceeded. */
  outputBytes: number;
}

/** Defaults: 10 s, 256 MiB, 64 KiB of output. */
export const DEFAULT_RUN_LIMITS: Readonly<RunLimits> = Object.freeze({
  timeoutMs: 10_000,
  memoryMb: 256,
  outputBytes: 64 * 1024,
});

const NOW_PATTERN = /^\d{4}-\d{2}-\d{2}( \d{2}:\d{2}(:\d{2})?)?$/;

export const RunLimitsSchema = z.object({
  timeoutMs: z.number().int().min(50).max(600_000),
  memoryMb: z.number().int().min(32).max(16_384),
  outputBytes: z.number().int().min(256).max(64 * 1024 * 1024),
});

export const RunRequestSchema = z.object({
  code: z.string().max(1_000_000),
  language: RunLanguageSchema,
  databasePath: z.string().min(1),
  now: z.string().regex(NOW_PATTERN, 'now looks like YYYY-MM-DD HH:MM:SS').optional(),
  limits: RunLimitsSchema.partial().optional(),
});

/** What to run: the generated code, its language, the database its `sql()` reads, "now" and limits. */
export type RunRequest = z.input<typeof RunRequestSchema>;

export type RunOutcome = 'success' | 'error' | 'timeout' | 'no-answer';
export type KilledBy = 'timeout' | 'memory' | 'output' | 'signal' | 'cancel';

/** A structured error from the generated code (or from the sandbox). `line` is 1-based in the user code. */
export interface RunError {
  kind: string;
  message: string;
  line?: number;
}

/** Everything a run produced. `answer` is a JSON value (null when none was set). */
export interface RunResult {
  outcome: RunOutcome;
  answer: unknown;
  stdout: string;
  stderr: string;
  error?: RunError;
  /** True when stdout/stderr were cut at `limits.outputBytes`. */
  truncated: boolean;
  durationMs: number;
  killedBy?: KilledBy;
}

/**
 * Executes generated code in a sandboxed child process.
 *
 * @example
 * const runner = createRunner('javascript');
 * const r = await runner.run({ code: "answer = sql('select count(*) from patients')", language: 'javascript', databasePath: db });
 * // r.outcome === 'success', r.answer === [[100]]
 * runner.dispose();
 */
export interface CodeRunner {
  readonly language: RunLanguage;
  /** Runs the code; never throws for problems of the code itself (they come back in the result). */
  run(request: RunRequest, signal?: AbortSignal): Promise<RunResult>;
  /** Stops helper processes kept between runs (idempotent). */
  dispose(): void;
}

/** A request with every default applied. */
export interface ResolvedRunRequest {
  code: string;
  language: RunLanguage;
  databasePath: string;
  now: string;
  limits: RunLimits;
}

/** Validates a request and applies defaults; throws AgentMemoryError('INVALID_INPUT') when malformed. */
export function resolveRunRequest(request: RunRequest): ResolvedRunRequest {
  const parsed = RunRequestSchema.safeParse(request);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'request'}: ${i.message}`).join('; ');
    throw new AgentMemoryError('INVALID_INPUT', `Invalid run request (${issues}). Fix the request fields and retry.`);
  }
  const r = parsed.data;
  const now = r.now === undefined ? DEFAULT_NOW : r.now.length === 10 ? `${r.now} 00:00:00` : r.now.length === 16 ? `${r.now}:00` : r.now;
  return { code: r.code, language: r.language, databasePath: r.databasePath, now, limits: { ...DEFAULT_RUN_LIMITS, ...r.limits } };
}

/**
 * Validates a request for the runner of `language` and checks that its database
 * exists; returns it resolved, with an absolute database path.
 */
export function resolveRunRequestFor(request: RunRequest, language: RunLanguage): ResolvedRunRequest {
  const req = resolveRunRequest(request);
  if (req.language !== language) {
    throw new AgentMemoryError('INVALID_INPUT', `The ${language === 'python' ? 'Python' : 'JavaScript'} runner cannot run ${req.language} code; create a runner for that language.`);
  }
  const databasePath = path.resolve(req.databasePath);
  if (!fs.existsSync(databasePath)) {
    throw new AgentMemoryError('RUNNER', `Database not found: ${databasePath}. Point the runner at an existing SQLite file.`);
  }
  return { ...req, databasePath };
}

/** The final message a sandboxed child sends on its result channel. */
export const ChildResultSchema = z.object({
  t: z.literal('result'),
  status: z.enum(['answer', 'no-answer', 'error']),
  answer: z.unknown().optional(),
  error: z
    .object({ kind: z.string().max(200), message: z.string().max(20_000), line: z.number().int().positive().optional() })
    .optional(),
});
export type ChildResult = z.infer<typeof ChildResultSchema>;

/** A SQL request a JavaScript child sends to the host. */
export const ChildSqlRequestSchema = z.object({
  t: z.literal('sql'),
  query: z.string().max(1_000_000),
  params: z.array(z.union([z.string(), z.number(), z.null()])).max(100).default([]),
  shape: z.enum(['array', 'object']).default('array'),
});
export type ChildSqlRequest = z.infer<typeof ChildSqlRequestSchema>;
