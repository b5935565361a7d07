/**
 * The facade the editor adapter (src/vscode) and the CLI talk to. It hides how the
 * core is wired (store, indexes, policies, agent). Implemented in src/core/app/index.ts.
 * Everything here is editor-agnostic.
 */
import type { Disposable } from '../events';
import type { Settings } from '../settings';
import type { DomainValues } from '../memory/search/domain-values';
import type { ListQuery, ListResult } from '../memory/sqlite/record-query';
import type { AuditEntry, MemoryChangeEvent, MemoryRecord, RecordStatus } from '../memory/types';
import type { TaskRow } from '../memory/sqlite/task-log';
import type { MemoryTools } from '../tools/memory-tools';
import type { ReembedOptions } from './maintenance';
import type { AgentRunResult } from '../agent/loop/agent-loop';

import type { AdditionPolicyName, DeletionPolicyName } from '../policy/names';
import type { UserDeletion } from '../policy/memory-manager';
import type { RetrievedDemonstration } from '../memory/demonstration';
import type { CheckRow, ProposalRow } from '../memory/sqlite/queries/review';
import type { ConfirmedDeletion } from '../policy/deletion-review';
import type { RevalidationReport } from '../revalidation/revalidate';

export type { CheckRow, ConfirmedDeletion, ProposalRow, RevalidationReport };

export type { AdditionPolicyName, DeletionPolicyName, UserDeletion };

// The deletion plan types are the policy layer's (core/policy/deletion/types.ts); re-exported for the editor adapter.
import type { DeletionCandidate, DeletionPlan, FloorNote } from '../policy/deletion/types';
export type { DeletionCandidate, DeletionPlan, FloorNote };

/** A retrieved demonstration as a task result shows it (`shown`: the prompt included it). */
export type DemonstrationUse = Pick<RetrievedDemonstration, 'recordId' | 'question' | 'inputSimilarity' | 'code'> & { shown: boolean };

import type { ModelKind, TaskVerdict } from '../agent/task-evaluators';
import type { VerdictCounts } from '../agent/task-verdict';
export type { VerdictCounts } from '../agent/task-verdict';
export type { ModelKind, TaskVerdict, VerdictKind, VerdictSource } from '../agent/task-evaluators';

/**
 * The fields a task result shares with the agent loop's run (defined once, on AgentRunResult).
 * `outcome` is the execution outcome only: 'success' means the program ran and printed an
 * answer, not that it is right.
 */
export type AgentRunFields = Pick<AgentRunResult, 'taskIndex' | 'question' | 'model' | 'language' | 'code' | 'answer' | 'outcome'>;

/** What the agent did for one question (shown to the user, written to the task log). */
export interface AgentTaskResult extends AgentRunFields {
  /** Correctness, separate from the execution outcome. */
  verdict: TaskVerdict;
  modelKind: ModelKind;
  attempts: number;
  demonstrations: DemonstrationUse[];
  utility: number | null;
  /** `merged`: the answer was identical to a record already stored (same question and code): that record's count grew, no new record. */
  addition: { added: boolean; recordId: string | null; status: RecordStatus | null; reason: string; merged?: boolean };
  /**
   * Per rule that fired: records deleted, and records proposed instead (review `propose`, or a sweep of more than 25 % of the memory: `large`).
   * `policy`: the deletion policy the rule applied, the name the explorer's rows show.
   */
  deletions: { rule: string; policy?: DeletionPolicyName; recordIds: string[]; proposed?: string[]; large?: boolean }[];
  inputSimilarity: number | null;
  outputSimilarity: number | null;
  error?: string;
  durationMs: number;
}

export interface TaskStreamItem {
  question: string;
  /** Ground-truth answer (benchmark/strict mode). */
  answer?: unknown;
}

export interface TaskProgress {
  done: number;
  total: number;
  last?: AgentTaskResult;
}

/** Counts behind the dashboard's summary line (verdicts as in the toasts; see agent/task-verdict.ts). */
export interface DashboardSummary extends VerdictCounts {
  tasks: number;
  /** Programs that ran (execution outcome 'success'; not the same as correct). */
  ran: number;
  /** Unchecked tasks whose Φ waits for the user's approval. */
  awaitingApproval: number;
  /** The user's approvals / rejections (apart from the verdict: a gold-checked task keeps its gold verdict). */
  youApproved: number;
  youRejected: number;
}

export interface DashboardData {
  /**
   * `outcome` = execution (ran or not); `verdict` = correct / wrong / not checked and who judged
   * (the same as the task's toast); `decision` = the user's approval of its record, kept apart;
   * `utility` = the Φ the policies use.
   */
  tasks: { taskIndex: number; verdict: TaskVerdict; decision: 'approved' | 'rejected' | null; utility: number | null; outcome: string | null; memorySize: number; inputSimilarity: number | null; outputSimilarity: number | null }[];
  /** Cumulative accuracy over the checked tasks (any verdict but unknown). */
  accuracyCurve: { taskIndex: number; accuracy: number }[];
  /** Cumulative ran / correct / wrong after each task. */
  outcomeCurve: { taskIndex: number; ran: number; correct: number; wrong: number }[];
  memorySizeCurve: { taskIndex: number; size: number }[];
  similarityScatter: { taskIndex: number; input: number; output: number }[];
  utilityHistogram: { bin: string; count: number }[];
  misaligned: { recordId: string; question: string; meanInputSimilarity: number; meanOutputSimilarity: number; retrievals: number }[];
  counts: Record<RecordStatus, number>;
  summary: DashboardSummary;
  /** The summary in words (dashboardSummaryText), e.g. "20 tasks · 20 ran · 14 correct · 6 wrong (20 checked against a non-empty gold answer) · 0 not checked". */
  summaryText: string;
}

