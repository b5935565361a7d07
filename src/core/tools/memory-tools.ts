/**
 * The memory as a tool for other agents (MCP clients, VS Code chat agents):
 * search, record and feedback on top of the same pieces the built-in agent
 * uses. A search is a task of the task log; its task index is the retrievalId.
 * It is exploratory until an outcome is reported for it: its retrievals are
 * logged as the agent's own (TaskLog.logRetrievals, counts included) only then
 * (tool-credit.ts). Records and feedback go through the memory manager's afterTask
 * (Φ onto the credited retrieval rows, addition policy, rules), never a copy of it;
 * the credit goes to the records the client used, or those its code follows.
 * Every write names the client in the task log and the audit log.
 *
 * @example
 * const tools = new MemoryTools(deps);
 * const { retrievalId, results } = tools.search({ query: 'parse a CSV in Go' }, client);
 * tools.record({ question, code, language: 'go', outcome: 'success', retrievalId }, client);
 */
import { z } from 'zod';
import { AgentMemoryError } from '../errors';
import { embedQuestion, type QuestionEmbedder } from '../similarity/embedder';
import type { RetrievedDemonstration } from '../memory/demonstration';
import type { RetrieveOptions } from '../agent/retriever';
import type { TaskVerdict } from '../agent/task-evaluators';
import type { MemoryStore } from '../memory/sqlite/store';
import type { MemoryRecord } from '../memory/types';
import type { TaskLog, TaskRow } from '../memory/sqlite/task-log';
import type { AdditionPolicyName } from '../policy/addition';
import type { AfterTaskInput, AfterTaskResult } from '../policy/memory-manager';
import type { Evaluation } from '../policy/utility';
import {
  DEFAULT_TOOL_K,
  FeedbackInput,
  FeedbackOutput,
  OutcomeSource,
  RecordInput,
  RecordOutput,
  SearchInput,
  SearchOutput,
  ToolOutcome,
} from './tool-schemas';
import { DEFAULT_MIN_RELEVANCE, roundRelevance } from '../memory/search/relevance';
import { checkCitations, citationsOf, citationWarning, resolveCitations } from './citations';
import { awaitsCount, checkUsed, countedLog, creditOf, feedbackNote, recordVerdict, usedWithoutRetrieval } from './tool-credit';

/** Who called: the client named in the MCP initialize handshake, or the VS Code chat. */
export interface ToolClient {
  /** `mcp` (stdio server) or `vscode-lm` (language-model tool in the editor). */
  via: 'mcp' | 'vscode-lm';
  name: string;
  version?: string;
}

export interface MemoryToolsDeps {
  store: MemoryStore;
  tasks(): TaskLog;
  /** The agent's read step (MemoryRetriever.retrieve). */
  retrieve(question: string, vector: Float32Array | undefined, k: number, options?: RetrieveOptions): RetrievedDemonstration[];
  embedder(): QuestionEmbedder;
  /** The memory manager's per-task step (Φ, addition policy, rules). */
  afterTask(input: AfterTaskInput): AfterTaskResult;
  additionPolicy(): AdditionPolicyName;
  /** Folder relative citation paths resolve against (default: the process's working directory). */
  citationRoot?(): string;
}

/**
 * The memory tools as every front end (MCP server, VS Code chat) calls them, whichever
 * backend holds the memory: MemoryTools on a SQLite file, TeamMemoryTools on PostgreSQL.
 */
export interface MemoryToolApi {
  search(input: unknown, client: ToolClient): Promise<SearchOutput>;
  /** `signal`: the client cancelled the call (MCP notifications/cancelled); honoured until the write starts. */
  record(input: unknown, client: ToolClient, signal?: AbortSignal): Promise<RecordOutput>;
  feedback(input: unknown, client: ToolClient): FeedbackOutput | Promise<FeedbackOutput>;
}

/** Marks a task begun by memory_search (feedback and records accept only those). */
export const TOOL_ORIGIN = 'tool';

/** The log a memory_search task carries (its demonstrations; whether a memory_record used it). */
export const ToolTaskLogSchema = z.object({
  origin: z.literal(TOOL_ORIGIN),
  demonstrations: z.array(z.object({ recordId: z.string(), inputSimilarity: z.number().nullable() })),
  recorded: z.boolean().optional(),
  /** Who searched (memory_search writes it; a memory_record without a search has none). */
  client: z.string().optional(),
  /** false: an exploratory search whose retrievals are not counted yet (tool-credit.ts); absent: counted when it ran (older searches). */
  counted: z.boolean().optional(),
});

