import { AgentMemoryError, errorMessage, isAgentMemoryError } from '../../errors';
import { Logger, nullLogger } from '../../logger';
import type { TaskLog } from '../../memory/sqlite/task-log';
import type { RunRequest, RunResult } from '../runners/types';
import type { TokenUsage } from '../model/types';
import type { CodeGenerator, Generation } from './generators';
import type { RetrievedDemonstration } from '../../memory/demonstration';
import type { DebugTurn } from './prompt-builder';

export const DEFAULT_K = 4;
export const DEFAULT_MAX_DEBUG_ROUNDS = 5;

export type { RetrievedDemonstration };
/** A retrieved demonstration once the task ran: `shown` says whether any prompt included it. */
export type ShownDemonstration = RetrievedDemonstration & { shown: boolean };

/** One code attempt, as written to the task log. */
export interface AttemptLog {
  attempt: number;
  code: string;
  outcome: RunResult['outcome'];
  answer: unknown;
  error?: string;
  stdout: string;
  durationMs: number;
  note: string;
  debugAnalysis?: string;
}

export interface AgentRunResult {
  taskIndex: number;
  question: string;
  model: string;
  language: 'python' | 'javascript';
  code: string;
  answer: unknown;
  outcome: RunResult['outcome'];
  outputExcerpt: string;
  attempts: AttemptLog[];
  /** The retrieved records, each marked `shown` when the generator placed it in a prompt (any attempt). */
  demonstrations: ShownDemonstration[];
  /** The demonstration the final code followed (highest input similarity used). */
  followedRecordId: string | null;
  usage: TokenUsage;
  timings: { retrieveMs: number; generateMs: number; runMs: number; overheadMs: number; totalMs: number };
  gaveUp?: string;
  /** The model call itself failed (unreachable, refused, out of retries) before any program was written: nothing ran, so nothing can be checked. */
  modelFailed?: boolean;
}

/** The ports the loop needs; the composition root wires real implementations. */
export interface AgentLoopDeps {
  /** The task log (synchronous: the loop never waits on the network for it). */
  tasks: Pick<TaskLog, 'begin' | 'finish' | 'logRetrievals'>;
  retrieve(question: string, k: number): Promise<RetrievedDemonstration[]>;
  generator: CodeGenerator;
  run(request: RunRequest, signal?: AbortSignal): Promise<RunResult>;
  toolboxDocs(language: 'python' | 'javascript'): string;
  roles?: {
    render(role: 'coder' | 'debugger'): string | undefined;
    /** Updates a role memory after its output; failures are logged, never fatal. Returns the tokens the update used. */
    update(role: 'coder' | 'debugger', task: string, output: string, signal?: AbortSignal): Promise<TokenUsage | undefined>;
  };
  logger?: Logger;
}

export interface AgentLoopOptions {
  databasePath: string;
  language: 'python' | 'javascript';
  k?: number;
  maxDebugRounds?: number;
  now?: string;
  limits?: RunRequest['limits'];
  signal?: AbortSignal;
}

/** Adds a call's tokens (role-memory updates are LLM calls of the task too). */
function addUsage(total: TokenUsage, more: TokenUsage | undefined): void {
  if (!more) return;
  total.promptTokens += more.promptTokens;
  total.completionTokens += more.completionTokens;
}

function throwIfCancelled(signal?: AbortSignal): void {
  if (signal?.aborted) throw new AgentMemoryError('CANCELLED', 'The task was cancelled.');
}

function errorText(r: RunResult): string {
  if (r.error) return `${r.error.kind}: ${r.error.message}${r.error.line ? ` (line ${r.error.line})` : ''}`;
  if (r.outcome === 'timeout') return `Timed out${r.killedBy ? ` (${r.killedBy})` : ''}.`;
  if (r.outcome === 'no-answer') return 'The program finished without setting an answer.';
  return r.stderr.slice(0, 500) || 'Unknown error.';
}

