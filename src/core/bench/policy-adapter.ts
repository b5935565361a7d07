/**
 * The benchmark's one switch point to the memory policies (src/core/policy):
 * utility evaluation Φ, the addition decision, and the deletion schedule.
 * Everything policy-specific the harness does goes through here, so moving to
 * the MemoryManager facade later changes this file only.
 *
 * Schedule (documented choice, SPEC §3):
 * - `periodic`: fires every `period` tasks (t % period = 0) over the window
 *   (t − period, t]; only records at least one period old; α = 0.
 * - `history`: fires after every task: records with more than n = 5 evaluated
 *   retrievals and mean Φ ≤ β (0.7 strict, 0.3 coarse).
 * - `combined`: history after every task, and at every period boundary the
 *   combined plan (periodic OR history, the paper's code behaviour).
 * - `forgetting`: after every task (retention below the threshold).
 * - `--capacity N` (any deletion): after every task, periodic then lowest mean Φ
 *   until at most N active records remain (paper §6.2).
 * Φ for deletion is the addition policy's evaluator: coarse → the coarse
 * evaluator; fixed / all / strict → the ground truth (strict).
 */
import { z } from 'zod';
import type { ChatModel } from '../agent/model/types';
import type { MemoryStore } from '../memory/store';
import { AdditionPolicyName, decideAddition, AdditionDecision } from '../policy/addition';
import {
  applyDeletionPlan,
  DEFAULT_ALPHA,
  DEFAULT_BETA_COARSE,
  DEFAULT_BETA_STRICT,
  DEFAULT_MIN_RETRIEVALS,
  planDeletion,
  PolicyDeletionPlan,
} from '../policy/deletion';
import { judgeTask } from '../policy/llm-judge';
import { Evaluation, evaluateGroundTruth, evaluateTermination } from '../policy/utility';

export const BenchDeletionSchema = z.enum(['none', 'periodic', 'history', 'combined', 'forgetting']);
export type BenchDeletion = z.infer<typeof BenchDeletionSchema>;

export interface PolicySettings {
  addition: AdditionPolicyName;
  deletion: BenchDeletion;
  /** Periodic window in tasks. */
  period: number;
  alpha?: number;
  minRetrievals?: number;
  /** Defaults to 0.7 (strict Φ) or 0.3 (coarse Φ). */
  beta?: number;
  capacity?: number;
}

export interface TaskOutcome {
  question: string;
  code: string;
  language: 'python' | 'javascript';
  answer: unknown;
  outcome: 'success' | 'error' | 'timeout' | 'no-answer';
  outputExcerpt: string;
  groundTruth: unknown;
}

export interface TaskEvaluations {
  /** Ground-truth verdict: what accuracy counts. */
  strict: Evaluation;
  /** The Φ written to the retrieval log and used by the addition and history rules. */
  utility: Evaluation;
  /** Milliseconds spent in a model (the LLM judge), excluded from overhead. */
  modelMs: number;
  promptTokens: number;
  completionTokens: number;
}

function nonEmpty(answer: unknown): boolean {
  if (answer === null || answer === undefined) return false;
  if (Array.isArray(answer)) return answer.length > 0 && !(answer.length === 1 && Array.isArray(answer[0]) && answer[0].length === 0);
  return !(typeof answer === 'string' && answer.trim() === '');
}

/**
 * Φ of one task: strict (ground truth) always; coarse = the agent's own
 * termination signal (outcome success with a non-empty answer) for the
 * reuse model, or the LLM judge when `judge` is given.
 */
