import { randomUUID } from 'node:crypto';
import { AgentMemoryError } from '../errors';
import type { Disposable } from '../events';
import { Logger, nullLogger, tagged } from '../logger';
import { DeletionQueries, deletionQueries } from '../memory/sqlite/queries/deletion-candidates';
import type { MemoryStore } from '../memory/sqlite/store';
import { TaskLog } from '../memory/sqlite/task-log';
import type { DemonstrationAttributionInput } from '../memory/demonstration';
import type { Language, NewRecordInput, Trigger } from '../memory/types';
import { findIdentical, mergeIdentical } from '../memory/dedup';
import { approvePending, decideAddition, rejectPending } from './addition';
import { applyDeletionPlan, deleteWithinFloor, DeletionParams, floorKeptMessage, planDeletion, purgeRecords, restoreRecords } from './deletion';
import { followSimilarity } from './follows';
import { capacityRequiredError, DEFAULT_FOLLOW_THRESHOLD, DEFAULT_MIN_ACTIVE_RECORDS, PolicyDeletionPlan } from './deletion/types';
import { DeletionPolicyName, policyOf } from './names';
import { reviewQueries } from '../memory/sqlite/queries/review';
import { confirmProposals, ConfirmedDeletion, isLargeDeletion, keepProposals, LARGE_DELETION_SHARE, proposePlan, withoutExempt } from './deletion-review';
import { DEFAULT_PERIOD } from './deletion/types';
import { TaskSimilarity, taskSimilarity } from './metrics';
import { defaultRules, evaluateRules, RuleFiring, RuleSpec, RuleSpecSchema, UtilityUpdate } from './rules';
import type { AfterTaskInput, AfterTaskResult, DeletionRun, MemoryManagerOptions, TaskAttribution, UserDeletion } from './memory-manager-types';

export type { AfterTaskInput, AfterTaskResult, DeletionRun, MemoryManagerOptions, TaskAttribution, TaskCredit, UserDeletion } from './memory-manager-types';

