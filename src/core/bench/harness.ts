/**
 * The benchmark harness (issue 4 item 7, SPEC §8): streams tasks with ground
 * truth over a fresh in-memory store seeded with the initial memory, runs each
 * task through the one task pipeline (../agent/task-pipeline.ts) with the gold
 * evaluator and the bench's policies, and returns one row per task (metrics.ts
 * turns them into metrics.json).
 */
import * as fs from 'node:fs';
import type { CodeGenerator } from '../agent/loop/generators';
import { RoleMemories } from '../agent/role-memories';
import { InMemoryRoleMemoryStore } from '../agent/role-memory-store';
import type { ChatModel } from '../agent/model/types';
import type { RunRequest, RunResult } from '../agent/runners/types';
import { toolboxDocs } from '../agent/toolbox/docs';
import { AgentMemoryError } from '../errors';
import { Logger, nullLogger } from '../logger';
import { MemoryStore } from '../memory/sqlite/store';
import type { NewRecordInput } from '../memory/types';
import { HashingEmbedder } from '../similarity/hashing-embedder';
import { codeSimilarity } from '../similarity/code';
import { fitTextStatistics } from '../similarity/text/text-statistics';
import { BenchConfig, BenchConfigInput, BenchConfigSchema, scaledPeriod } from './config';
import { goldProgram } from '../data/gold-program';
import { readDomainValues } from '../data/domain-values-reader';
import { perFileVersion } from '../data/per-file-version';
import { DEFAULT_SHIFT_GROUPS, shiftOrder } from './kmeans';
import { BenchPolicies, PolicySettings } from './policy-adapter';
import { runTaskPipeline, TaskPipelineDeps } from '../agent/task-pipeline';
import { GoldEvaluator } from '../agent/task-evaluators';
import { MemoryRetriever } from '../agent/retriever';
import { RunCache } from './run-cache';
import { ActiveTemplates } from './active-templates';
import type { CodeSimilarityFn } from '../policy/metrics';
import type { BenchTask } from './task-file';
import type { TaskPlan } from './task-plan';

/** One streamed task's result. */
export interface BenchTaskRow {
  /** 1-based position in the stream (= the task index of the run). */
  position: number;
  id: string;
  line: number;
  template: string | null;
  /** Distribution-shift group (order `shift`), else null. */
  group: number | null;
  question: string;
  outcome: 'success' | 'error' | 'timeout' | 'no-answer';
  /** Ground-truth verdict: 1 correct, 0 not. */
  correct: 0 | 1;
  /** Φ used by the policies, and its evaluator. */
  utility: number | null;
  evaluator: string;
  attempts: number;
  added: boolean;
  additionReason: string;
  deleted: number;
  /** Active records after this task's addition and deletion. */
  memorySize: number;
  inputSimilarity: number | null;
  outputSimilarity: number | null;
  followedRecordId: string | null;
  /** Whether the followed record (top demonstration used) is itself correct (a seed or a ground-truth-correct addition). */
  followedCorrect: boolean | null;
  /** Template of the followed record (when the task file has templates). */
  followedTemplate: string | null;
  /** Whether the retrieved demonstrations (top k) include a record of the task's template; null without templates. */
  retrievedSameTemplate: boolean | null;
  /** Whether the active memory held a record of the task's template when the task started; null without templates. */
  sameTemplateAvailable: boolean | null;
  promptTokens: number;
  completionTokens: number;
  /** Agent overhead: loop overhead + policy bookkeeping (excludes model and code execution time). */
  overheadMs: number;
  loopOverheadMs: number;
  bookkeepingMs: number;
  /** Retrieval (embedding the question and ranking the memory), inside the loop overhead. */
  retrieveMs: number;
  generateMs: number;
  runMs: number;
  gaveUp: string | null;
}

export interface BenchRun {
  config: BenchConfig & { period: number };
  model: string;
  embedderId: string;
  streamLength: number;
  initialMemory: number;
  rows: BenchTaskRow[];
  /** Per group, the stream positions where it starts (order `shift`). */
  groupStarts: number[];
  runCache: { hits: number; misses: number } | null;
  durationMs: number;
}

