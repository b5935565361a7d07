import type { Statement } from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { AgentMemoryError } from '../errors';
import type { Disposable } from '../events';
import { Logger, nullLogger, tagged } from '../logger';
import type { MemoryStore } from '../memory/store';
import { TaskLog } from '../memory/task-log';
import type { Language, NewRecordInput, Trigger } from '../memory/types';
import { AdditionDecision, AdditionMode, AdditionPolicyName, approvePending, decideAddition, rejectPending } from './addition';
import { applyDeletionPlan, DeletionParams, planDeletion, purgeRecords, restoreRecords } from './deletion';
import type { DeletionPolicyName, PolicyDeletionPlan } from './deletion/types';
import { CodeSimilarityFn, RetrievedDemonstration, TaskSimilarity, taskSimilarity } from './metrics';
import { DeletionSetting, defaultRules, evaluateRules, PolicyOperation, RuleFiring, RuleSpec, RuleSpecSchema, UtilityUpdate } from './rules';
import type { Evaluation, EvaluatorId } from './utility';

export interface MemoryManagerOptions {
  addition: AdditionPolicyName;
  /** `editor`: strict stores pending records; `benchmark`: strict uses the ground truth. */
  mode?: AdditionMode;
  deletion?: DeletionSetting;
  /** Parameters for the deletion planners (period, alpha, minRetrievals, beta, capacity, threshold, timeScale, protectSeeds, mode). */
  deletionParams?: DeletionParams;
  /** Rules; default `defaultRules(deletion, deletionParams)`. */
  rules?: RuleSpec[];
  codeSimilarity?: CodeSimilarityFn;
  logger?: Logger;
  /** Every-N-tasks forgetting rule interval (default 20). */
  forgettingEvery?: number;
}

export interface AfterTaskInput {
  taskIndex: number;
  /** The records shown as demonstrations (their retrievals were logged in the read step). */
  retrieved: readonly RetrievedDemonstration[];
  /** Φ of the task (null when not evaluated, e.g. awaiting a human verdict). */
  evaluation: Evaluation | null;
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
}

export interface DeletionRun {
  ruleId: string;
  operation: PolicyOperation;
  trigger: Trigger;
  policy: DeletionPolicyName;
  recordIds: string[];
  skipped: string[];
}

export interface AfterTaskResult {
  taskIndex: number;
  utility: number | null;
  evaluator: EvaluatorId | null;
  similarity: TaskSimilarity;
  addition: AdditionDecision & { recordId: string | null };
  firings: RuleFiring[];
  deletions: DeletionRun[];
}

const LAST_RUN_META = 'policy.last_run_by_rule';
const SQL = {
  taskExists: 'SELECT 1 FROM tasks WHERE task_index = ?',
  countActive: "SELECT COUNT(*) AS n FROM records WHERE status = 'active'",
  utilityOf: "SELECT id, utility_sum, utility_count FROM records WHERE status = 'active' AND id IN (SELECT value FROM json_each(?))",
} as const;
/** Safety bound on plan/apply batches for one firing (each batch ≤ the plan limit). */
const MAX_BATCHES = 1000;

/**
 * The per-task memory management step the agent loop calls once per task
 * (SPEC §1 steps 3–5): writes Φ onto the task's retrieval rows, records the
 * experience-following metrics, runs the addition policy, evaluates the rules
 * and applies the deletions they fire, and returns every decision.
 *
 * @example
 * const manager = new MemoryManager(store, { addition: 'strict', mode: 'benchmark', deletion: 'combined', codeSimilarity });
 * const result = manager.afterTask({ taskIndex, retrieved, evaluation, candidate });
 * result.addition.recordId; result.deletions;
 */
export class MemoryManager implements Disposable {
  readonly tasks: TaskLog;
  readonly rules: readonly RuleSpec[];
  private readonly logger: Logger;
  private readonly lastRunByRule: Record<string, number>;
  private activeCount: number | null = null;
  private selfChange = false;
  private readonly subscription: Disposable;
  private readonly needsCount: boolean;
  private readonly needsUtility: boolean;
  private readonly statements = new Map<keyof typeof SQL, Statement>();

