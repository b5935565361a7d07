/**
 * The memory manager of the app (addition, deletion rules, user operations on
 * records) built from the current settings, rebuilt when settings apply (between
 * tasks). Also turns a human verdict on a pending record into the strict Φ of
 * the task that produced it.
 */
import { Disposable } from '../lifecycle';
import type { Logger } from '../logger';
import type { MemoryStore } from '../memory/sqlite/store';
import { MemoryManager } from '../policy/memory-manager';
import { resolveDeletionReview } from '../policy/names';
import { reviewQueries, type ProposalRow } from '../memory/sqlite/queries/review';
import type { ConfirmedDeletion } from '../policy/deletion-review';
import type { PolicyDeletionPlan } from '../policy/deletion/types';
import { evaluateHumanVerdict } from '../policy/utility';
import type { Settings } from '../settings';
import { codeSimilarity } from '../similarity/code';
import type { SettingsSession } from './settings-session';
import type { DeletionPlan, DeletionPolicyName, UserDeletion } from './types';

/** The evaluator of a human verdict (approve → Φ 1, reject → Φ 0). */
const HUMAN_EVALUATOR = evaluateHumanVerdict(null).evaluator;

function createManager(store: MemoryStore, settings: Settings, logger: Logger): MemoryManager {
  const d = settings.deletion;
  const beta = settings.addition.policy === 'coarse' ? d.historyBetaCoarse : d.historyBetaStrict;
  return new MemoryManager(store, {
    addition: settings.addition.policy,
    mode: 'editor',
    mergeIdentical: true,
    deletion: settings.capacity > 0 && d.automatic === 'none' ? 'capacity' : d.automatic,
    review: resolveDeletionReview(d.review, settings.addition.policy),
    proposeLargeDeletions: true,
    deletionParams: {
      period: d.period,
      alpha: d.alpha,
      minRetrievals: d.historyMinRetrievals,
      beta,
      threshold: d.forgettingThreshold,
      protectSeeds: d.protectSeeds,
      minActiveRecords: d.minActiveRecords,
      periodicBounds: d.periodicBounds,
      historyThreshold: d.historyThreshold,
      historyPerTask: d.historyPerTask,
      periodicGuard: d.periodicGuard,
      capacityRule: d.capacityRule,
      ...(settings.capacity > 0 ? { capacity: settings.capacity } : {}),
    },
    periodicWindow: d.periodicWindow,
    attribution: d.attribution,
    followThreshold: d.followThreshold,
    codeSimilarity: (a, b, lang) => codeSimilarity(a, b, lang),
    logger,
  });
}

export class MemoryPolicies extends Disposable {
  private current: MemoryManager;
  private readonly plans = new WeakMap<DeletionPlan, PolicyDeletionPlan>();

  constructor(readonly store: MemoryStore, private readonly session: SettingsSession, logger: Logger) {
    super();
    this.current = createManager(store, session.settings, logger);
    this._register({ dispose: () => this.current.dispose() });
    this._register(
      session.onDidApply(({ settings }) => {
        this.current.dispose();
        this.current = createManager(store, settings, logger);
      }),
    );
  }

  /** The manager for the task about to run (fixed for that task: rebuilt only between tasks). */
  get manager(): MemoryManager {
    return this.current;
  }

  /**
   * pending → active, and the approval is the strict Φ of the record's task (one transaction).
   * Approving a stale active record (its program fails on the data) clears the stale mark.
   */
  approve(ids: string[]): void {
    const stale = reviewQueries(this.store).staleIds();
    const restale = ids.filter((id) => stale.has(id) && this.store.get(id)?.status === 'active');
    if (restale.length > 0) reviewQueries(this.store).clearStale(restale);
    if (restale.length === ids.length) return;
    ids = ids.filter((id) => !restale.includes(id));
    this.store.atomically(() => {
      this.current.approve(ids);
      this.recordHumanVerdict(ids, 'approve');
    });
  }

  /** pending → deleted, and the rejection is the strict Φ of the record's task (one transaction). */
  reject(ids: string[]): void {
    this.store.atomically(() => {
      this.current.reject(ids);
      this.recordHumanVerdict(ids, 'reject');
    });
  }