export interface BenchDeps {
  /** Executes code (usually `runner.run`); wrapped in a RunCache when config.runCache. */
  run(request: RunRequest, signal?: AbortSignal): Promise<RunResult>;
  generator: CodeGenerator;
  /** LLM judge for the coarse evaluator (with an LLM model); absent → the termination signal. */
  judge?: ChatModel;
  databasePath: string;
  logger?: Logger;
  signal?: AbortSignal;
  onTask?(row: BenchTaskRow, total: number): void;
  /** A run cache shared across configurations (grids); its `run` must wrap the same runner. */
  cache?: RunCache;
  /**
   * Where the run's memory store lives (default ':memory:', discarded at the end).
   * A file path keeps the final memory, audit trail and task log for inspection;
   * the file must not exist yet (every run starts from a fresh store).
   */
  storePath?: string;
  /** Code similarity for the policies (default: src/core/similarity/code); the paper grid passes a memoised one (grid-memo.ts). */
  codeSimilarity?: CodeSimilarityFn;
}

function seedRecord(task: BenchTask, language: 'python' | 'javascript'): NewRecordInput {
  return {
    question: task.question,
    execution: { code: goldProgram(task.goldSql, language), language, answer: task.answer ?? null, outcome: 'success' },
    provenance: 'seed',
    createdTask: 0,
    metadata: { source: 'bench-seed', taskId: task.id, line: task.line, ...(task.template ? { template: task.template } : {}) },
  };
}

function templateOf(store: MemoryStore, recordId: string | null): string | null {
  if (!recordId) return null;
  const t = store.get(recordId)?.metadata.template;
  return typeof t === 'string' ? t : null;
}

/**
 * Runs one configuration over the plan.
 *
 * @example
 * const runner = createRunner('python');
 * const run = await runBench(planTasks(tasks, { initialMemory: 100, seed: 7 }), { addition: 'strict' },
 *   { run: (r, s) => runner.run(r, s), generator: new ReuseCodeGenerator(lookup), databasePath: db });
 * const metrics = computeMetrics(run);
 */