/**
 * One task of the agent (the paper's Figure 1, steps 1–2): read K memories,
 * build the prompt, generate code, run it, debug and retry (≤ N rounds),
 * answer or give up with a reason. Evaluation, addition and deletion (steps
 * 3–5) and the task's similarities are done by the task pipeline
 * (../task-pipeline.ts) with this result; call the pipeline, not this loop.
 * Cancellable at every await through `options.signal`: CANCELLED is rethrown
 * after the task row is closed with `log.cancelled = true`. A model reply with
 * no runnable program counts as a failed attempt (retried with feedback); any
 * other generation failure (unreachable endpoint, auth …) gives up at once with
 * the reason in `gaveUp` — the promise resolves, it does not reject.
 *
 * @example
 * const result = await runAgentLoop(deps, 'How should naproxen be taken?', { databasePath, language: 'javascript', signal });
 * if (result.gaveUp) logger.warn(result.gaveUp);
 */
export async function runAgentLoop(deps: AgentLoopDeps, question: string, options: AgentLoopOptions): Promise<AgentRunResult> {
  const logger = deps.logger ?? nullLogger;
  const started = performance.now();
  const k = options.k ?? DEFAULT_K;
  const maxRounds = options.maxDebugRounds ?? DEFAULT_MAX_DEBUG_ROUNDS;
  const language = options.language;
  throwIfCancelled(options.signal);
  const taskIndex = deps.tasks.begin(question);
  const usage: TokenUsage = { promptTokens: 0, completionTokens: 0 };
  const attempts: AttemptLog[] = [];
  try {
    return await runSteps(deps, question, options, { taskIndex, started, k, maxRounds, language, logger, usage, attempts });
  } catch (error) {
    if (isAgentMemoryError(error, 'CANCELLED')) {
      // Close the task row so the log shows what happened before the cancellation.
      try {
        deps.tasks.finish(taskIndex, { log: { cancelled: true, attempts, usage, timings: { totalMs: performance.now() - started }, model: deps.generator.id } });
      } catch (logError) {
        logger.warn(`[agent] task ${taskIndex}: could not log the cancellation: ${errorMessage(logError)}`);
      }
    }
    throw error;
  }
}

interface LoopState {
  taskIndex: number;
  started: number;
  k: number;
  maxRounds: number;
  language: 'python' | 'javascript';
  logger: Logger;
  usage: TokenUsage;
  attempts: AttemptLog[];
}

/** Model output that is not a runnable program (a retry with feedback may fix it). */
function isInvalidOutput(error: unknown): error is AgentMemoryError {
  return isAgentMemoryError(error, 'MODEL') && ['no-code', 'syntax', 'empty'].includes(String(error.details?.kind));
}

