import { z } from 'zod';
import type { Trigger } from '../memory/types';
import { UTILITY_EPSILON } from './deletion/types';

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
 * - `utility-drop`: fires when a record updated in this task has more than
 *   `minRetrievals` evaluated retrievals and a mean utility ≤ beta (the history
 *   rule's condition), naming those records.
 */
export const PolicyOperationSchema = z.enum(['delete:periodic', 'delete:history', 'delete:combined', 'delete:capacity', 'delete:forgetting']);
export type PolicyOperation = z.infer<typeof PolicyOperationSchema>;

const RuleId = z.string().regex(/^[a-z0-9][a-z0-9._-]*$/i, 'a rule id is letters, digits, dot, dash or underscore');

export const RuleSpecSchema = z.discriminatedUnion('kind', [
  z.object({ id: RuleId, kind: z.literal('every-n-tasks'), everyTasks: z.number().int().min(1), operation: PolicyOperationSchema }),
  z.object({ id: RuleId, kind: z.literal('capacity-exceeded'), capacity: z.number().int().min(0).optional(), operation: PolicyOperationSchema }),
  z.object({ id: RuleId, kind: z.literal('user-command'), command: z.string().min(1), operation: PolicyOperationSchema }),
  z.object({ id: RuleId, kind: z.literal('utility-drop'), minRetrievals: z.number().int().min(0), beta: z.number().min(0).max(1), operation: PolicyOperationSchema }),
]);
export type RuleSpec = z.infer<typeof RuleSpecSchema>;

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
export function evaluateRules(rules: readonly RuleSpec[], state: RuleState): RuleFiring[] {
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
        const low = (state.utilityUpdates ?? []).filter((u) => u.meanUtility !== null && u.evaluatedCount > rule.minRetrievals && u.meanUtility <= rule.beta + UTILITY_EPSILON);
        if (low.length > 0) {
          firings.push({ ruleId: rule.id, operation: rule.operation, trigger, reason: `${low.length} record(s) fell to mean utility ≤ ${rule.beta} after more than ${rule.minRetrievals} retrievals`, recordIds: low.map((u) => u.recordId) });
        }
        break;
      }
    }
  }
  return firings;
}

export type DeletionSetting = 'none' | 'periodic' | 'history' | 'combined' | 'capacity' | 'forgetting';

/**
 * The default rules for a deletion setting (the paper's schedule):
 * periodic/combined every `period` tasks; history checked on the records each
 * task evaluated (utility-drop); capacity after every addition that overflows;
 * forgetting every `forgettingEvery` tasks. Every setting also answers the user
 * command `delete:<policy>`.
 */
export function defaultRules(setting: DeletionSetting, params: { period?: number; minRetrievals?: number; beta?: number; capacity?: number | null; forgettingEvery?: number } = {}): RuleSpec[] {
  const period = params.period ?? 200;
  const n = params.minRetrievals ?? 5;
  const beta = params.beta ?? 0.7;
  const drop: RuleSpec = { id: 'utility-drop', kind: 'utility-drop', minRetrievals: n, beta, operation: 'delete:history' };
  switch (setting) {
    case 'none':
      return [];
    case 'periodic':
      return [{ id: 'periodic-deletion', kind: 'every-n-tasks', everyTasks: period, operation: 'delete:periodic' }, userRule('periodic')];
    case 'history':
      return [drop, userRule('history')];
    case 'combined':
      return [{ id: 'periodic-deletion', kind: 'every-n-tasks', everyTasks: period, operation: 'delete:combined' }, drop, userRule('combined')];
    case 'capacity':
      return [{ id: 'capacity', kind: 'capacity-exceeded', ...(params.capacity != null ? { capacity: params.capacity } : {}), operation: 'delete:capacity' }, userRule('capacity')];
    case 'forgetting':
      return [{ id: 'forgetting-curve', kind: 'every-n-tasks', everyTasks: params.forgettingEvery ?? 20, operation: 'delete:forgetting' }, userRule('forgetting')];
  }
}

function userRule(policy: string): RuleSpec {
  return { id: `user-${policy}`, kind: 'user-command', command: `delete:${policy}`, operation: `delete:${policy}` as PolicyOperation };
}