export async function runBench(plan: TaskPlan, configInput: BenchConfigInput, deps: BenchDeps): Promise<BenchRun> {
  const parsed = BenchConfigSchema.safeParse(configInput);
  if (!parsed.success) {
    throw new AgentMemoryError('INVALID_INPUT', `Invalid benchmark configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}.`);
  }
  const config = { ...parsed.data, period: parsed.data.period ?? scaledPeriod(plan.stream.length) };
  const logger = deps.logger ?? nullLogger;
  const started = performance.now();
  const language = config.language;

  const seedRecords = plan.seeds.map((t) => seedRecord(t, language));
  // Built-in hashing embedder; optionally fitted on the initial memory only (the memory side), then fixed for the run.
  const fitted = config.fitEmbedder && seedRecords.length > 0;
  const embedder = new HashingEmbedder(fitted ? { statistics: fitTextStatistics(seedRecords.map((r) => ({ question: r.question, code: r.execution.code }))) } : {});

  let stream = plan.stream;
  let groups: (number | null)[] = stream.map(() => null);
  const groupStarts: number[] = [];
  if (config.order === 'shift') {
    const { order, groups: labels } = shiftOrder(stream.map((t) => embedder.embedSync(t.question)), DEFAULT_SHIFT_GROUPS, config.seed);
    stream = order.map((i) => plan.stream[i]);
    groups = order.map((i) => labels[i]);
    groups.forEach((g, i) => {
      if (i === 0 || g !== groups[i - 1]) groupStarts.push(i + 1);
    });
  }

  if (deps.storePath !== undefined && deps.storePath !== ':memory:' && fs.existsSync(deps.storePath)) {
    throw new AgentMemoryError('INVALID_INPUT', `The benchmark store ${deps.storePath} already exists; every run starts from a fresh store, so pass a new path (or none for an in-memory store).`);
  }
  const store = MemoryStore.open(deps.storePath ?? ':memory:');
  const cache = config.runCache ? (deps.cache ?? new RunCache(deps.run)) : null;
  const cacheBefore = cache ? { ...cache.stats } : null;
  const retriever = MemoryRetriever.open(store, { file: null, rerank: config.rerank, domainValues: config.rerank ? domainValuesOf(deps.databasePath) : undefined });
  let policies: BenchPolicies | null = null;
  let templates: ActiveTemplates | null = null;
  try {
    if (seedRecords.length > 0) {
      store.add(seedRecords, { trigger: 'import', reason: 'benchmark initial memory', embeddings: seedRecords.map((r) => embedder.embedSync(r.question)), embedderId: embedder.id });
    }
    const correctIds = new Set(store.activeTexts().map((r) => r.id));
    const settings: PolicySettings = {
      addition: config.addition,
      deletion: config.deletion,
      period: config.period,
      capacity: config.capacity,
      attribution: config.attribution,
      minActiveRecords: config.minActiveRecords,
      switches: { periodicBounds: config.periodicBounds, historyThreshold: config.historyThreshold, periodicGuard: config.periodicGuard, historyPerTask: config.historyPerTask, capacityRule: config.capacityRule },
    };
    policies = new BenchPolicies(store, settings, { codeSimilarity: deps.codeSimilarity ?? codeSimilarity });
    templates = new ActiveTemplates(store);
    // An LLM run keeps coder/debugger role memories for the run (SPEC §7); the reuse model has none.
    const roles = deps.judge && deps.generator.isLLM ? await RoleMemories.load(new InMemoryRoleMemoryStore(), logger) : undefined;
    const pipelineDeps: Omit<TaskPipelineDeps, 'evaluator'> = {
      memory: policies.manager,
      retriever,
      embedder,
      generator: deps.generator,
      run: (request, signal) => (cache ? cache.run(request, signal) : deps.run(request, signal)),
      toolboxDocs: (lang) => toolboxDocs(lang, { now: config.now }),
      roles: roles?.forModel(deps.judge),
      modelKind: deps.generator.isLLM ? 'llm' : 'reuse',
      logger,
    };
    const rows: BenchTaskRow[] = [];
    for (const [i, task] of stream.entries()) {
      if (deps.signal?.aborted) throw new AgentMemoryError('CANCELLED', 'The benchmark was cancelled.');
      const sameTemplateAvailable = task.template ? templates.has(task.template) : null;
      const r = await runTaskPipeline({ ...pipelineDeps, evaluator: new GoldEvaluator(task.answer, config.addition, deps.judge, config.answerMatch) }, task.question, {
        databasePath: deps.databasePath,
        language,
        k: config.k,
        maxDebugRounds: config.maxDebugRounds,
        now: config.now,
        signal: deps.signal,
        candidate: (draft) => ({
          ...draft,
          execution: config.errorFree ? { code: goldProgram(task.goldSql, language), language, answer: task.answer ?? null, outcome: 'success', demonstrationIds: draft.execution.demonstrationIds } : draft.execution,
          metadata: { source: config.errorFree ? 'bench-error-free' : 'bench-agent', taskId: task.id, line: task.line, ...(task.template ? { template: task.template } : {}) },
        }),
        logExtra: { taskId: task.id },
      });
      const { run: result, after, evaluation } = r;
      const correct = evaluation.gold?.utility === 1;
      const recordId = after.addition.recordId;
      if (recordId && (config.errorFree || correct)) correctIds.add(recordId);
      const row: BenchTaskRow = {
        position: i + 1,
        id: task.id,
        line: task.line,
        template: task.template ?? null,
        group: groups[i],
        question: task.question,
        outcome: result.outcome,
        correct: correct ? 1 : 0,
        utility: evaluation.utility.utility,
        evaluator: evaluation.utility.evaluator,
        attempts: result.attempts.length,
        added: recordId !== null,
        additionReason: after.addition.reason,
        deleted: after.deletions.reduce((n, d) => n + d.recordIds.length, 0),
        memorySize: r.memorySize,
        inputSimilarity: after.similarity.inputSimilarity,
        outputSimilarity: after.similarity.outputSimilarity,
        followedRecordId: result.followedRecordId,
        followedCorrect: result.followedRecordId ? correctIds.has(result.followedRecordId) : null,
        followedTemplate: templateOf(store, result.followedRecordId),
        retrievedSameTemplate: task.template ? result.demonstrations.some((d) => templateOf(store, d.recordId) === task.template) : null,
        sameTemplateAvailable,
        promptTokens: r.usage.promptTokens,
        completionTokens: r.usage.completionTokens,
        overheadMs: result.timings.overheadMs + r.bookkeepingMs,
        loopOverheadMs: result.timings.overheadMs,
        bookkeepingMs: r.bookkeepingMs,
        retrieveMs: result.timings.retrieveMs,
        generateMs: result.timings.generateMs,
        runMs: result.timings.runMs,
        gaveUp: result.gaveUp ?? null,
      };
      rows.push(row);
      deps.onTask?.(row, stream.length);
    }
    return {
      config,
      model: deps.generator.id,
      embedderId: embedder.id,
      streamLength: stream.length,
      initialMemory: seedRecords.length,
      rows,
      groupStarts,
      runCache: cache && cacheBefore ? { hits: cache.stats.hits - cacheBefore.hits, misses: cache.stats.misses - cacheBefore.misses } : null,
      durationMs: performance.now() - started,
    };
  } finally {
    templates?.dispose();
    policies?.dispose();
    retriever.close();
    store.close();
  }
}

/** The database's values by column, read once per file (every cell of a grid run re-ranks with the same data). */
const domainValuesOf = perFileVersion((file) => readDomainValues(file));