async function runSteps(deps: AgentLoopDeps, question: string, options: AgentLoopOptions, state: LoopState): Promise<AgentRunResult> {
  const { taskIndex, started, k, maxRounds, language, logger, usage, attempts } = state;
  const t0 = performance.now();
  const demonstrations = await deps.retrieve(question, k);
  throwIfCancelled(options.signal);
  deps.tasks.logRetrievals(taskIndex, demonstrations.map((d) => ({ recordId: d.recordId, rank: d.rank, inputSimilarity: d.inputSimilarity })));
  const retrieveMs = performance.now() - t0;

  const debugTurns: DebugTurn[] = [];
  let generateMs = 0;
  let runMs = 0;
  let last: { gen: Generation; result: RunResult } | null = null;
  let gaveUp: string | undefined;
  let modelFailed = false;
  // Records some prompt actually included (the prompt builder may drop some for its budget).
  const shown = new Set<string>();

  for (let attempt = 0; attempt <= maxRounds; attempt++) {
    throwIfCancelled(options.signal);
    let gen: Generation;
    const g0 = performance.now();
    try {
      gen = await deps.generator.generate({ question, language, demonstrations, debugTurns, toolboxDocs: deps.toolboxDocs(language), roleMemory: deps.roles?.render('coder'), attempt, signal: options.signal });
    } catch (error) {
      if (isAgentMemoryError(error, 'CANCELLED')) throw error;
      if (isInvalidOutput(error)) {
        // A reply without a runnable program is a failed attempt: tell the coder and retry.
        const paid = error.details?.usage as TokenUsage | undefined;
        if (paid) {
          usage.promptTokens += paid.promptTokens;
          usage.completionTokens += paid.completionTokens;
        }
        const log: AttemptLog = { attempt, code: '', outcome: 'error', answer: null, error: errorMessage(error), stdout: '', durationMs: 0, note: 'invalid model output' };
        attempts.push(log);
        if (attempt === maxRounds) {
          gaveUp = `no working program after ${maxRounds + 1} attempts; last error: ${log.error}`;
          break;
        }
        log.debugAnalysis = `Your reply had no runnable ${language} program. Reply with the complete program in a single \`\`\`${language} fenced block.`;
        debugTurns.push({ code: '', error: log.error!, analysis: log.debugAnalysis });
        continue;
      }
      gaveUp = `code generation failed: ${errorMessage(error)}`;
      modelFailed = last === null;
      logger.warn(`[agent] task ${taskIndex}: ${gaveUp}`);
      break;
    } finally {
      generateMs += performance.now() - g0;
    }
    usage.promptTokens += gen.usage.promptTokens;
    usage.completionTokens += gen.usage.completionTokens;
    for (const id of gen.usedDemonstrations) shown.add(id);
    if (deps.roles && deps.generator.isLLM) addUsage(usage, await deps.roles.update('coder', question, gen.code, options.signal));

    const r0 = performance.now();
    const result = await deps.run({ code: gen.code, language, databasePath: options.databasePath, now: options.now, limits: options.limits }, options.signal);
    runMs += performance.now() - r0;
    throwIfCancelled(options.signal);
    last = { gen, result };
    const log: AttemptLog = { attempt, code: gen.code, outcome: result.outcome, answer: result.answer, stdout: result.stdout.slice(0, 2000), durationMs: result.durationMs, note: gen.note };
    attempts.push(log);
    if (result.outcome === 'success') break;
    log.error = errorText(result);
    if (attempt === maxRounds) {
      gaveUp = `no working program after ${maxRounds + 1} attempts; last error: ${log.error}`;
      break;
    }
    const g1 = performance.now();
    try {
      const dbg = await deps.generator.debug({ question, code: gen.code, error: log.error, roleMemory: deps.roles?.render('debugger'), signal: options.signal });
      usage.promptTokens += dbg.usage.promptTokens;
      usage.completionTokens += dbg.usage.completionTokens;
      log.debugAnalysis = dbg.analysis;
      debugTurns.push({ code: gen.code, error: log.error, analysis: dbg.analysis });
      if (deps.roles && deps.generator.isLLM) addUsage(usage, await deps.roles.update('debugger', question, dbg.analysis, options.signal));
    } catch (error) {
      if (isAgentMemoryError(error, 'CANCELLED')) throw error;
      debugTurns.push({ code: gen.code, error: log.error, analysis: `(debugger unavailable: ${errorMessage(error)})` });
    } finally {
      generateMs += performance.now() - g1;
    }
  }

  const code = last?.gen.code ?? '';
  const result = last?.result;
  const totalMs = performance.now() - started;
  return {
    taskIndex,
    question,
    model: deps.generator.id,
    language,
    code,
    answer: result?.answer ?? null,
    outcome: result?.outcome ?? 'no-answer',
    outputExcerpt: result ? `${result.stdout}${result.stderr ? `\n${result.stderr}` : ''}`.slice(0, 2000) : (gaveUp ?? ''),
    attempts,
    demonstrations: demonstrations.map((d) => ({ ...d, shown: shown.has(d.recordId) })),
    followedRecordId: last?.gen.usedDemonstrations[0] ?? null,
    usage,
    timings: { retrieveMs, generateMs, runMs, overheadMs: Math.max(0, totalMs - generateMs - runMs), totalMs },
    gaveUp,
    ...(modelFailed ? { modelFailed } : {}),
  };
}