  constructor(readonly store: MemoryStore, readonly options: MemoryManagerOptions) {
    this.tasks = new TaskLog(store);
    this.logger = tagged(options.logger ?? nullLogger, 'policy');
    const p = options.deletionParams ?? {};
    this.rules = (options.rules ?? defaultRules(options.deletion ?? 'none', { ...p, forgettingEvery: options.forgettingEvery })).map((r) => RuleSpecSchema.parse(r));
    if (this.rules.some((r) => r.operation === 'delete:capacity') && p.capacity === undefined) {
      throw new AgentMemoryError('CONFIG', 'Capacity-limited deletion needs a capacity: set agentMemory.deletion.capacity (a number of records).');
    }
    this.needsCount = this.rules.some((r) => r.kind === 'capacity-exceeded');
    this.needsUtility = this.rules.some((r) => r.kind === 'utility-drop');
    this.lastRunByRule = parseLastRun(store.getMeta(LAST_RUN_META));
    this.subscription = store.onDidChange((e) => {
      if (!this.selfChange && e.kind !== 'retrieval' && e.kind !== 'task') this.activeCount = null;
    });
  }

  dispose(): void {
    this.subscription.dispose();
  }

  /** Runs the per-task bookkeeping (see the class comment). Synchronous; ≤ 1 ms without deletions. */
  afterTask(input: AfterTaskInput): AfterTaskResult {
    if (!this.statement('taskExists').get(input.taskIndex)) {
      throw new AgentMemoryError('NOT_FOUND', `No task ${input.taskIndex}: begin it with TaskLog.begin before calling afterTask.`);
    }
    // One transaction for the whole step (one commit instead of four or more); the
    // store's events fire once it has committed, still counted as our own changes.
    return this.mutate(() => this.store.atomically(() => this.step(input)));
  }

  private step(input: AfterTaskInput): AfterTaskResult {
    const { taskIndex, evaluation } = input;
    const utility = evaluation?.utility ?? null;
    if (evaluation && utility !== null) this.tasks.setUtility(taskIndex, utility, evaluation.evaluator);

    const language = input.language ?? input.candidate?.execution.language ?? 'python';
    const finalCode = input.finalCode !== undefined ? input.finalCode : (input.candidate?.execution.code ?? null);
    const similarity = taskSimilarity(input.retrieved, finalCode, language, this.options.codeSimilarity);
    if (similarity.outputSimilarity !== null && similarity.topRecordId !== null) {
      this.tasks.setOutputSimilarity(taskIndex, similarity.topRecordId, similarity.outputSimilarity);
    }

    const addition = this.add(input, similarity);
    this.tasks.finish(taskIndex, {
      inputSimilarity: similarity.inputSimilarity,
      outputSimilarity: similarity.outputSimilarity,
      recordId: addition.recordId,
      ...(evaluation ? { evaluator: evaluation.evaluator } : {}),
    });

    const firings = evaluateRules(this.rules, {
      taskIndex,
      activeCount: this.needsCount ? this.countActive() : 0,
      capacity: this.options.deletionParams?.capacity ?? null,
      lastRunByRule: this.lastRunByRule,
      commands: input.commands,
      utilityUpdates: this.needsUtility && utility !== null ? this.utilityOf(input.retrieved.map((r) => r.recordId)) : [],
    });
    const deletions = firings.map((f) => this.runFiring(f, taskIndex));
    if (firings.length > 0) this.store.setMeta(LAST_RUN_META, JSON.stringify(this.lastRunByRule));
    return { taskIndex, utility, evaluator: evaluation?.evaluator ?? null, similarity, addition, firings, deletions };
  }

  /** Dry run of a deletion policy at the current task (nothing changes). */
  plan(policy: DeletionPolicyName, params: DeletionParams = {}): PolicyDeletionPlan {
    if (policy === 'capacity' && (params.capacity ?? this.options.deletionParams?.capacity) === undefined) {
      throw new AgentMemoryError('CONFIG', 'Capacity-limited deletion needs a capacity: set agentMemory.deletion.capacity (a number of records).');
    }
    return planDeletion(this.store.db, policy, this.tasks.currentIndex, { ...this.options.deletionParams, ...params });
  }

  /** Applies a (previewed) plan as soft deletes with audit entries. */
  apply(plan: PolicyDeletionPlan, trigger: Trigger = 'user'): { deleted: string[]; skipped: string[] } {
    return applyDeletionPlan(this.store, plan, trigger);
  }

  // User operations go through the store's events, which invalidate the cached count.
  approve(ids: string[], reason?: string): void {
    approvePending(this.store, ids, { trigger: 'user', reason });
  }

  reject(ids: string[], reason?: string): void {
    rejectPending(this.store, ids, { trigger: 'user', reason });
  }