/** memory_feedback on the task of a memory_record made without a search: no record was returned, nothing to credit. */
export function assertSearched(log: z.infer<typeof ToolTaskLogSchema>, retrievalId: string): void {
  if (log.client === undefined && log.recorded === true) {
    throw new AgentMemoryError('INVALID_STATE', `retrievalId ${retrievalId} belongs to a memory_record made without a memory_search: no record was returned, so there is nothing to credit. Pass the retrievalId a memory_search returned. Nothing was written.`);
  }
}

/** The folder citations must lie in: the deps' (the editor's workspace folder), else the working directory. */
export function citationRootOf(deps: { citationRoot?(): string }): string {
  return deps.citationRoot?.() ?? process.cwd();
}

export function clientLabel(client: ToolClient): string {
  return `${client.via}:${client.name}${client.version ? `@${client.version}` : ''}`;
}

/** Parses tool input; a malformed call gets INVALID_INPUT naming the field (nothing is written). */
export function parseToolInput<S extends z.ZodType>(schema: S, input: unknown, tool: string): z.infer<S> {
  const parsed = schema.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${i.path.length ? i.path.join('.') : 'arguments'}: ${i.message}`).join('; ');
  throw new AgentMemoryError('INVALID_INPUT', `Invalid arguments for ${tool} (${problems}). Nothing was written.`);
}

/** One memory_search result: the record as shown, with the files it cites re-hashed now (just in time). */
export function searchResultItem(r: MemoryRecord, similarity: number | null, identical: number | undefined, citationRoot: string, verdict?: TaskVerdict, relevance?: number): SearchOutput['results'][number] {
  const item = {
    id: r.id,
    question: r.question,
    code: r.execution.code,
    language: r.execution.language,
    outcome: r.execution.outcome,
    ...(verdict ? { verdict: { kind: verdict.kind, source: verdict.source } } : {}),
    utility: r.stats.meanUtility,
    retrievals: r.stats.retrievalCount,
    similarity: shownSimilarity(similarity),
    ...(relevance === undefined ? {} : { relevance: roundRelevance(relevance) }),
    ...(identical ? { identical } : {}),
  };
  const cited = citationsOf(r.metadata);
  if (cited.length === 0) return item;
  const citations = checkCitations(cited, citationRoot);
  const warning = citationWarning(citations);
  return { ...item, citations, ...(warning ? { warning } : {}) };
}

/** A cosine as results show it: in [0, 1] (a negative cosine is no similarity), null when unknown or not a number. */
export function shownSimilarity(similarity: number | null): number | null {
  return similarity === null || !Number.isFinite(similarity) ? null : Math.min(1, Math.max(0, similarity));
}

export class MemoryTools implements MemoryToolApi {
  constructor(private readonly deps: MemoryToolsDeps) {}

  /**
   * memory_search: the K best active records (only those whose code worked unless include_failures),
   * each with its outcome; the search is logged as an exploratory task (no retrieval counted yet).
   */
  async search(input: unknown, client: ToolClient): Promise<SearchOutput> {
    const args = parseToolInput(SearchInput, input, 'memory_search');
    const { store } = this.deps;
    const tasks = this.deps.tasks();
    const vector = await embedQuestion(this.deps.embedder(), args.query);
    const demos = this.deps.retrieve(args.query, vector, args.k ?? DEFAULT_TOOL_K, { workedOnly: args.include_failures !== true, minRelevance: args.min_score ?? DEFAULT_MIN_RELEVANCE });
    const taskIndex = store.atomically(() => {
      const t = tasks.begin(args.query);
      const demonstrations = demos.map((d) => ({ recordId: d.recordId, inputSimilarity: d.inputSimilarity }));
      tasks.finish(t, { log: { origin: TOOL_ORIGIN, client: clientLabel(client), demonstrations, counted: false } });
      return t;
    });
    const records = new Map(store.getMany(demos.map((d) => d.recordId)).map((r) => [r.id, r]));
    const root = citationRootOf(this.deps);
    const taskOf = (index: number) => tasks.get(index);
    return {
      retrievalId: String(taskIndex),
      results: demos.flatMap((d) => {
        const r = records.get(d.recordId);
        return r ? [searchResultItem(r, d.inputSimilarity, d.identical, root, recordVerdict(r, taskOf), d.relevance)] : [];
      }),
    };
  }

  /** memory_record: a finished task of another agent, through the addition policy. */
  async record(input: unknown, client: ToolClient, signal?: AbortSignal): Promise<RecordOutput> {
    const args = parseToolInput(RecordInput, input, 'memory_record');
    const { store } = this.deps;
    const tasks = this.deps.tasks();
    const source = args.source ?? 'self';
    const outcomeEvaluation = evaluationOf(args.outcome, source, client);
    if (args.used !== undefined && args.retrievalId === undefined) throw usedWithoutRetrieval();
    const existing = args.retrievalId === undefined ? undefined : this.toolTask(args.retrievalId);
    if (existing?.log.recorded) throw alreadyRecorded(args.retrievalId!);
    const used = existing ? checkUsed(args.used, existing.log.demonstrations, args.retrievalId!, 'memory_record') : undefined;
    const embedder = this.deps.embedder();
    const vector = await embedQuestion(embedder, args.question);
    // Under strict the human decides (the record waits as pending); the outcome still credits the retrieval.
    const strict = this.deps.additionPolicy() === 'strict';
    const label = clientLabel(client);
    if (signal?.aborted) throw cancelledRecord();
    const result = store.atomically(() => {
      // Checked again under the write lock: another memory_record for this retrieval (this client
      // or another process) may have landed while the question was embedded.
      if (args.retrievalId !== undefined && this.toolTask(args.retrievalId).log.recorded) throw alreadyRecorded(args.retrievalId);
      const taskIndex = existing?.task.taskIndex ?? tasks.begin(args.question);
      const retrieved = existing ? this.demonstrations(existing.log.demonstrations) : [];
      if (existing) this.countRetrievals(taskIndex, existing.log, retrieved);
      const outcome = args.outcome === 'success' ? 'success' : 'error';
      tasks.finish(taskIndex, {
        language: args.language,
        code: args.code,
        answer: args.answer ?? null,
        outcome,
        log: { ...(existing ? countedLog(existing.task.log) : { origin: TOOL_ORIGIN, demonstrations: [] }), recorded: true, recordedBy: label, outcomeSource: source },
      });
      const after = this.deps.afterTask({
        taskIndex,
        retrieved,
        credit: creditOf(used, args.code),
        evaluation: strict ? null : outcomeEvaluation,
        candidate: {
          question: args.question,
          execution: { code: args.code, language: args.language, answer: args.answer ?? null, outcome, demonstrationIds: retrieved.map((d) => d.recordId) },
          provenance: 'agent',
          metadata: {
            taskIndex,
            via: client.via,
            client: label,
            outcomeSource: source,
            ...(args.citations?.length ? { citations: resolveCitations(args.citations, citationRootOf(this.deps)) } : {}),
          },
        },
        language: args.language,
        embedding: vector,
        embedderId: embedder.id,
        auditEvidence: { client: label, via: client.via, outcome: args.outcome, outcomeSource: source },
      });
      // Under strict the human decides the record, but the outcome still credits the retrieval (after
      // afterTask: its attribution marks which rows take Φ).
      if (strict && retrieved.length > 0) tasks.setUtility(taskIndex, outcomeEvaluation.utility!, outcomeEvaluation.evaluator);
      return { taskIndex, after, credited: tasks.creditedOf(taskIndex) };
    });
    const { addition } = result.after;
    return {
      id: addition.recordId,
      status: addition.status ?? 'not-added',
      reason: addition.reason,
      retrievalId: String(result.taskIndex),
      ...(existing ? { credited: result.credited } : {}),
    };
  }

  /**
   * memory_feedback: Φ of a retrieval's task onto the records the client used (`used`); without
   * it, onto those followed by the code a memory_record stored for the retrieval; with neither, none.
   */
  feedback(input: unknown, client: ToolClient): FeedbackOutput {
    const args = parseToolInput(FeedbackInput, input, 'memory_feedback');
    const source = args.source ?? 'self';
    const evaluation = evaluationOf(args.outcome, source, client);
    const { task, log } = this.toolTask(args.retrievalId);
    assertSearched(log, args.retrievalId);
    const used = checkUsed(args.used, log.demonstrations, args.retrievalId, 'memory_feedback');
    const retrieved = this.demonstrations(log.demonstrations);
    const credited = this.deps.store.atomically(() => {
      // The client's tests are ground truth: a later self-report does not replace them (tests again do).
      const current = this.deps.tasks().get(task.taskIndex);
      if (current?.evaluator === GROUND_TRUTH && evaluation.evaluator !== GROUND_TRUTH) {
        throw testsKept(args.retrievalId);
      }
      this.countRetrievals(task.taskIndex, log, retrieved);
      this.deps.tasks().finish(task.taskIndex, { log: { ...countedLog(task.log), feedbackBy: clientLabel(client), outcomeSource: source } });
      const credit = creditOf(used, task.code);
      this.deps.afterTask({ taskIndex: task.taskIndex, retrieved, evaluation, candidate: null, finalCode: task.code, ...(task.language ? { language: task.language } : {}), credit });
      // What took Φ: a re-evaluation replaces the Φ of the rows credited before (a first report decides which).
      return this.deps.tasks().creditedOf(task.taskIndex);
    });
    const note = feedbackNote(used, task.code, retrieved.length, credited.length);
    return { updated: credited.length, utility: evaluation.utility!, evaluator: evaluation.evaluator, credited, ...(note ? { note } : {}) };
  }

  /** The first outcome on an exploratory search: its retrievals are logged and counted now (the agent's own logRetrievals). */
  private countRetrievals(taskIndex: number, log: z.infer<typeof ToolTaskLogSchema>, retrieved: readonly RetrievedDemonstration[]): void {
    if (!awaitsCount(log)) return;
    this.deps.tasks().logRetrievals(taskIndex, retrieved.map((d) => ({ recordId: d.recordId, rank: d.rank, inputSimilarity: d.inputSimilarity })));
  }

  private toolTask(retrievalId: string): { task: TaskRow; log: z.infer<typeof ToolTaskLogSchema> } {
    const task = this.deps.tasks().get(Number(retrievalId));
    const log = ToolTaskLogSchema.safeParse(task?.log);
    if (!task || !log.success) {
      throw new AgentMemoryError('NOT_FOUND', `No memory_search with retrievalId ${retrievalId} in this memory: pass the retrievalId a memory_search call returned. Nothing was written.`);
    }
    return { task, log: log.data };
  }

  /** The records a memory_search returned that still exist (purged ones are skipped); all were shown to the client, the credit decides which take Φ. */
  private demonstrations(logged: { recordId: string; inputSimilarity: number | null }[]): (RetrievedDemonstration & { shown: boolean })[] {
    const records = new Map(this.deps.store.getMany(logged.map((d) => d.recordId)).map((r) => [r.id, r]));
    return logged.flatMap((d, rank) => {
      const r = records.get(d.recordId);
      return r ? [{ recordId: r.id, question: r.question, code: r.execution.code, language: r.execution.language, inputSimilarity: d.inputSimilarity, rank, shown: true }] : [];
    });
  }
}

export const GROUND_TRUTH: Evaluation['evaluator'] = 'strict:ground-truth';

/** A memory_record the client cancelled before its write began (CANCELLED). */
export function cancelledRecord(): AgentMemoryError {
  return new AgentMemoryError('CANCELLED', 'memory_record was cancelled by the client before anything was written; call it again to record the task.');
}

/** A second memory_record on one retrieval (INVALID_STATE). */
export function alreadyRecorded(retrievalId: string): AgentMemoryError {
  return new AgentMemoryError('INVALID_STATE', `retrievalId ${retrievalId} already has a memory_record; call memory_search again for a new task. Nothing was written.`);
}

/** A self-report on a retrieval the client's tests already judged (INVALID_STATE). */
export function testsKept(retrievalId: string): AgentMemoryError {
  return new AgentMemoryError('INVALID_STATE', `retrievalId ${retrievalId} already has an outcome from the client's tests; a self-report does not replace it (report tests again with source "tests"). Nothing was written.`);
}

/** Φ of a reported outcome: tests are the strict evaluator (ground truth), anything else the coarse self-report. */
export function evaluationOf(outcome: ToolOutcome, source: OutcomeSource, client: ToolClient): Evaluation {
  const utility = outcome === 'success' ? 1 : 0;
  return source === 'tests'
    ? { utility, evaluator: GROUND_TRUTH, reason: `${clientLabel(client)} reported that its tests ${outcome === 'success' ? 'passed' : 'failed'}` }
    : { utility, evaluator: 'coarse:self', reason: `${clientLabel(client)} reported ${outcome}` };
}
