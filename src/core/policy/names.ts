/**
 * Every policy-related name, defined once: a `const` array plus its zod enum and
 * type. Everything else (settings, rules, the bench, the editor, the CLI) imports
 * these; no other file spells them as a union or an enum of its own.
 */
import { z } from 'zod';

/** Addition policies (SPEC §2, paper §4). */
export const ADDITION_POLICIES = ['fixed', 'all', 'coarse', 'strict'] as const;
export const AdditionPolicyNameSchema = z.enum(ADDITION_POLICIES);
export type AdditionPolicyName = z.infer<typeof AdditionPolicyNameSchema>;

/** Deletion policies a plan can be made for (SPEC §3, paper §5, §6.2), in the order the editor offers them. */
export const DELETION_POLICIES = ['combined', 'periodic', 'history', 'forgetting', 'capacity'] as const;
export const DeletionPolicyNameSchema = z.enum(DELETION_POLICIES);
export type DeletionPolicyName = z.infer<typeof DeletionPolicyNameSchema>;

/** What `agentMemory.deletion.automatic` may run after each task ('capacity' follows from agentMemory.capacity). */
export const AUTO_DELETION_POLICIES = ['none', 'periodic', 'history', 'combined', 'forgetting'] as const;
export const AutoDeletionPolicySchema = z.enum(AUTO_DELETION_POLICIES);
export type AutoDeletionPolicy = z.infer<typeof AutoDeletionPolicySchema>;

/**
 * What an automatic deletion does with its candidates:
 * - `propose`: lists them under "Proposed deletions"; nothing is deleted until the user confirms;
 * - `immediate`: soft-deletes them at once (the bench, and the behaviour before 0.4).
 */
export const DELETION_REVIEWS = ['propose', 'immediate'] as const;
export type DeletionReview = (typeof DELETION_REVIEWS)[number];
/** The setting `agentMemory.deletion.review`: `auto` = `propose` under strict addition (the human reviews), else `immediate`. */
export const DELETION_REVIEW_SETTINGS = ['auto', ...DELETION_REVIEWS] as const;
export type DeletionReviewSetting = (typeof DELETION_REVIEW_SETTINGS)[number];
/** The review mode a setting means under an addition policy. */
export function resolveDeletionReview(setting: DeletionReviewSetting, addition: AdditionPolicyName): DeletionReview {
  return setting === 'auto' ? (addition === 'strict' ? 'propose' : 'immediate') : setting;
}

/** The deletion settings of the paper's Table 2 (its grid has no forgetting curve). */
export const PAPER_DELETION_SETTINGS = ['none', 'periodic', 'history', 'combined'] as const satisfies readonly AutoDeletionPolicy[];

/** A deletion setting of the rule engine: an automatic policy or capacity. */
/** The deletions of the paper's Table 2 grid (the automatic ones without the forgetting curve). */
export const PAPER_DELETIONS = ['none', 'periodic', 'history', 'combined'] as const satisfies readonly AutoDeletionPolicy[];

export const DELETION_SETTINGS = [...AUTO_DELETION_POLICIES, 'capacity'] as const;
export const DeletionSettingSchema = z.enum(DELETION_SETTINGS);
export type DeletionSetting = z.infer<typeof DeletionSettingSchema>;

/** Rule operations: `delete:<policy>`. */
export type PolicyOperation = `delete:${DeletionPolicyName}`;
export const POLICY_OPERATIONS = DELETION_POLICIES.map((p): PolicyOperation => `delete:${p}`) as [PolicyOperation, ...PolicyOperation[]];
export const PolicyOperationSchema = z.enum(POLICY_OPERATIONS);
/** The operation that runs a deletion policy. */
export function operationOf(policy: DeletionPolicyName): PolicyOperation {
  return `delete:${policy}`;
}
/** The deletion policy an operation runs. */
export function policyOf(operation: PolicyOperation): DeletionPolicyName {
  return DeletionPolicyNameSchema.parse(operation.slice('delete:'.length));
}

/** Ids of the default rules (user-command rules are `user-<policy>`); audit triggers read `rule:<id>`. */
export const RULE_ID = { periodic: 'periodic-deletion', utilityDrop: 'utility-drop', capacity: 'capacity', forgetting: 'forgetting-curve' } as const;
export const RULE_IDS = Object.values(RULE_ID) as [DefaultRuleIdValue, ...DefaultRuleIdValue[]];
type DefaultRuleIdValue = (typeof RULE_ID)[keyof typeof RULE_ID];
export const RuleIdSchema = z.enum(RULE_IDS);
export type DefaultRuleId = z.infer<typeof RuleIdSchema>;

/** The rule labels a deletion candidate carries (which condition removed it). */
export const CANDIDATE_RULES = ['periodic', 'history', 'periodic+history', 'capacity', 'forgetting'] as const;
export type CandidateRule = (typeof CANDIDATE_RULES)[number];

/**
 * Which retrieved records a task's Φ is written to:
 * - `shown` (the paper's behaviour, default): every record placed in the prompt;
 * - `followed` (a labelled variant beyond the paper): a shown record only when the
 *   generated code's similarity to its code is at least `followThreshold`;
 * - `top-output` (a labelled variant beyond the paper): only the one shown record whose
 *   code is most similar to the generated code: the paper's own §5.3 measure ("the
 *   retrieved record with the highest output similarity"), used there to explain which
 *   records history deletion removes. Ties (e.g. no code: similarity 0 for all) go to
 *   the first shown record, the one retrieval ranked highest.
 */