  /**
   * Undo of an approval: active → pending again, and the Φ the approval gave the task
   * (credited to the records it was shown) is taken back, in one transaction, so the
   * history rule no longer sees a verdict the user withdrew.
   */
  unapprove(ids: string[]): void {
    this.store.atomically(() => {
      this.store.transition(ids, 'unapprove', { trigger: 'user', reason: 'approval undone' });
      this.withdrawHumanVerdict(ids);
    });
  }

  /** Undo of a rejection: deleted → pending again, and the rejection's Φ is taken back (one transaction). */
  unreject(ids: string[]): void {
    this.store.atomically(() => {
      this.current.restore(ids, 'rejection undone');
      this.withdrawHumanVerdict(ids);
    });
  }

  restore(ids: string[]): void {
    this.current.restore(ids);
  }

  purge(ids: string[]): void {
    this.current.purge(ids);
  }

  /** The user's delete, within the memory floor (see MemoryManager.deleteRecords). */
  deleteRecords(ids: string[], reason: string): UserDeletion {
    return this.current.deleteRecords(ids, reason);
  }

  /**
   * The human verdict on a pending record is the strict Φ of the task that produced it; a task a
   * gold answer already gave Φ keeps it (its demonstrations were credited then), the decision is
   * logged beside it (`log.decision`, read by humanDecision).
   */
  private recordHumanVerdict(ids: string[], verdict: 'approve' | 'reject'): void {
    const evaluation = evaluateHumanVerdict(verdict);
    for (const id of ids) {
      const taskIndex = this.store.get(id)?.metadata.taskIndex;
      const task = typeof taskIndex === 'number' ? this.current.tasks.get(taskIndex) : undefined;
      if (!task) continue;
      if (task.utility == null) this.current.tasks.setUtility(task.taskIndex, evaluation.utility!, evaluation.evaluator);
      else this.current.tasks.finish(task.taskIndex, { log: { ...task.log, decision: verdict === 'approve' ? 'approved' : 'rejected' } });
    }
  }

  /**
   * Takes back the human verdict of the records' tasks. recordHumanVerdict writes only on a
   * task without Φ (whose evaluator is then unset), so the state before it is: no Φ, no evaluator.
   */
  private withdrawHumanVerdict(ids: string[]): void {
    for (const id of ids) {
      const taskIndex = this.store.get(id)?.metadata.taskIndex;
      if (typeof taskIndex !== 'number') continue;
      const task = this.current.tasks.get(taskIndex);
      if (task?.utility != null && task.evaluator === HUMAN_EVALUATOR) this.current.tasks.withdrawUtility(taskIndex, null);
      else if (task && 'decision' in task.log) {
        const { decision: _withdrawn, ...log } = task.log;
        this.current.tasks.finish(taskIndex, { log });
      }
    }
  }

  /** The data fingerprint a record's program just ran against (a fresh, clean run). */
  recordFingerprint(id: string, fingerprint: string): void {
    reviewQueries(this.store).setFingerprint(id, fingerprint);
  }

  /** Deletions an automatic rule proposed (review `propose`), awaiting the user. */
  proposals(): ProposalRow[] {
    return reviewQueries(this.store).proposals();
  }

  confirmProposals(ids: string[]): ConfirmedDeletion {
    return this.current.confirmProposals(ids);
  }

  keepProposals(ids: string[]): string[] {
    return this.current.keepProposals(ids);
  }

  planDeletion(policy: DeletionPolicyName): DeletionPlan {
    const plan = this.current.plan(policy, this.planParams(policy));
    const withQuestions: DeletionPlan = { ...plan, candidates: plan.candidates.map((c) => ({ ...c, question: c.question || this.store.get(c.recordId)?.question || '' })) };
    this.plans.set(withQuestions, plan);
    return withQuestions;
  }

  /** A capacity plan without a configured capacity previews against the current size. */
  private planParams(policy: DeletionPolicyName): { capacity?: number } {
    return policy === 'capacity' && this.session.settings.capacity === 0 ? { capacity: this.store.counts().active } : {};
  }

  applyDeletion(plan: DeletionPlan): number {
    // A plan that came back through a webview/command is matched by ids against a fresh dry run.
    const known = this.plans.get(plan);
    const fresh = known ?? this.current.plan(plan.policy, this.planParams(plan.policy));
    const wanted = new Set(plan.candidates.map((c) => c.recordId));
    const filtered: PolicyDeletionPlan = { ...fresh, candidates: fresh.candidates.filter((c) => wanted.has(c.recordId)) };
    return this.current.apply(filtered, 'user').deleted.length;
  }
}
