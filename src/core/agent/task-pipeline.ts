/**
 * THE task path (SPEC §1, paper Figure 1), the only one: the editor, the CLI
 * and the bench all call `runTaskPipeline`.
 *
 *   retrieve (K records of the task's language, question embedded once)
 *   → prompt (token budget; the generator reports what it kept)
 *   → loop (generate · run · debug, ≤ N rounds)
 *   → evaluate (injected: gold | human | judge | tests)
 *   → afterTask (Φ to the shown demonstrations, similarities, addition, rules)
 *   → log (one task row, one shape for every client)
 *
 * What differs between clients is injected: the generator (reuse model, LLM,
 * simulation), the runner, the retriever + embedder, the evaluator and the
 * memory manager (its policies). Nothing here knows about the editor or the bench.
 */
import type { Logger } from '../logger';
import type { MemoryStore } from '../memory/sqlite/store';
import type { TaskLog } from '../memory/sqlite/task-log';
import type { AgentLanguage as Language, NewRecordInput } from '../memory/types';
import type { AfterTaskInput, AfterTaskResult } from '../policy/memory-manager';
import { AgentMemoryError } from '../errors';
import { demonstrationLanguages } from './demonstration-languages';
import { AgentRunResult, runAgentLoop, RetrievedDemonstration } from './loop/agent-loop';
import type { CodeGenerator } from './loop/generators';
import type { TokenUsage } from './model/types';
import type { RunRequest, RunResult } from './runners/types';
import type { ModelKind, TaskEvaluation, TaskEvaluator, TaskVerdict } from './task-evaluators';
import { taskVerdict } from './task-verdict';
import { embedQuestion, type QuestionEmbedder } from '../similarity/embedder';

export type { QuestionEmbedder } from '../similarity/embedder';

/**
 * The read step: the K best records for a question already embedded as `vector`;
 * with `options.languages`, only records in those languages (MemoryRetriever).
 */
export interface DemonstrationRetriever {
  /** Synchronous on a SQLite file (MemoryRetriever); a promise on the team memory (one round trip). */
  retrieve(question: string, vector: Float32Array | undefined, k: number, options?: { languages?: readonly string[] }): RetrievedDemonstration[] | Promise<RetrievedDemonstration[]>;
}

/** What the loop and the pipeline write to the task log (TaskLog on a SQLite file; an in-process log on the team memory). */
export type TaskLogPort = Pick<TaskLog, 'begin' | 'finish' | 'get' | 'logRetrievals'>;

/**
 * The memory side of a task: the task log and the per-task policy step (a MemoryManager on a
 * SQLite file, synchronous; the team adapter on PostgreSQL, a promise).
 */
export interface TaskMemory {
  readonly tasks: TaskLogPort;
  readonly store: { counts(): Pick<ReturnType<MemoryStore['counts']>, 'active'> | Promise<Pick<ReturnType<MemoryStore['counts']>, 'active'>> };
  afterTask(input: AfterTaskInput): AfterTaskResult | Promise<AfterTaskResult>;
}

export interface TaskPipelineDeps {
  memory: TaskMemory;
  retriever: DemonstrationRetriever;
  embedder: QuestionEmbedder;
  generator: CodeGenerator;
  evaluator: TaskEvaluator;
  run(request: RunRequest, signal?: AbortSignal): Promise<RunResult>;
  toolboxDocs(language: Language): string;
  roles?: Parameters<typeof runAgentLoop>[0]['roles'];
  /** Which kind of model the generator is (shown beside every answer). */
  modelKind: ModelKind;
  logger?: Logger;
}

export interface TaskPipelineOptions {
  databasePath: string;
  language: Language;
  k?: number;
  maxDebugRounds?: number;
  now?: string;
  limits?: RunRequest['limits'];
  signal?: AbortSignal;
  /**
   * Shapes the record the task may add (default: the agent's own execution,
   * none when it produced no code). The bench's error-free variant stores the
   * gold program instead and adds its metadata.
   */
  candidate?(draft: NewRecordInput, run: AgentRunResult): NewRecordInput | null;
  /** Extra fields for the task log row (e.g. the bench's task id). */
  logExtra?: Record<string, unknown>;
}

export interface TaskPipelineResult {
  run: AgentRunResult;
  evaluation: TaskEvaluation;
  /** The correctness verdict (gold when known, else the evaluator's), apart from the outcome. */
  verdict: TaskVerdict;
  modelKind: ModelKind;
  after: AfterTaskResult;
  /** Active records after this task's addition and deletions. */
  memorySize: number;
  /** Tokens of the loop plus the evaluator's (LLM judge). */
  usage: TokenUsage;
  /** Time after the loop (evaluation + policies + log) minus time spent in a model. */
  bookkeepingMs: number;
  durationMs: number;
}

