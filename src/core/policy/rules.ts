import { z } from 'zod';
import type { Trigger } from '../memory/types';
import { DEFAULT_BETA_STRICT, DEFAULT_MIN_RETRIEVALS, DEFAULT_PERIOD, UTILITY_EPSILON } from './deletion/types';
import { belowRunningAccuracy, RELATIVE_Z } from './deletion/relative';
import { DeletionPolicyName, DeletionSetting, DeletionThreshold, DeletionThresholdSchema, HistoryPerTask, HistoryPerTaskSchema, operationOf, PeriodicWindow, PolicyOperation, PolicyOperationSchema, RULE_ID } from './names';

export type { DeletionSetting, PolicyOperation };
export { PolicyOperationSchema };

/**
 * The deterministic rule engine (SPEC §6, inference-only AgeMem design): decides
 * *when* memory operations fire. Pure: it reads a small state snapshot and
 * returns firings; no database, no LLM, no clock.
 *
 * Rule kinds:
 * - `every-n-tasks`: fires when taskIndex − lastRun ≥ everyTasks (lastRun = 0 if
 *   never run), e.g. periodic/combined deletion every `period` tasks.
 * - `capacity-exceeded`: fires when activeCount > capacity (the rule's own, or the snapshot's).
 * - `user-command`: fires when the snapshot carries the named command (trigger `user`).
 * - `utility-drop`: fires when a record credited in this task has at least
 *   `minRetrievals` evaluated retrievals and a mean utility ≤ beta (the history
 *   rule's condition, ≥ n as the paper's text and code), naming those records.
 *   With `threshold: 'relative'` the condition is the Wilson upper bound of the mean
 *   below the snapshot's running accuracy (deletion/relative.ts); with
 *   `perTask: 'worst'` it names only the worst record (lowest mean, then more
 *   evaluated retrievals), the paper's code's one deletion per task.
 */
const RuleId = z.string().regex(/^[a-z0-9][a-z0-9._-]*$/i, 'a rule id is letters, digits, dot, dash or underscore');

export const RuleSpecSchema = z.discriminatedUnion('kind', [
  z.object({ id: RuleId, kind: z.literal('every-n-tasks'), everyTasks: z.number().int().min(1), operation: PolicyOperationSchema }),
  z.object({ id: RuleId, kind: z.literal('capacity-exceeded'), capacity: z.number().int().min(0).optional(), operation: PolicyOperationSchema }),
  z.object({ id: RuleId, kind: z.literal('user-command'), command: z.string().min(1), operation: PolicyOperationSchema }),
  z.object({
    id: RuleId,
    kind: z.literal('utility-drop'),
    minRetrievals: z.number().int().min(0),
    beta: z.number().min(0).max(1),
    threshold: DeletionThresholdSchema.default('paper'),
    perTask: HistoryPerTaskSchema.default('all'),
    operation: PolicyOperationSchema,
  }),
]);
export type RuleSpec = z.output<typeof RuleSpecSchema>;
/** A rule as written by hand (the utility-drop rule's threshold and perTask may be left to their defaults). */
export type RuleSpecInput = z.input<typeof RuleSpecSchema>;

/** A record whose utility statistics changed in this task. */
export interface UtilityUpdate {
  recordId: string;
  meanUtility: number | null;
  evaluatedCount: number;
}

/** The small snapshot the rules are evaluated on. */
export interface RuleState {
  taskIndex: number;
  activeCount: number;
  capacity?: number | null;
  /** Task index at which each rule last ran (by rule id). */
  lastRunByRule: Readonly<Record<string, number>>;
  /** User commands issued since the last evaluation (e.g. 'delete:combined'). */
  commands?: readonly string[];
  utilityUpdates?: readonly UtilityUpdate[];
  /** The agent's running accuracy (mean Φ of the evaluated tasks so far), for the relative threshold. */
  runningAccuracy?: number | null;
}

export interface RuleFiring {
  ruleId: string;
  operation: PolicyOperation;
  trigger: Trigger;
  reason: string;
  /** Records the firing is about (utility-drop), when it names any. */
  recordIds?: string[];
}

/**
 * Evaluates every rule on the snapshot, in rule order.
 *
 * @example
 * evaluateRules([{ id: 'periodic-deletion', kind: 'every-n-tasks', everyTasks: 200, operation: 'delete:combined' }],
 *   { taskIndex: 200, activeCount: 950, lastRunByRule: {} });
 * // → [{ ruleId: 'periodic-deletion', operation: 'delete:combined', trigger: 'rule:periodic-deletion', reason: '200 tasks since task 0' }]
 */