  restore(ids: string[], reason?: string): void {
    restoreRecords(this.store, ids, { trigger: 'user', reason });
  }

  purge(ids: string[], reason?: string): void {
    purgeRecords(this.store, ids, { trigger: 'user', reason });
  }

  private add(input: AfterTaskInput, similarity: TaskSimilarity): AdditionDecision & { recordId: string | null } {
    const outcome = input.candidate?.execution.outcome ?? 'no-answer';
    const decision = decideAddition(this.options.addition, { outcome }, input.evaluation, this.options.mode ?? 'editor');
    if (!decision.add || !input.candidate || !decision.status) {
      return { ...decision, add: false, status: null, recordId: null, reason: input.candidate ? decision.reason : 'no candidate record' };
    }
    const status = decision.status;
    const c = input.candidate;
    const id = c.id ?? randomUUID();
    const record: NewRecordInput = {
      ...c,
      id,
      status,
      provenance: c.provenance ?? 'agent',
      createdTask: input.taskIndex,
      execution: {
        ...c.execution,
        inputSimilarity: c.execution.inputSimilarity ?? similarity.inputSimilarity,
        outputSimilarity: c.execution.outputSimilarity ?? similarity.outputSimilarity,
      },
    };
    this.mutate(() =>
      this.store.add([record], {
        trigger: 'agent',
        reason: decision.reason,
        returnRecords: false,
        ...(input.auditEvidence ? { evidence: { [id]: input.auditEvidence } } : {}),
        ...(input.embedding ? { embeddings: [input.embedding], embedderId: input.embedderId } : {}),
      }),
    );
    if (status === 'active' && this.activeCount !== null) this.activeCount++;
    return { ...decision, recordId: id };
  }

  private runFiring(firing: RuleFiring, taskIndex: number): DeletionRun {
    const policy = firing.operation.slice('delete:'.length) as DeletionPolicyName;
    const params: DeletionParams = { ...this.options.deletionParams, ...(firing.recordIds && policy === 'history' ? { recordIds: firing.recordIds } : {}) };
    const deleted: string[] = [];
    const skipped: string[] = [];
    for (let batch = 0; batch < MAX_BATCHES; batch++) {
      const plan = planDeletion(this.store.db, policy, taskIndex, params);
      const result = this.mutate(() => applyDeletionPlan(this.store, plan, firing.trigger));
      deleted.push(...result.deleted);
      skipped.push(...result.skipped);
      if (this.activeCount !== null) this.activeCount -= result.deleted.length;
      if (!plan.truncated || result.deleted.length === 0) break;
    }
    this.lastRunByRule[firing.ruleId] = taskIndex;
    if (deleted.length > 0) this.logger.info(`${firing.trigger} (${firing.reason}): ${policy} deletion removed ${deleted.length} record(s) at task ${taskIndex}`);
    return { ruleId: firing.ruleId, operation: firing.operation, trigger: firing.trigger, policy, recordIds: deleted, skipped };
  }

  private countActive(): number {
    if (this.activeCount === null) {
      this.activeCount = (this.statement('countActive').get() as { n: number }).n;
    }
    return this.activeCount;
  }

  private utilityOf(recordIds: string[]): UtilityUpdate[] {
    if (recordIds.length === 0) return [];
    const rows = this.statement('utilityOf').all(JSON.stringify(recordIds)) as { id: string; utility_sum: number; utility_count: number }[];
    return rows.map((r) => ({ recordId: r.id, evaluatedCount: r.utility_count, meanUtility: r.utility_count > 0 ? r.utility_sum / r.utility_count : null }));
  }

  private statement(name: keyof typeof SQL): Statement {
    let statement = this.statements.get(name);
    if (!statement) {
      statement = this.store.db.prepare(SQL[name]);
      this.statements.set(name, statement);
    }
    return statement;
  }

  /** Runs a store change of our own without invalidating the cached active count. */
  private mutate<T>(fn: () => T): T {
    const before = this.selfChange;
    this.selfChange = true;
    try {
      return fn();
    } catch (error) {
      this.activeCount = null;
      throw error;
    } finally {
      this.selfChange = before;
    }
  }
}

function parseLastRun(text: string | undefined): Record<string, number> {
  if (!text) return {};
  try {
    const value = JSON.parse(text) as unknown;
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value as Record<string, unknown>).filter(([, v]) => typeof v === 'number')) as Record<string, number>;
    }
  } catch {
    // A corrupt value only resets the schedule.
  }
  return {};
}