/**
 * Runs one task end to end (see the file comment).
 *
 * @example
 * const r = await runTaskPipeline(deps, 'how many patients died in 2104?', { databasePath, language: 'python', k: 4 });
 * r.verdict.kind; r.after.addition.recordId; r.run.demonstrations.filter((d) => d.shown);
 */
export async function runTaskPipeline(deps: TaskPipelineDeps, question: string, options: TaskPipelineOptions): Promise<TaskPipelineResult> {
  const started = performance.now();
  const { language } = options;
  const tasks = deps.memory.tasks;
  // Embedded once: the query vector for retrieval is also the new record's vector (none when an endpoint is down: keywords serve).
  const vector = await embedQuestion(deps.embedder, question, options.signal);
  // Demonstrations only from records of the task's language (one rule: demonstration-languages.ts).
  const languages = demonstrationLanguages(language);
  const run = await runAgentLoop(
    {
      tasks,
      retrieve: async (q, k) => deps.retriever.retrieve(q, q === question ? vector : await embedQuestion(deps.embedder, q, options.signal), k, { languages }),
      generator: deps.generator,
      run: deps.run,
      toolboxDocs: deps.toolboxDocs,
      roles: deps.roles,
      logger: deps.logger,
    },
    question,
    { databasePath: options.databasePath, language, k: options.k, maxDebugRounds: options.maxDebugRounds, now: options.now, limits: options.limits, signal: options.signal },
  );
  const t0 = performance.now();
  // A model that could not be reached wrote no program: the task is not the agent's wrong answer, it is
  // not checked (no gold verdict, no Φ for the demonstrations); the result says the model failed.
  const evaluation: TaskEvaluation = run.modelFailed
    ? { utility: { utility: null, evaluator: 'strict:ground-truth', reason: `not checked: ${run.gaveUp ?? 'the model failed'}` }, modelMs: 0, usage: { promptTokens: 0, completionTokens: 0 } }
    : await deps.evaluator.evaluate({ question, code: run.code, language, answer: run.answer, outcome: run.outcome, outputExcerpt: run.outputExcerpt }, options.signal);
  const usage = { promptTokens: run.usage.promptTokens + evaluation.usage.promptTokens, completionTokens: run.usage.completionTokens + evaluation.usage.completionTokens };

  const draft: NewRecordInput = {
    question,
    execution: { code: run.code, language, answer: run.answer ?? null, outcome: run.outcome, outputExcerpt: run.outputExcerpt.slice(0, 4000), demonstrationIds: run.demonstrations.map((d) => d.recordId) },
    provenance: 'agent',
    metadata: { taskIndex: run.taskIndex, model: run.model },
  };
  const candidate = options.candidate ? options.candidate(draft, run) : run.code ? draft : null;
  const retrieved = run.demonstrations;
  const log = {
    ...options.logExtra,
    model: run.model,
    attempts: run.attempts,
    retrieved: retrieved.map((d) => ({ recordId: d.recordId, rank: d.rank, inputSimilarity: d.inputSimilarity, shown: d.shown })),
    usage,
    timings: run.timings,
    gaveUp: run.gaveUp ?? null,
  };
  // The execution is logged before the policies run, so a failing policy step leaves it on record.
  tasks.finish(run.taskIndex, { language, code: run.code, answer: run.answer, outcome: run.outcome, log });
  const pending = deps.memory.afterTask({
    taskIndex: run.taskIndex,
    retrieved,
    evaluation: evaluation.utility.utility === null ? null : evaluation.utility,
    ...(evaluation.humanApproves ? { humanApproves: true } : {}),
    candidate,
    finalCode: run.code || null,
    language,
    embedding: vector,
    embedderId: deps.embedder.id,
  });
  const after = pending instanceof Promise ? await pending : pending;
  const counted = deps.memory.store.counts();
  const memorySize = (counted instanceof Promise ? await counted : counted).active;
  tasks.finish(run.taskIndex, {
    log: {
      ...log,
      memorySize,
      evaluation: evaluation.utility,
      ...(evaluation.gold ? { correct: evaluation.gold.utility } : {}),
      addition: after.addition.reason,
      deletions: Object.fromEntries(after.deletions.filter((d) => d.recordIds.length > 0).map((d) => [d.ruleId, d.recordIds.length])),
    },
  });
  const bookkeepingMs = Math.max(0, performance.now() - t0 - evaluation.modelMs);
  return {
    run,
    evaluation,
    verdict: loggedVerdict(tasks, run.taskIndex),
    modelKind: deps.modelKind,
    after,
    memorySize,
    usage,
    bookkeepingMs,
    durationMs: performance.now() - started,
  };
}

/** The verdict read back from the task's log row: the dashboard reads it from there too (one source). */
function loggedVerdict(tasks: TaskLogPort, taskIndex: number): TaskVerdict {
  const row = tasks.get(taskIndex);
  if (!row) throw new AgentMemoryError('NOT_FOUND', `Task ${taskIndex} vanished from the task log before its verdict was read: check that no other process rewrites the memory database.`);
  return taskVerdict(row);
}

