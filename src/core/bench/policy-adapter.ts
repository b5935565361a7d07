/**
 * The benchmark's one switch point to the memory policies (src/core/policy):
 * the MemoryManager (benchmark mode) for addition and rule-triggered deletion
 * (Φ is the task pipeline's GoldEvaluator, src/core/agent/task-evaluators.ts). Everything policy-specific the harness does
 * goes through here.
 *
 * Schedule (the MemoryManager's default rules, SPEC §3):
 * - `periodic`: after every task (sliding window; `fixed`: every `period`
 *   tasks) over the window (t − period, t]; only records at least one period
 *   old; α = 0.
 * - `history`: after every task, on the records it credited: at least n = 5
 *   evaluated retrievals and mean Φ ≤ β (0.7 strict, 0.3 coarse).
 * - `combined`: history after every task, and the combined plan on the
 *   periodic schedule (periodic OR history, the paper's code behaviour).
 * - `forgetting`: every 20 tasks (retention below the threshold).
 * - `--capacity N` (with any deletion): after every task, periodic deletion,
 *   then, if still over N, the single record with the lowest mean Φ (§6.2).
 * No deletion takes the memory below `minActiveRecords` (default 1).
 * Φ for deletion is the addition policy's evaluator: coarse → the coarse
 * evaluator; fixed / all / strict → the ground truth (strict).
 */
import { z } from 'zod';
import type { MemoryStore } from '../memory/sqlite/store';
import type { AdditionDecision, AdditionPolicyName } from '../policy/addition';
import { DEFAULT_ALPHA, DEFAULT_BETA_COARSE, DEFAULT_BETA_STRICT, DEFAULT_MIN_RETRIEVALS, DeletionParams } from '../policy/deletion';
import { AfterTaskInput, MemoryManager } from '../policy/memory-manager';
import { capacityRule, defaultRules, RuleSpec } from '../policy/rules';
import type { CodeSimilarityFn } from '../policy/metrics';
import { Attribution, AutoDeletionPolicySchema, PeriodicWindow } from '../policy/names';
import { codeSimilarity } from '../similarity/code';

/** The bench runs the automatic deletion settings (capacity is the separate `--capacity`). */
export const BenchDeletionSchema = AutoDeletionPolicySchema;
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
  /** Memory floor (default 1, the paper's code's MIN_MEMORY_SIZE). */
  minActiveRecords?: number;
  /** Which retrieved records take Φ (default `shown`; `followed` is a labelled variant beyond the paper). */
  attribution?: Attribution;
  /** Attribution `followed`: the code similarity threshold (default 0.5). */
  followThreshold?: number;
  /** When periodic deletion runs (default `sliding`: after every task). */
  periodicWindow?: PeriodicWindow;
  /** Fidelity switches and modes of the deletion planners (deletion/types.ts documents each). */
  switches?: Pick<DeletionParams, 'periodicBounds' | 'historyThreshold' | 'historyPerTask' | 'capacityRule' | 'periodicGuard'>;
}

/** History-rule β for the addition policy's evaluator. */
export function betaFor(settings: Pick<PolicySettings, 'addition' | 'beta'>): number {
  return settings.beta ?? (settings.addition === 'coarse' ? DEFAULT_BETA_COARSE : DEFAULT_BETA_STRICT);
}

/** The rules of a setting: the MemoryManager's default schedule, plus the capacity rule when a capacity is set. */
export function benchRules(settings: PolicySettings): RuleSpec[] {
  const params = { period: settings.period, periodicWindow: settings.periodicWindow, minRetrievals: settings.minRetrievals ?? DEFAULT_MIN_RETRIEVALS, beta: betaFor(settings), capacity: settings.capacity ?? null, ...settings.switches };
  const rules: RuleSpec[] = defaultRules(settings.deletion, params).filter((r) => r.kind !== 'user-command');
  if (settings.capacity !== undefined) rules.push(capacityRule());
  return rules;
}

export interface AfterTaskOutcome {
  decision: AdditionDecision;
  recordId: string | null;
  deleted: string[];
  /** Deleted records per rule id. */
  rules: Record<string, number>;
}

/**
 * Steps 3–5 of a benchmark task through the MemoryManager (benchmark mode):
 * writes Φ onto the task's retrievals, adds the candidate when the addition
 * policy says so, and fires the deletion rules.
 *
 * @example
 * const policies = new BenchPolicies(store, { addition: 'strict', deletion: 'combined', period: 29 });
 * const out = policies.afterTask({ taskIndex, retrieved, evaluation, candidate, embedding, embedderId });
 */
export class BenchPolicies {
  /** The bench's memory manager (the task pipeline's memory side). */
  readonly manager: MemoryManager;

  constructor(store: MemoryStore, readonly settings: PolicySettings, options: { codeSimilarity?: CodeSimilarityFn } = {}) {
    this.manager = new MemoryManager(store, {
      addition: settings.addition,
      mode: 'benchmark',
      deletion: settings.deletion,
      deletionParams: {
        period: settings.period,
        alpha: settings.alpha ?? DEFAULT_ALPHA,
        minRetrievals: settings.minRetrievals ?? DEFAULT_MIN_RETRIEVALS,
        beta: betaFor(settings),
        ...(settings.capacity !== undefined ? { capacity: settings.capacity } : {}),
        ...(settings.minActiveRecords !== undefined ? { minActiveRecords: settings.minActiveRecords } : {}),
        ...settings.switches,
      },
      attribution: settings.attribution ?? 'shown',
      followThreshold: settings.followThreshold,
      codeSimilarity: options.codeSimilarity ?? ((reference, candidate, language) => codeSimilarity(reference, candidate, language)),
      rules: benchRules(settings),
    });
  }

  afterTask(input: AfterTaskInput): AfterTaskOutcome {
    const result = this.manager.afterTask(input);
    const rules: Record<string, number> = {};
    const deleted: string[] = [];
    for (const d of result.deletions) {
      if (d.recordIds.length === 0) continue;
      rules[d.ruleId] = (rules[d.ruleId] ?? 0) + d.recordIds.length;
      deleted.push(...d.recordIds);
    }
    const { recordId, ...decision } = result.addition;
    return { decision, recordId, deleted, rules };
  }

  dispose(): void {
    this.manager.dispose();
  }
}