export async function evaluateTask(settings: Pick<PolicySettings, 'addition'>, task: TaskOutcome, judge?: ChatModel, signal?: AbortSignal): Promise<TaskEvaluations> {
  const strict = evaluateGroundTruth({ question: task.question, code: task.code, answer: task.answer, outcome: task.outcome, groundTruth: task.groundTruth });
  if (settings.addition !== 'coarse') return { strict, utility: strict, modelMs: 0, promptTokens: 0, completionTokens: 0 };
  if (!judge) {
    const completed = task.outcome === 'success' && nonEmpty(task.answer);
    const coarse = evaluateTermination({ completed, outcome: task.outcome, answer: completed ? task.answer : null });
    return { strict, utility: coarse, modelMs: 0, promptTokens: 0, completionTokens: 0 };
  }
  const t0 = performance.now();
  const verdict = await judgeTask(judge, { question: task.question, code: task.code, language: task.language, outcome: task.outcome, answer: task.answer, outputExcerpt: task.outputExcerpt }, { signal });
  return {
    strict,
    utility: { utility: verdict.utility, evaluator: 'coarse:judge', reason: verdict.reason || (verdict.verdict ? 'judge said yes' : 'judge said no') },
    modelMs: performance.now() - t0,
    promptTokens: verdict.usage.promptTokens,
    completionTokens: verdict.usage.completionTokens,
  };
}

/** Addition decision in benchmark mode (strict = add only when the ground truth says correct). */
export function additionDecision(settings: Pick<PolicySettings, 'addition'>, outcome: TaskOutcome['outcome'], evaluations: TaskEvaluations): AdditionDecision {
  return decideAddition(settings.addition, { outcome }, evaluations.utility, 'benchmark');
}

/** History-rule β for the addition policy's evaluator. */
export function betaFor(settings: Pick<PolicySettings, 'addition' | 'beta'>): number {
  return settings.beta ?? (settings.addition === 'coarse' ? DEFAULT_BETA_COARSE : DEFAULT_BETA_STRICT);
}

export interface DeletionStep {
  policy: string;
  deleted: string[];
  rules: Record<string, number>;
}

/** The plans due after task `taskIndex` (1-based), in order. Nothing is changed. */
export function plansDue(store: MemoryStore, settings: PolicySettings, taskIndex: number): PolicyDeletionPlan[] {
  const params = { period: settings.period, alpha: settings.alpha ?? DEFAULT_ALPHA, minRetrievals: settings.minRetrievals ?? DEFAULT_MIN_RETRIEVALS, beta: betaFor(settings) };
  const boundary = taskIndex > 0 && taskIndex % settings.period === 0;
  const plans: PolicyDeletionPlan[] = [];
  switch (settings.deletion) {
    case 'none':
      break;
    case 'periodic':
      if (boundary) plans.push(planDeletion(store.db, 'periodic', taskIndex, params));
      break;
    case 'history':
      plans.push(planDeletion(store.db, 'history', taskIndex, params));
      break;
    case 'combined':
      plans.push(planDeletion(store.db, boundary ? 'combined' : 'history', taskIndex, params));
      break;
    case 'forgetting':
      plans.push(planDeletion(store.db, 'forgetting', taskIndex, {}));
      break;
  }
  return plans;
}

/**
 * Runs the deletion schedule after task `taskIndex`: plans and applies
 * (soft delete with audit evidence) each due policy, then the capacity rule.
 *
 * @example
 * const steps = runDeletion(store, { addition: 'strict', deletion: 'combined', period: 29 }, 58);
 */
export function runDeletion(store: MemoryStore, settings: PolicySettings, taskIndex: number): DeletionStep[] {
  const steps: DeletionStep[] = [];
  const apply = (plan: PolicyDeletionPlan): void => {
    if (plan.candidates.length === 0) return;
    const { deleted } = applyDeletionPlan(store, plan, `rule:bench-${plan.policy}`);
    const rules: Record<string, number> = {};
    for (const c of plan.candidates) if (deleted.includes(c.recordId)) rules[c.rule] = (rules[c.rule] ?? 0) + 1;
    if (deleted.length > 0) steps.push({ policy: plan.policy, deleted, rules });
  };
  for (const plan of plansDue(store, settings, taskIndex)) apply(plan);
  if (settings.capacity !== undefined) {
    apply(planDeletion(store.db, 'capacity', taskIndex, { capacity: settings.capacity, period: settings.period, alpha: settings.alpha ?? DEFAULT_ALPHA }));
  }
  return steps;
}