export function evaluateRules(rules: readonly RuleSpecInput[], state: RuleState): RuleFiring[] {
  const firings: RuleFiring[] = [];
  for (const rule of rules) {
    const trigger: Trigger = `rule:${rule.id}`;
    switch (rule.kind) {
      case 'every-n-tasks': {
        const last = state.lastRunByRule[rule.id] ?? 0;
        if (state.taskIndex - last >= rule.everyTasks) firings.push({ ruleId: rule.id, operation: rule.operation, trigger, reason: `${state.taskIndex - last} tasks since task ${last}` });
        break;
      }
      case 'capacity-exceeded': {
        const cap = rule.capacity ?? state.capacity ?? null;
        if (cap !== null && state.activeCount > cap) firings.push({ ruleId: rule.id, operation: rule.operation, trigger, reason: `${state.activeCount} active records exceed the capacity of ${cap}` });
        break;
      }
      case 'user-command':
        if (state.commands?.includes(rule.command)) firings.push({ ruleId: rule.id, operation: rule.operation, trigger: 'user', reason: `user command ${rule.command}` });
        break;
      case 'utility-drop': {
        const low = lowUtility(rule, state);
        if (low.length > 0) {
          const condition = rule.threshold === 'relative' ? `a Wilson upper bound (z = ${RELATIVE_Z}) below the running accuracy ${(state.runningAccuracy ?? 0).toFixed(3)}` : `mean utility ≤ ${rule.beta}`;
          firings.push({ ruleId: rule.id, operation: rule.operation, trigger, reason: `${low.length} record(s) fell to ${condition} after at least ${rule.minRetrievals} retrievals`, recordIds: low.map((u) => u.recordId) });
        }
        break;
      }
    }
  }
  return firings;
}

/** The records a utility-drop rule names: those meeting its condition (all, or the worst one). */
function lowUtility(rule: Extract<RuleSpecInput, { kind: 'utility-drop' }>, state: RuleState): UtilityUpdate[] {
  const accuracy = state.runningAccuracy ?? 0;
  const low = (state.utilityUpdates ?? []).filter((u) => {
    if (u.meanUtility === null || u.evaluatedCount < rule.minRetrievals) return false;
    return rule.threshold === 'relative' ? belowRunningAccuracy(u.meanUtility * u.evaluatedCount, u.evaluatedCount, accuracy) : u.meanUtility <= rule.beta + UTILITY_EPSILON;
  });
  if (rule.perTask !== 'worst' || low.length <= 1) return low;
  return [low.reduce((w, u) => ((u.meanUtility ?? 0) < (w.meanUtility ?? 0) || (u.meanUtility === w.meanUtility && u.evaluatedCount > w.evaluatedCount) ? u : w))];
}

/** What the default rules are built from (the deletion settings). */
export interface DefaultRuleParams {
  period?: number;
  /** When the periodic rule runs (see names.ts PERIODIC_WINDOWS); default `sliding`. */
  periodicWindow?: PeriodicWindow;
  minRetrievals?: number;
  beta?: number;
  /** The history rule's threshold (default `paper`: mean ≤ β). */
  historyThreshold?: DeletionThreshold;
  /** History deletions per task (default `all`). */
  historyPerTask?: HistoryPerTask;
  capacity?: number | null;
  forgettingEvery?: number;
}

/**
 * The default rules for a deletion setting (the paper's schedule):
 * - periodic / combined: the periodic (combined) plan after every task with the
 *   `sliding` window (default), or every `period` tasks with the `fixed` one;
 * - history: checked after every task on the records it credited (utility-drop);
 * - capacity (paper §6.2): after every task, periodic deletion, then the single
 *   least-utility record if still over the cap (see deletion/capacity.ts);
 * - forgetting: every `forgettingEvery` tasks.
 * Every setting also answers the user command `delete:<policy>`.
 *
 * @example
 * defaultRules('combined', { period: 200 }); // periodic-deletion (every task), utility-drop, user-combined
 */
export function defaultRules(setting: DeletionSetting, params: DefaultRuleParams = {}): RuleSpec[] {
  const period = params.period ?? DEFAULT_PERIOD;
  const everyTasks = (params.periodicWindow ?? 'sliding') === 'sliding' ? 1 : period;
  const n = params.minRetrievals ?? DEFAULT_MIN_RETRIEVALS;
  const beta = params.beta ?? DEFAULT_BETA_STRICT;
  const drop: RuleSpec = { id: RULE_ID.utilityDrop, kind: 'utility-drop', minRetrievals: n, beta, threshold: params.historyThreshold ?? 'paper', perTask: params.historyPerTask ?? 'all', operation: 'delete:history' };
  switch (setting) {
    case 'none':
      return [];
    case 'periodic':
      return [{ id: RULE_ID.periodic, kind: 'every-n-tasks', everyTasks, operation: 'delete:periodic' }, userRule('periodic')];
    case 'history':
      return [drop, userRule('history')];
    case 'combined':
      return [{ id: RULE_ID.periodic, kind: 'every-n-tasks', everyTasks, operation: 'delete:combined' }, drop, userRule('combined')];
    case 'capacity':
      return [capacityRule(), userRule('capacity')];
    case 'forgetting':
      return [{ id: RULE_ID.forgetting, kind: 'every-n-tasks', everyTasks: params.forgettingEvery ?? 20, operation: 'delete:forgetting' }, userRule('forgetting')];
  }
}

/** The capacity rule of §6.2: the capacity plan after every task (the cap itself is a deletion parameter). */
export function capacityRule(): RuleSpec {
  return { id: RULE_ID.capacity, kind: 'every-n-tasks', everyTasks: 1, operation: 'delete:capacity' };
}

function userRule(policy: DeletionPolicyName): RuleSpec {
  return { id: `user-${policy}`, kind: 'user-command', command: operationOf(policy), operation: operationOf(policy) };
}
