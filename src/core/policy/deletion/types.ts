import type { Database } from '../../memory/database';
import { z } from 'zod';
import type { DeletionCandidate, DeletionPlan, DeletionPolicyName } from '../../app/types';

export type { DeletionCandidate, DeletionPlan, DeletionPolicyName };

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
});
export type PeriodicOptions = z.input<typeof PeriodicOptionsSchema>;

export const HistoryOptionsSchema = CommonDeletionOptionsSchema.extend({
  /** n: a record is considered only when retrieved (and evaluated) more than n times. */
  minRetrievals: z.number().int().min(0).default(DEFAULT_MIN_RETRIEVALS),
  beta: z.number().min(0).max(1).default(DEFAULT_BETA_STRICT),
  /** Restrict the plan to these records (e.g. the ones a utility-drop rule named). */
  recordIds: z.array(z.string()).optional(),
});
export type HistoryOptions = z.input<typeof HistoryOptionsSchema>;

export const CombinedOptionsSchema = PeriodicOptionsSchema.extend({
  minRetrievals: z.number().int().min(0).default(DEFAULT_MIN_RETRIEVALS),
  beta: z.number().min(0).max(1).default(DEFAULT_BETA_STRICT),
  /**
   * `either` (default, like the paper's code: periodic then history, a record goes
   * if either rule fires) or `both` (the paper's formula φ_period × φ_history).
   */
  mode: z.enum(['either', 'both']).default('either'),
});
export type CombinedOptions = z.input<typeof CombinedOptionsSchema>;

export const CapacityOptionsSchema = PeriodicOptionsSchema.extend({
  capacity: z.number().int().min(0),
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
}

/** Columns every planner reads from the covering index records_policy (alias r). */
export const CANDIDATE_COLUMNS = 'r.rid, r.id, r.provenance, r.created_task, r.retrieval_count, r.utility_sum, r.utility_count, r.last_retrieved_task';

export interface CandidateRow {
  rid: number;
  id: string;
  question: string;
  provenance: string;
  created_task: number;
  retrieval_count: number;
  utility_sum: number;
  utility_count: number;
  last_retrieved_task: number | null;
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

export function seedFilter(protectSeeds: boolean): string {
  return protectSeeds ? "AND r.provenance <> 'seed'" : '';
}

/**
 * Runs a candidate query set-based: the filter runs over the covering index, at
 * most `limit` rows (ordered oldest first unless `orderBy` is given) are
 * materialized, and the question text is looked up only for those. The total is
 * counted only when the limit was reached.
 */
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

export function runCandidateQuery<T extends CandidateRow>(
  db: Database,
  spec: { cte?: string; from?: string; where: string; extraColumns?: string; orderBy?: string; params: Record<string, unknown>; limit: number; countTotal?: boolean },
): { rows: T[]; total: number } {
  const withClause = spec.cte ? `${spec.cte},` : '';
  const from = spec.from ?? 'records r';
  const extra = spec.extraColumns ? `, ${spec.extraColumns}` : '';
  const rows = db
    .prepare(
      `WITH ${withClause} cand AS (SELECT ${CANDIDATE_COLUMNS}${extra} FROM ${from} WHERE ${spec.where} ORDER BY ${spec.orderBy ?? 'r.created_task, r.rid'} LIMIT @limit)
       SELECT cand.*, (SELECT question FROM records q WHERE q.rid = cand.rid) AS question FROM cand`,
    )
    .all({ ...spec.params, limit: spec.limit }) as T[];
  let total = rows.length;
  if (rows.length === spec.limit && spec.countTotal !== false) {
    const withCount = spec.cte ? `WITH ${spec.cte}` : '';
    total = (db.prepare(`${withCount} SELECT COUNT(*) AS n FROM ${from} WHERE ${spec.where}`).get(spec.params) as { n: number }).n;
  }
  return { rows, total };
}