export const ATTRIBUTIONS = ['shown', 'followed', 'top-output'] as const;
export const AttributionSchema = z.enum(ATTRIBUTIONS);
export type Attribution = z.infer<typeof AttributionSchema>;

/**
 * When the periodic rule is evaluated over its window (t − period, t]:
 * - `sliding` (default, the paper's code per SPEC §3): after every task;
 * - `fixed`: every `period` tasks, i.e. the windows (0, p], (p, 2p], …
 */
export const PERIODIC_WINDOWS = ['sliding', 'fixed'] as const;
export const PeriodicWindowSchema = z.enum(PERIODIC_WINDOWS);
export type PeriodicWindow = z.infer<typeof PeriodicWindowSchema>;

/**
 * Which end of the periodic window counts a retrieval (fidelity switch):
 * - `half-open` (default): (t − P, t], P retrievals-tasks long;
 * - `closed`: [t − P, t], the paper's text (§5.1: "the target retrieval count within
 *   [t′, t]"), one task longer.
 * Either way only records created at or before t − P are candidates.
 */
export const PERIODIC_BOUNDS = ['half-open', 'closed'] as const;
export const PeriodicBoundsSchema = z.enum(PERIODIC_BOUNDS);
export type PeriodicBounds = z.infer<typeof PeriodicBoundsSchema>;

/**
 * How many records the history rule deletes per task (fidelity switch):
 * - `all` (default): every record that meets the condition;
 * - `worst`: at most one per task, the one with the lowest mean Φ (ties: more evaluated
 *   retrievals, then older), as the paper's released code does (issue 19).
 */
export const HISTORY_PER_TASK = ['all', 'worst'] as const;
export const HistoryPerTaskSchema = z.enum(HISTORY_PER_TASK);
export type HistoryPerTask = z.infer<typeof HistoryPerTaskSchema>;

/**
 * The history rule's threshold:
 * - `paper` (default): mean Φ ≤ β (§5.1, β = 0.7 strict / 0.3 coarse);
 * - `relative` (a labelled mode beyond the paper): the upper end of the Wilson score
 *   interval of the record's mean Φ (z = RELATIVE_Z, fixed in advance) lies below the
 *   agent's running accuracy (mean Φ over every evaluated task so far). See deletion/relative.ts.
 */
export const DELETION_THRESHOLDS = ['paper', 'relative'] as const;
export const DeletionThresholdSchema = z.enum(DELETION_THRESHOLDS);
export type DeletionThreshold = z.infer<typeof DeletionThresholdSchema>;

/**
 * The periodic guard (a labelled mode beyond the paper; setting agentMemory.deletion.periodicGuard):
 * - `none` (default, the paper): the periodic rule deletes every record not retrieved in its window;
 * - `last-of-kind`: it never deletes the last active record of a program kind (the code with its
 *   values masked; deletion/kind-guard.ts), so a kind of task that did not come up in the window
 *   keeps one record. The history rule is not guarded.
 */
export const PERIODIC_GUARDS = ['none', 'last-of-kind'] as const;
export const PeriodicGuardSchema = z.enum(PERIODIC_GUARDS);
export type PeriodicGuard = z.infer<typeof PeriodicGuardSchema>;

/**
 * Which record the capacity rule's least-utility step may remove (§6.2):
 * - `hard-cap` (default): the least mean Φ, never-evaluated records last, so the cap holds;
 * - `paper`: only records with a mean utility (evaluated at least once); a never-retrieved
 *   record is never force-deleted (it has no "least average utility" in §6.2's sense), so the
 *   memory may stay above the cap until periodic deletion removes it.
 */
export const CAPACITY_RULES = ['hard-cap', 'paper'] as const;
export const CapacityRuleSchema = z.enum(CAPACITY_RULES);
export type CapacityRule = z.infer<typeof CapacityRuleSchema>;

/** How the combined policy joins its two rules (see deletion/combined.ts). */
export const COMBINED_MODES = ['either', 'both'] as const;
export const CombinedModeSchema = z.enum(COMBINED_MODES);
export type CombinedMode = z.infer<typeof CombinedModeSchema>;

/**
 * How the strict ground-truth evaluator compares an answer with the gold answer (see answers.ts):
 * - `set` (default): equal as sets of rows (numbers within a tolerance);
 * - `contains`: the paper's strict evaluator (Appendix A.2: "we use string matching to check
 *   if the ground-truth is contained in the generated answer"): every gold value's text occurs
 *   in the answer's text, so extra rows or columns do not make an answer wrong.
 */
export const ANSWER_MATCHES = ['set', 'contains'] as const;
export const AnswerMatchSchema = z.enum(ANSWER_MATCHES);
export type AnswerMatch = z.infer<typeof AnswerMatchSchema>;

/** Utility evaluators Φ (see utility.ts). */
export const EVALUATOR_IDS = ['strict:ground-truth', 'strict:human', 'coarse:judge', 'coarse:self'] as const;
export const EvaluatorIdSchema = z.enum(EVALUATOR_IDS);
export type EvaluatorId = z.infer<typeof EvaluatorIdSchema>;

/** Where the addition policy runs: `editor` (strict → pending) or `benchmark` (strict → ground truth). */
export const ADDITION_MODES = ['editor', 'benchmark'] as const;
export type AdditionMode = (typeof ADDITION_MODES)[number];