export interface RoleMemoryView {
  role: 'coder' | 'debugger';
  lessons: string[];
  validPatterns: string[];
  mistakesToAvoid: string[];
  updates: number;
}

export interface AgentMemoryApp {
  readonly onDidChange: (listener: (event: MemoryChangeEvent) => void) => Disposable;
  counts(): Record<RecordStatus, number>;
  list(query: ListQuery): ListResult;
  get(id: string): MemoryRecord | undefined;
  audit(recordId?: string): AuditEntry[];
  retrievalsOf(recordId: string): { taskIndex: number; rank: number; inputSimilarity: number | null; outputSimilarity: number | null; utility: number | null }[];
  tasks(): TaskRow[];
  task(taskIndex: number): TaskRow | undefined;

  approve(ids: string[]): void;
  /** Undo of an approval: active → pending again, and the approval's Φ is taken back (one transaction). */
  unapprove(ids: string[]): void;
  reject(ids: string[]): void;
  /** Undo of a rejection: deleted → pending again, and the rejection's Φ is taken back (one transaction). */
  unreject(ids: string[]): void;
  restore(ids: string[]): void;
  purge(ids: string[]): void;
  /**
   * Soft-deletes pending or active records (restorable). The memory floor
   * (agentMemory.deletion.minActiveRecords) holds here as for every deletion rule:
   * the result names the active records it kept, with a message for the user.
   */
  deleteRecords(ids: string[], reason: string): UserDeletion;

  planDeletion(policy: DeletionPolicyName): DeletionPlan;
  applyDeletion(plan: DeletionPlan): number;

  /** Deletions an automatic rule proposed (agentMemory.deletion.review = propose), oldest first. */
  proposedDeletions(): ProposalRow[];
  /** Confirms proposed deletions: soft-deletes them within the memory floor (restorable). */
  confirmDeletions(ids: string[]): ConfirmedDeletion;
  /** Keeps proposed records: exempt from deletion rules for one period; audited. Returns the ids kept. */
  keepRecords(ids: string[]): string[];
  /** Records whose program fails on the current data (not used as demonstrations). */
  staleIds(): Set<string>;
  /** The last revalidation of a record (undefined: never re-run). */
  recordCheck(id: string): CheckRow | undefined;
  /** Re-runs the records' programs against the agent's database (see src/core/revalidation). */
  revalidate(options?: { signal?: AbortSignal; onProgress?: (done: number, total: number) => void; onlyIfChanged?: boolean }): Promise<RevalidationReport>;
  /** The database the agent's programs query (agentMemory.agent.dataPath, else the bundled demo). */
  agentDataPath(): string;
  /** The agent database's values for the re-ranking's value columns (null: not readable, or over the size limit). */
  rerankValues(): Promise<DomainValues | null>;

  /**
   * `humanReview`: under strict addition the record stays pending for the human even when a
   * gold answer checked the task (the verdict still says correct/wrong). Without it the gold
   * answer stands in for the human (bench mode: "approved by gold answer").
   */
  runTask(question: string, options?: { signal?: AbortSignal; groundTruth?: unknown; humanReview?: boolean }): Promise<AgentTaskResult>;
  runStream(items: TaskStreamItem[], options: { signal?: AbortSignal; onProgress?: (p: TaskProgress) => void; humanReview?: boolean }): Promise<AgentTaskResult[]>;

  /**
   * Imports a JSONL export in one transaction; any bad line imports nothing (IMPORT error naming
   * the lines) unless `skipInvalid`: then the valid lines are imported and the bad ones skipped.
   */
  importJsonl(file: string, options?: { skipInvalid?: boolean }): Promise<number>;
  /** Checks a JSONL file as importJsonl does, writing nothing: how many lines are valid, and each bad line in a sentence. */
  checkJsonlFile(file: string): Promise<{ valid: number; problems: string[] }>;
  exportJsonl(file: string, status?: RecordStatus): Promise<number>;
  seedDemoMemory(count?: number): Promise<number>;
  /**
   * Re-embeds every record with the configured embedder (agentMemory.embedding.*: an endpoint,
   * or the built-in one). Progress and cancel; the old vectors serve until the new ones are complete.
   */
  reembed(options?: ReembedOptions): Promise<number>;
  /** The embedding settings or key changed: the next query builds a new endpoint client. */
  embeddingChanged(): void;

  dashboard(): DashboardData;
  roleMemories(): RoleMemoryView[];
  resetRoleMemory(role: 'coder' | 'debugger'): void;

  /**
   * New settings. They apply between tasks: at once when no task runs, else when
   * the running task (or the current task of a stream) has finished.
   */
  configure(settings: Settings, apiKey?: string): void;

  /** memory_search / memory_record / memory_feedback for other agents (language-model tools). */
  memoryTools(): MemoryTools;

  dispose(): void;
}