const LAST_RUN_META = 'policy.last_run_by_rule';
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
  /** The history rule uses the relative threshold (the rules need the running accuracy). */
  private readonly relative: boolean;
  private readonly queries: DeletionQueries;

  constructor(readonly store: MemoryStore, readonly options: MemoryManagerOptions) {
    this.tasks = new TaskLog(store);
    this.queries = deletionQueries(store);
    this.logger = tagged(options.logger ?? nullLogger, 'policy');
    const p = options.deletionParams ?? {};
    this.rules = (options.rules ?? defaultRules(options.deletion ?? 'none', { ...p, periodicWindow: options.periodicWindow, forgettingEvery: options.forgettingEvery })).map((r) => RuleSpecSchema.parse(r));
    if (this.rules.some((r) => r.operation === 'delete:capacity') && p.capacity === undefined) {
      throw capacityRequiredError();
    }
    if ((options.attribution === 'followed' || options.attribution === 'top-output') && !options.codeSimilarity) {
      throw new AgentMemoryError('CONFIG', `The '${options.attribution}' attribution needs a code similarity function: pass codeSimilarity, or set agentMemory.deletion.attribution to 'shown'.`);
    }
    this.needsCount = this.rules.some((r) => r.kind === 'capacity-exceeded');
    this.needsUtility = this.rules.some((r) => r.kind === 'utility-drop');
    this.relative = this.rules.some((r) => r.kind === 'utility-drop' && r.threshold === 'relative');
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
    if (!this.queries.taskExists(input.taskIndex)) {
      throw new AgentMemoryError('NOT_FOUND', `No task ${input.taskIndex}: begin it with TaskLog.begin before calling afterTask.`);
    }
    // One transaction for the whole step (one commit instead of four or more); the
    // store's events fire once it has committed, still counted as our own changes.
    return this.mutate(() => this.store.atomically(() => this.step(input)));
  }

  private step(input: AfterTaskInput): AfterTaskResult {
    const { taskIndex, evaluation } = input;
    const utility = evaluation?.utility ?? null;
    const language = input.language ?? input.candidate?.execution.language ?? 'python';
    const finalCode = input.finalCode !== undefined ? input.finalCode : (input.candidate?.execution.code ?? null);
    const attribution = this.attribute(input, finalCode, language);
    if (evaluation && utility !== null) this.tasks.setUtility(taskIndex, utility, evaluation.evaluator);

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

    // A record this task retrieved has new evidence: a deletion proposed on the old one is withdrawn.
    if (input.retrieved.length > 0) {
      const withdrawn = reviewQueries(this.store).withdrawStale();
      if (withdrawn.length > 0) this.logger.info(`task ${taskIndex}: ${withdrawn.length} proposed deletion(s) withdrawn: their records were retrieved since they were proposed`);
    }
    // Read once per task: the rules and the plans of their firings (same transaction, no Φ written in between) use it.
    const runningAccuracy = this.relative && this.needsUtility && utility !== null ? this.queries.runningAccuracy(taskIndex) : undefined;
    const firings = evaluateRules(this.rules, {
      taskIndex,
      activeCount: this.needsCount ? this.countActive() : 0,
      capacity: this.options.deletionParams?.capacity ?? null,
      lastRunByRule: this.lastRunByRule,
      commands: input.commands,
      utilityUpdates: this.needsUtility && utility !== null ? this.utilityOf(attribution.credited) : [],
      ...(runningAccuracy !== undefined ? { runningAccuracy } : {}),
    });
    const historyDeleted = { count: 0 };
    // The planners' own fallback for no evaluated task is 0, as the rules'.
    const planned = runningAccuracy !== undefined && this.options.deletionParams?.runningAccuracy === undefined ? { runningAccuracy: runningAccuracy ?? 0 } : {};
    const deletions = firings.map((f) => this.runFiring(f, taskIndex, historyDeleted, planned));
    if (firings.length > 0) this.store.setMeta(LAST_RUN_META, JSON.stringify(this.lastRunByRule));
    return { taskIndex, utility, evaluator: evaluation?.evaluator ?? null, similarity, attribution, addition, firings, deletions };
  }

  /**
   * Marks on the retrieval log which records were shown and (attributions
   * `followed`, `top-output`) followed, before Φ is written: Φ goes only to the credited ones.
   * `followed`: code similarity(record's code, final code) ≥ followThreshold; with no
   * final code nothing was followed. `top-output`: only the shown record with the highest
   * output similarity (the paper's §5.3 measure), ties to the higher-ranked one.
   * `input.credit` (the memory tools) overrides the mode for this task: see TaskCredit.
   */
  private attribute(input: AfterTaskInput, finalCode: string | null, language: Language): TaskAttribution {
    // A caller's credit (the memory tools) replaces the manager's attribution for this task only.
    const mode = input.credit === undefined ? (this.options.attribution ?? 'shown') : 'followed';
    const used = typeof input.credit === 'object' ? new Set(input.credit.used) : null;
    const threshold = this.options.followThreshold ?? DEFAULT_FOLLOW_THRESHOLD;
    const similarity = this.options.codeSimilarity;
    const similarityTo = (d: DemonstrationAttributionInput): number =>
      finalCode !== null && d.code !== undefined && similarity ? followSimilarity(similarity, d.code, finalCode, d.language ?? language) : 0;
    // `top-output`: the first shown record with the highest output similarity (ties → the higher-ranked one).
    let top: string | null = null;
    if (mode === 'top-output') {
      let best = -Infinity;
      for (const d of input.retrieved) {
        if (!d.shown) continue;
        const sim = similarityTo(d);
        if (sim > best) [best, top] = [sim, d.recordId];
      }
    }
    const marks = input.retrieved.map((d) => {
      if (!d.shown || mode === 'shown') return { recordId: d.recordId, shown: d.shown, followed: null };
      const followed = used ? used.has(d.recordId) : mode === 'top-output' ? d.recordId === top : similarityTo(d) >= threshold;
      return { recordId: d.recordId, shown: true, followed };
    });
    this.tasks.markAttribution(input.taskIndex, marks);
    return {
      attribution: mode,
      shown: marks.filter((m) => m.shown).map((m) => m.recordId),
      credited: marks.filter((m) => m.shown && m.followed !== false).map((m) => m.recordId),
      shownNotFollowed: marks.filter((m) => m.shown && m.followed === false).map((m) => m.recordId),
    };
  }

  /** Dry run of a deletion policy at the current task (nothing changes). */
  plan(policy: DeletionPolicyName, params: DeletionParams = {}): PolicyDeletionPlan {
    if (policy === 'capacity' && (params.capacity ?? this.options.deletionParams?.capacity) === undefined) {
      throw capacityRequiredError();
    }
    return planDeletion(this.store, policy, this.tasks.currentIndex, { ...this.options.deletionParams, ...params });
  }

  /** Applies a (previewed) plan as soft deletes with audit entries; the memory floor holds. */
  apply(plan: PolicyDeletionPlan, trigger: Trigger = 'user'): { deleted: string[]; skipped: string[]; floorKept: string[] } {
    return applyDeletionPlan(this.store, plan, trigger, { minActiveRecords: this.minActiveRecords });
  }

  private get minActiveRecords(): number {
    return this.options.deletionParams?.minActiveRecords ?? DEFAULT_MIN_ACTIVE_RECORDS;
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

  /**
   * Soft-deletes records the user chose (pending or active; restorable), within the
   * memory floor like every rule: active records beyond the floor are kept, and the
   * result says which and why. Unknown or already deleted ids fail the whole batch.
   *
   * @example
   * const r = manager.deleteRecords(['a', 'b'], 'deleted by the user');
   * if (r.message) showWarning(r.message); // the floor kept r.kept
   */
  deleteRecords(ids: readonly string[], reason: string, trigger: Trigger = 'user'): UserDeletion {
    const minActiveRecords = this.minActiveRecords;
    const result = deleteWithinFloor(this.store, ids, { trigger, reason, minActiveRecords, inactive: 'fail' });
    if (result.floorKept.length === 0) return { deleted: result.deleted, kept: [], message: null };
    const kept = result.floorKept.map((id) => ({ id, question: this.store.get(id)?.question ?? '' }));
    const message = floorKeptMessage(kept, minActiveRecords, result.deleted.length);
    this.logger.info(`${trigger}: ${message}`);
    return { deleted: result.deleted, kept, message };
  }

  /** Confirms proposed deletions (soft delete within the memory floor; audited with the rule's evidence). */
  confirmProposals(ids: readonly string[]): ConfirmedDeletion {
    return confirmProposals(this.store, ids, this.minActiveRecords);
  }

  /** Keeps proposed records: exempt from deletion rules for one period (agentMemory.deletion.period); audited. */
  keepProposals(ids: readonly string[]): string[] {
    return keepProposals(this.store, ids, this.tasks.currentIndex, this.options.deletionParams?.period ?? DEFAULT_PERIOD);
  }

  private add(input: AfterTaskInput, similarity: TaskSimilarity): AfterTaskResult['addition'] {
    const outcome = input.candidate?.execution.outcome ?? 'no-answer';
    const decision = decideAddition(this.options.addition, { outcome }, input.humanApproves ? null : input.evaluation, this.options.mode ?? 'editor');
    if (!decision.add || !input.candidate || !decision.status) {
      return { ...decision, add: false, status: null, recordId: null, reason: input.candidate ? decision.reason : 'no candidate record' };
    }
    const status = decision.status;
    const c = input.candidate;
    // The same question answered with the same code again: one record with a count, not two.
    const twin = this.options.mergeIdentical && !c.id ? findIdentical(this.store, c.question, c.execution.code) : undefined;
    if (twin) {
      const n = mergeIdentical(this.store, twin.id, { trigger: 'agent', reason: decision.reason, taskIndex: input.taskIndex });
      return { ...decision, status: twin.status === 'active' || twin.status === 'pending' ? twin.status : status, recordId: twin.id, merged: true, reason: `${decision.reason}; merged into an identical ${twin.status} record (×${n})` };
    }
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

  /**
   * Runs one firing in plan/apply batches. With `historyPerTask: 'worst'` the history
   * condition deletes at most one record per task across all firings (the paper's code):
   * `historyDeleted` counts them, a later history firing is skipped and a later combined
   * batch runs with its history part off.
   */
  private runFiring(firing: RuleFiring, taskIndex: number, historyDeleted: { count: number }, planned: DeletionParams = {}): DeletionRun {
    const policy: DeletionPolicyName = policyOf(firing.operation);
    const params: DeletionParams = { ...this.options.deletionParams, ...planned, ...(firing.recordIds && policy === 'history' ? { recordIds: firing.recordIds } : {}) };
    const onePerTask = params.historyPerTask === 'worst';
    const historyOffNow = () => (onePerTask && historyDeleted.count > 0 && policy === 'combined' ? { minRetrievals: Number.MAX_SAFE_INTEGER } : {});
    if (onePerTask && historyDeleted.count > 0 && policy === 'history') return this.noDeletion(firing, policy, taskIndex);
    const firstPlan = withoutExempt(this.store, planDeletion(this.store, policy, taskIndex, { ...params, ...historyOffNow() }));
    // In the app an automatic rule never deletes more than 25 % of the active memory on its own:
    // such a sweep is proposed instead, so the user is asked (with the count) before anything goes.
    const large = this.options.proposeLargeDeletions === true && firing.trigger !== 'user' && isLargeDeletion(firstPlan.candidates.length, this.countActive());
    if (this.options.review === 'propose' || large) {
      // Nothing is deleted: the candidates wait under "Proposed deletions" for the user.
      const proposed = proposePlan(this.store, firstPlan, firing.trigger);
      this.lastRunByRule[firing.ruleId] = taskIndex;
      const why = large && this.options.review !== 'propose' ? ` (more than ${Math.round(LARGE_DELETION_SHARE * 100)} % of ${this.countActive()} active records: proposed instead of deleted)` : '';
      if (proposed.length > 0) this.logger.info(`${firing.trigger} (${firing.reason}): ${policy} deletion proposed ${proposed.length} record(s) at task ${taskIndex}${why}; they await your review`);
      return { ruleId: firing.ruleId, operation: firing.operation, trigger: firing.trigger, policy, recordIds: [], skipped: [], floorKept: firstPlan.floor?.kept.map((c) => c.recordId) ?? [], proposed, ...(why ? { largeProposed: true } : {}) };
    }
    const deleted: string[] = [];
    const skipped: string[] = [];
    const floorKept: string[] = [];
    for (let batch = 0; batch < MAX_BATCHES; batch++) {
      if (onePerTask && historyDeleted.count > 0 && policy === 'history') break;
      const plan = batch === 0 ? firstPlan : withoutExempt(this.store, planDeletion(this.store, policy, taskIndex, { ...params, ...historyOffNow() }));
      const result = this.mutate(() => applyDeletionPlan(this.store, plan, firing.trigger, { minActiveRecords: this.minActiveRecords }));
      deleted.push(...result.deleted);
      skipped.push(...result.skipped);
      floorKept.push(...(plan.floor?.kept.map((c) => c.recordId) ?? []), ...result.floorKept);
      const byHistory = new Set(plan.candidates.filter((c) => c.rule === 'history').map((c) => c.recordId));
      historyDeleted.count += result.deleted.filter((id) => byHistory.has(id)).length;
      if (this.activeCount !== null) this.activeCount -= result.deleted.length;
      if (!plan.truncated || result.deleted.length === 0) break;
    }
    this.lastRunByRule[firing.ruleId] = taskIndex;
    if (deleted.length > 0) this.logger.info(`${firing.trigger} (${firing.reason}): ${policy} deletion removed ${deleted.length} record(s) at task ${taskIndex}`);
    if (floorKept.length > 0) this.logger.info(`${firing.trigger}: the memory floor (minActiveRecords = ${this.minActiveRecords}) kept ${floorKept.length} record(s) at task ${taskIndex}`);
    return { ruleId: firing.ruleId, operation: firing.operation, trigger: firing.trigger, policy, recordIds: deleted, skipped, floorKept };
  }

  /** A firing that deletes nothing (history already deleted this task's one record under `historyPerTask: worst`). */
  private noDeletion(firing: RuleFiring, policy: DeletionPolicyName, taskIndex: number): DeletionRun {
    this.lastRunByRule[firing.ruleId] = taskIndex;
    return { ruleId: firing.ruleId, operation: firing.operation, trigger: firing.trigger, policy, recordIds: [], skipped: [], floorKept: [] };
  }

  private countActive(): number {
    if (this.activeCount === null) {
      this.activeCount = this.queries.countActive();
    }
    return this.activeCount;
  }

  private utilityOf(recordIds: string[]): UtilityUpdate[] {
    return this.queries.utilityOf(recordIds);
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
