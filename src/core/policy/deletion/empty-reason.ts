/**
 * Why a deletion plan holds no candidate, in a sentence, from the plan's own parameters:
 * a preview that "would delete nothing" says what it waits for (e.g. the periodic window
 * needs 200 tasks and 33 have run) instead of leaving the user guessing.
 */
import type { PolicyDeletionPlan } from './types';

type Params = PolicyDeletionPlan['params'];

/** What the reason reads: a planner's plan (the app's plan carries the same fields, optional). */
export interface PlanForReason {
  policy: PolicyDeletionPlan['policy'];
  taskIndex: number;
  params?: Params;
  total?: number;
  candidates: readonly unknown[];
}

const num = (p: Params, key: string): number | undefined => (typeof p[key] === 'number' ? (p[key]) : undefined);
const times = (n: number) => `${n} time${n === 1 ? '' : 's'}`;

/**
 * The reason `plan` deletes nothing; '' when it has candidates.
 *
 * @example
 * emptyPlanReason(planDeletion(store, 'periodic', 33))
 * // "The periodic window needs 200 tasks and 33 have run: a record can go only once it is a whole period old. Seed records are protected (agentMemory.deletion.protectSeeds)."
 */
export function emptyPlanReason(plan: PlanForReason): string {
  if ((plan.total ?? plan.candidates.length) > 0 || !plan.params) return '';
  const p = plan.params;
  const parts: string[] = [];
  const period = num(p, 'period');
  const alpha = num(p, 'alpha');
  if (period !== undefined && (plan.policy === 'periodic' || plan.policy === 'combined' || plan.policy === 'capacity')) {
    parts.push(
      plan.taskIndex < period
        ? `The periodic window needs ${period} tasks and ${plan.taskIndex} ${plan.taskIndex === 1 ? 'has' : 'have'} run: a record can go only once it is a whole period old.`
        : `Every record a period old was retrieved more than ${times(alpha ?? 0)} in the last ${period} tasks.`,
    );
  }
  const minRetrievals = num(p, 'minRetrievals');
  const beta = num(p, 'beta');
  if (minRetrievals !== undefined && beta !== undefined) parts.push(`No record was retrieved at least ${times(minRetrievals)} with a mean utility at or below ${beta} (mean Φ ≤ β).`);
  const threshold = num(p, 'threshold');
  if (plan.policy === 'forgetting' && threshold !== undefined) parts.push(`No record's retention has fallen below ${threshold}.`);
  if (plan.policy === 'capacity' && num(p, 'capacity') !== undefined) parts.push(`The active memory is within its capacity of ${num(p, 'capacity')} records.`);
  if (p.protectSeeds === true) parts.push('Seed records are protected (agentMemory.deletion.protectSeeds).');
  return parts.join(' ');
}
