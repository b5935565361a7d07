import { z } from 'zod';
import { AgentMemoryError } from '../../errors';
import type { CandidateRow } from '../../memory/sqlite/queries/deletion-candidates';
import { CapacityRuleSchema, CombinedModeSchema, DeletionPolicyName, DeletionThresholdSchema, HistoryPerTaskSchema, PeriodicBoundsSchema } from '../names';

export type { CandidateRow, DeletionPolicyName };

/** One record a deletion policy would remove, with the evidence for it. */
export interface DeletionCandidate {
  recordId: string;
  question: string;
  rule: string;
  evidence: Record<string, number | string | null>;
}

/** Records the memory floor (agentMemory.deletion.minActiveRecords) kept out of a deletion. */
export interface FloorNote {
  minActiveRecords: number;
  /** Active records when the plan was made. */
  activeBefore: number;
  /** How many of the policy's candidates the floor kept. */
  keptCount: number;
  /** The kept candidates that were materialized (the last ones in the plan's order). */
  kept: DeletionCandidate[];
  /** One sentence for the preview, e.g. "The memory floor (minActiveRecords = 1) kept 1 record: …". */
  sentence: string;
}

/** Records the periodic guard (agentMemory.deletion.periodicGuard) kept out of a plan. */
export interface GuardNote {
  /** Every record the guard kept. */
  kept: DeletionCandidate[];
  /** One sentence for the preview. */
  sentence: string;
}

export interface DeletionPlan {
  policy: DeletionPolicyName;
  candidates: DeletionCandidate[];
  /** Task index the plan was computed at. */
  taskIndex: number;
  /** What the memory floor kept out of the plan (null or absent when it kept nothing). */
  floor?: FloorNote | null;
  /** What the periodic guard kept out of the plan (absent when it kept nothing; see kind-guard.ts). */
  guard?: GuardNote;
  /** The policy's parameters and how many records it would delete (the planner's, for "why nothing"). */
  params?: Record<string, number | string | boolean>;
  total?: number;
}


/** The paper's EHR defaults (Appendix A.2). */
export const DEFAULT_PERIOD = 200;
export const DEFAULT_ALPHA = 0;
export const DEFAULT_MIN_RETRIEVALS = 5;
export const DEFAULT_BETA_STRICT = 0.7;
export const DEFAULT_BETA_COARSE = 0.3;
/** Forgetting curve: delete when retention R = exp(−Δt/(s·λ)) drops below this. */
export const DEFAULT_FORGETTING_THRESHOLD = 0.01;
/**
 * Forgetting curve time scale s, in tasks per unit of Δt. With s = 40 and the
 * 0.01 threshold, a never-retrieved record (λ = 1) is forgotten after
 * 40·ln(100) ≈ 184 tasks, close to the periodic rule's 200-task period; each
 * retrieval adds that much again (λ grows by 1).
 */
export const DEFAULT_FORGETTING_TIME_SCALE = 40;
/**
 * The memory floor: no deletion takes the active memory below this many records
 * (the paper's code keeps MIN_MEMORY_SIZE = 1; SPEC §3). Setting
 * agentMemory.deletion.minActiveRecords.
 */
export const DEFAULT_MIN_ACTIVE_RECORDS = 1;
/** Attribution `followed`: a shown record is credited when code similarity ≥ this. */
export const DEFAULT_FOLLOW_THRESHOLD = 0.5;
/** The error when a capacity plan has no capacity (the setting is checked against package.json by a unit test). */
export function capacityRequiredError(): AgentMemoryError {
  return new AgentMemoryError('CONFIG', 'Capacity-limited deletion needs a capacity: set agentMemory.capacity (a number of active records; 0 = unlimited).');
}
/** Tolerance for "mean Φ ≤ β" on floating-point sums (six retrievals at 0.7 sum to 4.2000000000000002). */
export const UTILITY_EPSILON = 1e-9;

/**
 * At most this many candidates are materialized per dry run (oldest first); the
 * plan's `total` still counts them all. Pulling ~100k rows into JavaScript costs
 * >100 ms whereas the set-based decision over 100k records takes ~10 ms, so large
 * deletions are previewed and applied in batches (plan, apply, plan again).
 */
export const DEFAULT_PLAN_LIMIT = 1000;

export const CommonDeletionOptionsSchema = z.object({
  /** Current task index t. */
  taskIndex: z.number().int().min(0),
  /** Never delete records with provenance 'seed'. */
  protectSeeds: z.boolean().default(false),
  /** Maximum number of candidates materialized in the plan (see DEFAULT_PLAN_LIMIT). */
  limit: z.number().int().min(1).max(10_000_000).default(DEFAULT_PLAN_LIMIT),
});

export const PeriodicOptionsSchema = CommonDeletionOptionsSchema.extend({
  period: z.number().int().min(1).default(DEFAULT_PERIOD),
  alpha: z.number().min(0).default(DEFAULT_ALPHA),
  /** (t − P, t] (default) or the paper's text [t − P, t] (see names.ts PERIODIC_BOUNDS). */
  periodicBounds: PeriodicBoundsSchema.default('half-open'),
});
export type PeriodicOptions = z.input<typeof PeriodicOptionsSchema>;

