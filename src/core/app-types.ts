/**
 * The facade the editor adapter (src/vscode) and the CLI talk to. It hides how the
 * core is wired (store, indexes, policies, agent). Implemented in src/core/app.ts.
 * Everything here is editor-agnostic.
 */
import type { Disposable } from './events';
import type { ListQuery, ListResult } from './memory/record-query';
import type { AuditEntry, MemoryChangeEvent, MemoryRecord, RecordStatus } from './memory/types';
import type { TaskRow } from './memory/task-log';
import type { MemoryTools } from './tools/memory-tools';

export type AdditionPolicyName = 'fixed' | 'all' | 'coarse' | 'strict';
export type DeletionPolicyName = 'periodic' | 'history' | 'combined' | 'forgetting' | 'capacity';

/** One record a deletion policy would remove, with the evidence for it. */
export interface DeletionCandidate {
  recordId: string;
  question: string;
  rule: string;
  evidence: Record<string, number | string | null>;
}

export interface DeletionPlan {
  policy: DeletionPolicyName;
  candidates: DeletionCandidate[];
  /** Task index the plan was computed at. */
  taskIndex: number;
}

export interface DemonstrationUse {
  recordId: string;
  question: string;
  inputSimilarity: number | null;
  code: string;
}

import type { ModelKind, TaskVerdict } from './agent/task-evaluators';
export type { ModelKind, TaskVerdict, VerdictKind, VerdictSource } from './agent/task-evaluators';

/** What the agent did for one question (shown to the user, written to the task log). */
export interface AgentTaskResult {
  taskIndex: number;
  question: string;
  model: string;
  language: 'python' | 'javascript';
  code: string;
  answer: unknown;
  /** Execution outcome only: 'success' means the program ran and printed an answer, not that it is right. */
  outcome: 'success' | 'error' | 'timeout' | 'no-answer';
  /** Correctness, separate from the execution outcome. */
  verdict: TaskVerdict;
  modelKind: ModelKind;
  attempts: number;
  demonstrations: DemonstrationUse[];
  utility: number | null;
  addition: { added: boolean; recordId: string | null; status: RecordStatus | null; reason: string };
  deletions: { rule: string; recordIds: string[] }[];
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

export interface DashboardData {
  tasks: { taskIndex: number; correct: number | null; memorySize: number; inputSimilarity: number | null; outputSimilarity: number | null }[];
  accuracyCurve: { taskIndex: number; accuracy: number }[];
  memorySizeCurve: { taskIndex: number; size: number }[];
  similarityScatter: { taskIndex: number; input: number; output: number }[];
  utilityHistogram: { bin: string; count: number }[];
  misaligned: { recordId: string; question: string; meanInputSimilarity: number; meanOutputSimilarity: number; retrievals: number }[];
  counts: Record<RecordStatus, number>;
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
  reject(ids: string[]): void;
  restore(ids: string[]): void;
  purge(ids: string[]): void;
  deleteRecords(ids: string[], reason: string): void;

  planDeletion(policy: DeletionPolicyName): DeletionPlan;
  applyDeletion(plan: DeletionPlan): number;

  runTask(question: string, options?: { signal?: AbortSignal; groundTruth?: unknown }): Promise<AgentTaskResult>;
  runStream(items: TaskStreamItem[], options: { signal?: AbortSignal; onProgress?: (p: TaskProgress) => void }): Promise<AgentTaskResult[]>;

  importJsonl(file: string): Promise<number>;
  exportJsonl(file: string, status?: RecordStatus): Promise<number>;
  seedDemoMemory(count?: number): Promise<number>;
  reembed(): Promise<number>;

  dashboard(): DashboardData;
  roleMemories(): RoleMemoryView[];
  resetRoleMemory(role: 'coder' | 'debugger'): void;

  /** memory_search / memory_record / memory_feedback for other agents (language-model tools). */
  memoryTools(): MemoryTools;

  dispose(): void;
}
