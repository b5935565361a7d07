/**
 * What the memory manager (memory-manager.ts) takes and returns: its options, the per-task
 * input and result, and the records of a deletion run. Kept apart so the manager's file holds
 * only its behaviour.
 */
import type { Logger } from '../logger';
import type { DemonstrationAttributionInput } from '../memory/demonstration';
import type { Language, NewRecordInput, Trigger } from '../memory/types';
import type { AdditionDecision } from './addition';
import type { DeletionParams } from './deletion';
import type { AdditionMode, AdditionPolicyName, Attribution, DeletionPolicyName, DeletionReview, DeletionSetting, EvaluatorId, PeriodicWindow, PolicyOperation } from './names';
import type { CodeSimilarityFn, TaskSimilarity } from './metrics';
import type { RuleFiring, RuleSpecInput } from './rules';
import type { Evaluation } from './utility';

export interface MemoryManagerOptions {
  addition: AdditionPolicyName;
  /** `editor`: strict stores pending records; `benchmark`: strict uses the ground truth. */
  mode?: AdditionMode;
  /**
   * Merge an addition identical to an active/pending record (same normalised question and code)
   * into it, counting it (`merged_count`). Off by default: the bench keeps the paper's memory growth.
   */
  mergeIdentical?: boolean;
  deletion?: DeletionSetting;
  /** `immediate` (default; the bench): rules soft-delete at once. `propose`: rules only propose; the user confirms or keeps. */
  review?: DeletionReview;
  /**
   * Under `immediate`: an automatic rule that would delete more than 25 % of the active memory
   * proposes instead (the user is asked with the count). The app sets it; the bench does not.
   */
  proposeLargeDeletions?: boolean;
  /** Parameters for the deletion planners (period, alpha, minRetrievals, beta, capacity, threshold, timeScale, protectSeeds, mode, minActiveRecords). */
  deletionParams?: DeletionParams;
  /** When the periodic rule runs (default `sliding`: after every task). */
  periodicWindow?: PeriodicWindow;
  /** Which retrieved records take the task's Φ (default `shown`; `followed` and `top-output` are labelled variants beyond the paper). */
  attribution?: Attribution;
  /** Attribution `followed`: code similarity to a shown record at or above which it counts as followed (default 0.5). */
  followThreshold?: number;
  /** Rules; default `defaultRules(deletion, deletionParams)`. */
  rules?: RuleSpecInput[];
  codeSimilarity?: CodeSimilarityFn;
  logger?: Logger;
  /** Every-N-tasks forgetting rule interval (default 20). */
  forgettingEvery?: number;
}

export interface AfterTaskInput {
  taskIndex: number;
  /**
   * The records retrieved for the task (their retrievals were logged in the read
   * step), each with `shown`: whether the prompt actually included it. Only shown
   * records take the task's Φ.
   */
  retrieved: readonly DemonstrationAttributionInput[];
  /** Φ of the task (null when not evaluated, e.g. awaiting a human verdict). */
  evaluation: Evaluation | null;
  /** Strict addition stores the record pending for a person even though `evaluation` is known (a gold-checked editor stream). */
  humanApproves?: boolean;
  /** The (q, e) that may become a record; status, createdTask and similarities are set here. */
  candidate: NewRecordInput | null;
  /** Final code of the task (for output similarity); default candidate.execution.code. */
  finalCode?: string | null;
  language?: Language;
  /** User commands to evaluate with the rules (e.g. 'delete:combined'). */
  commands?: readonly string[];
  embedding?: Float32Array;
  embedderId?: string;
  /** Extra evidence for the new record's audit entry (e.g. which tool client wrote it). */
  auditEvidence?: Record<string, unknown>;
  /** Who takes this task's Φ, instead of the manager's attribution (the memory tools set it; the agent loop never does). */
  credit?: TaskCredit;
}

/**
 * A task's credit chosen by the caller: `followed`, the shown records whose code the final code
 * follows (code similarity ≥ followThreshold; without final code, none); `{ used }`, exactly the
 * named records (a tool client said which it used; [] credits none).
 */
export type TaskCredit = 'followed' | { used: readonly string[] };

export interface DeletionRun {
  ruleId: string;
  operation: PolicyOperation;
  trigger: Trigger;
  policy: DeletionPolicyName;
  recordIds: string[];
  skipped: string[];
  /** Records the policy selected that the memory floor kept. */
  floorKept: string[];
  /** Review `propose`: records newly proposed for deletion (none deleted). */
  proposed?: string[];
  /** Review `immediate` in the editor: the rule would have deleted more than 25 % of the active memory, so it proposed instead. */
  largeProposed?: boolean;
}

/** A deletion the user asked for, after the memory floor. */
export interface UserDeletion {
  /** Records soft-deleted now (restorable). */
  deleted: string[];
  /** Active records the memory floor kept (empty when it kept none). */
  kept: { id: string; question: string }[];
  /** For the user when the floor kept records: which, why, and how to change the setting; else null. */
  message: string | null;
}

/** Which retrieved records took the task's Φ. */
export interface TaskAttribution {
  attribution: Attribution;
  /** Retrieved and placed in the prompt. */
  shown: string[];
  /** Took the task's Φ (= shown under `shown`; shown and followed under `followed`; the top one under `top-output`). */
  credited: string[];
  /** Attributions `followed` / `top-output`: shown, but not credited (no Φ). */
  shownNotFollowed: string[];
}

export interface AfterTaskResult {
  taskIndex: number;
  utility: number | null;
  evaluator: EvaluatorId | null;
  similarity: TaskSimilarity;
  attribution: TaskAttribution;
  /** `merged`: the candidate was identical to a stored record, whose count grew instead. */
  addition: AdditionDecision & { recordId: string | null; merged?: boolean };
  firings: RuleFiring[];
  deletions: DeletionRun[];
}