export const HistoryOptionsSchema = CommonDeletionOptionsSchema.extend({
  /** n: a record is considered once retrieved (and evaluated) at least n times. */
  minRetrievals: z.number().int().min(0).default(DEFAULT_MIN_RETRIEVALS),
  beta: z.number().min(0).max(1).default(DEFAULT_BETA_STRICT),
  /** `paper`: mean Φ ≤ β; `relative`: Wilson upper bound < running accuracy (see relative.ts). */
  historyThreshold: DeletionThresholdSchema.default('paper'),
  /** The agent's running accuracy for `relative` (default: mean Φ of the evaluated tasks up to t). */
  runningAccuracy: z.number().min(0).max(1).optional(),
  /** `all` matches, or only the `worst` one per plan (the paper's code; see names.ts HISTORY_PER_TASK). */
  historyPerTask: HistoryPerTaskSchema.default('all'),
  /** Restrict the plan to these records (e.g. the ones a utility-drop rule named). */
  recordIds: z.array(z.string()).optional(),
});
export type HistoryOptions = z.input<typeof HistoryOptionsSchema>;

export const CombinedOptionsSchema = PeriodicOptionsSchema.extend({
  minRetrievals: z.number().int().min(0).default(DEFAULT_MIN_RETRIEVALS),
  beta: z.number().min(0).max(1).default(DEFAULT_BETA_STRICT),
  /** `paper`: mean Φ ≤ β; `relative`: Wilson upper bound < running accuracy (see relative.ts). */
  historyThreshold: DeletionThresholdSchema.default('paper'),
  /** The agent's running accuracy for `relative` (default: mean Φ of the evaluated tasks up to t). */
  runningAccuracy: z.number().min(0).max(1).optional(),
  /** `all` matches, or only the `worst` one per plan (the paper's code; see names.ts HISTORY_PER_TASK). */
  historyPerTask: HistoryPerTaskSchema.default('all'),
  /**
   * `either` (default, like the paper's code: periodic then history, a record goes
   * if either rule fires) or `both` (the paper's formula φ_period × φ_history).
   */
  mode: CombinedModeSchema.default('either'),
});
export type CombinedOptions = z.input<typeof CombinedOptionsSchema>;

export const CapacityOptionsSchema = PeriodicOptionsSchema.extend({
  capacity: z.number().int().min(0),
  /** `hard-cap` (default) or §6.2's `paper`: never force-delete a never-evaluated record (names.ts CAPACITY_RULES). */
  capacityRule: CapacityRuleSchema.default('hard-cap'),
});
export type CapacityOptions = z.input<typeof CapacityOptionsSchema>;

export const ForgettingOptionsSchema = CommonDeletionOptionsSchema.extend({
  threshold: z.number().gt(0).lt(1).default(DEFAULT_FORGETTING_THRESHOLD),
  timeScale: z.number().gt(0).default(DEFAULT_FORGETTING_TIME_SCALE),
});
export type ForgettingOptions = z.input<typeof ForgettingOptionsSchema>;

/** A plan plus the parameters it was computed with (shown in the dry-run preview). */
export interface PolicyDeletionPlan extends DeletionPlan {
  params: Record<string, number | string | boolean>;
  /** Number of records the policy would delete (≥ candidates.length). */
  total: number;
  /** True when `candidates` holds only the first `limit` of `total`. */
  truncated: boolean;
  /** What the memory floor kept out of the plan (null when it kept nothing). */
  floor?: FloorNote | null;
}

/** Evidence common to every rule: counts, mean utility, age. */
export function baseEvidence(row: CandidateRow, taskIndex: number): Record<string, number | string | null> {
  return {
    totalRetrievals: row.retrieval_count,
    evaluatedRetrievals: row.utility_count,
    meanUtility: row.utility_count > 0 ? row.utility_sum / row.utility_count : null,
    ageTasks: taskIndex - row.created_task,
    createdTask: row.created_task,
    lastRetrievedTask: row.last_retrieved_task,
    provenance: row.provenance,
  };
}

/**
 * The dry-run plan for candidate rows: one candidate per row, with the rule and
 * evidence the planner derives from it (base evidence is added here).
 */
export function candidatePlan<T extends CandidateRow>(
  policy: DeletionPolicyName,
  taskIndex: number,
  params: Record<string, number | string | boolean>,
  found: { rows: T[]; total: number },
  describe: (row: T) => { rule: string; evidence: Record<string, number | string | null> },
): PolicyDeletionPlan {
  return {
    policy,
    taskIndex,
    params,
    total: found.total,
    truncated: found.total > found.rows.length,
    candidates: found.rows.map((row) => {
      const { rule, evidence } = describe(row);
      return { recordId: row.id, question: row.question, rule, evidence: { ...baseEvidence(row, taskIndex), ...evidence } };
    }),
  };
}
