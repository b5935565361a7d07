import type { Statement } from 'better-sqlite3';
import type { Database } from '../database';
import type { MemoryStore } from '../store';

/**
 * The set-based SQL of the deletion policies, as named queries returning typed
 * rows (the store owns its SQL; src/core/policy builds plans from these rows).
 * Every query scans the covering index `records_policy` (schema v2) and the
 * retrieval log's `retrievals_task` index; at most `limit` rows are materialized
 * (oldest first unless stated) and the question text is looked up only for those.
 * Statements are prepared once per database and SQL text.
 */

/** Columns every candidate query reads from the covering index (alias r). */
const CANDIDATE_COLUMNS = 'r.rid, r.id, r.provenance, r.created_task, r.retrieval_count, r.utility_sum, r.utility_count, r.last_retrieved_task';
/** Retrievals of each record inside the window (windowStart, t], aggregated from the retrieval log. */
const WINDOW_CTE = 'win AS (SELECT rid, COUNT(*) AS n FROM retrievals WHERE task_index > @windowStart AND task_index <= @t GROUP BY rid)';
const WINDOW_FROM = 'records r LEFT JOIN win ON win.rid = r.rid';
/** The periodic rule on `records r` (params @windowStart, @alpha). */
const PERIODIC_CONDITION = '(r.created_task <= @windowStart AND COALESCE(win.n, 0) <= @alpha)';
/** The history rule on `records r` (params @n, @beta, @eps): count ≥ n and mean Φ ≤ β. */
const HISTORY_CONDITION = '(r.utility_count >= @n AND r.utility_sum / r.utility_count <= @beta + @eps)';
const OLDEST_FIRST = 'r.created_task, r.rid';

/** One candidate record, as the policies' covering index holds it. */
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
export interface WindowCandidateRow extends CandidateRow {
  /** Retrievals inside the window (t − period, t]. */
  in_window: number;
}
export interface CombinedCandidateRow extends WindowCandidateRow {
  periodic_hit: number;
  history_hit: number;
}
/** At most `limit` rows, and the number of records the condition holds for. */
export interface CandidateRows<T> {
  rows: T[];
  total: number;
}

export interface WindowParams {
  taskIndex: number;
  period: number;
  alpha: number;
  protectSeeds: boolean;
}
export interface HistoryParams {
  minRetrievals: number;
  beta: number;
  /** Tolerance of "mean ≤ β" on floating-point sums. */
  eps: number;
  protectSeeds: boolean;
}

/** A record's utility statistics, as the rule engine sees them. */
export interface UtilityRow {
  recordId: string;
  evaluatedCount: number;
  meanUtility: number | null;
}

/** Row-by-row inputs of the naive baseline (bench:policies). */
export interface NaiveRecordRow {
  rid: number;
  id: string;
  status: string;
  provenance: string;
  created_task: number;
}
export interface NaiveRetrievalRow {
  rid: number;
  task_index: number;
  utility: number | null;
}

const statements = new WeakMap<Database, Map<string, Statement>>();

/** A statement prepared once per database and SQL text (shared by the named queries of this folder). */
export function prepared(db: Database, sql: string): Statement {
  let cache = statements.get(db);
  if (!cache) statements.set(db, (cache = new Map()));
  let statement = cache.get(sql);
  if (!statement) cache.set(sql, (statement = db.prepare(sql)));
  return statement;
}

function seedFilter(protectSeeds: boolean): string {
  return protectSeeds ? "AND r.provenance <> 'seed'" : '';
}

function candidates<T extends CandidateRow>(
  db: Database,
  spec: { cte?: string; from?: string; where: string; extraColumns?: string; orderBy?: string; params: Record<string, unknown>; limit: number; countTotal?: boolean },
): CandidateRows<T> {
  const withClause = spec.cte ? `${spec.cte},` : '';
  const from = spec.from ?? 'records r';
  const extra = spec.extraColumns ? `, ${spec.extraColumns}` : '';
  const rows = prepared(
    db,
    `WITH ${withClause} cand AS (SELECT ${CANDIDATE_COLUMNS}${extra} FROM ${from} WHERE ${spec.where} ORDER BY ${spec.orderBy ?? OLDEST_FIRST} LIMIT @limit)
     SELECT cand.*, (SELECT question FROM records q WHERE q.rid = cand.rid) AS question FROM cand`,
  ).all({ ...spec.params, limit: spec.limit }) as T[];
  let total = rows.length;
  if (rows.length === spec.limit && spec.countTotal !== false) {
    const withCount = spec.cte ? `WITH ${spec.cte}` : '';
    total = (prepared(db, `${withCount} SELECT COUNT(*) AS n FROM ${from} WHERE ${spec.where}`).get(spec.params) as { n: number }).n;
  }
  return { rows, total };
}

function windowParams(p: WindowParams): Record<string, number> {
  return { t: p.taskIndex, windowStart: p.taskIndex - p.period, alpha: p.alpha };
}

/**
 * The named deletion queries of one store.
 *
 * @example
 * const q = deletionQueries(store);
 * q.historyCandidates({ minRetrievals: 5, beta: 0.7, eps: 1e-9, protectSeeds: false }, 1000).rows;
 */
export function deletionQueries(store: MemoryStore): DeletionQueries {
  return new DeletionQueries(store.connectionForQueries());
}

export class DeletionQueries {
  constructor(private readonly db: Database) {}

  /** Active records at least one period old, retrieved ≤ α times in (t − period, t], oldest first, limit L. */
  periodicCandidates(p: WindowParams, limit: number): CandidateRows<WindowCandidateRow> {
    return candidates(this.db, {
      cte: WINDOW_CTE,
      from: WINDOW_FROM,
      where: `r.status = 'active' AND ${PERIODIC_CONDITION} ${seedFilter(p.protectSeeds)}`,
      extraColumns: 'COALESCE(win.n, 0) AS in_window',
      params: windowParams(p),
      limit,
    });
  }

  /**
   * Active records retrieved (with Φ) ≥ n times with mean Φ ≤ β, oldest first, limit L;
   * with `recordIds`, only those (driven from the id list: a few index lookups).
   */
  historyCandidates(p: HistoryParams, limit: number, recordIds?: readonly string[]): CandidateRows<CandidateRow> {
    const params = { n: p.minRetrievals, beta: p.beta, eps: p.eps, ...(recordIds ? { ids: JSON.stringify(recordIds) } : {}) };
    return candidates(this.db, {
      // CROSS JOIN fixes the join order: the id list drives the query.
      ...(recordIds ? { from: 'json_each(@ids) j CROSS JOIN records r' } : {}),
      where: `r.status = 'active' AND ${HISTORY_CONDITION} ${seedFilter(p.protectSeeds)} ${recordIds ? 'AND r.id = j.value' : ''}`,
      params,
      limit,
    });
  }

  /**
   * Active records the periodic OR (`both`: AND) the history rule selects, in one pass
   * over the same snapshot, oldest first, limit L; each row says which rule hit.
   */
  combinedCandidates(p: WindowParams & HistoryParams & { mode: 'either' | 'both' }, limit: number): CandidateRows<CombinedCandidateRow> {
    const join = p.mode === 'either' ? 'OR' : 'AND';
    return candidates(this.db, {
      cte: WINDOW_CTE,
      from: WINDOW_FROM,
      where: `r.status = 'active' AND (${PERIODIC_CONDITION} ${join} ${HISTORY_CONDITION}) ${seedFilter(p.protectSeeds)}`,
      extraColumns: `COALESCE(win.n, 0) AS in_window, ${PERIODIC_CONDITION} AS periodic_hit, ${HISTORY_CONDITION} AS history_hit`,
      params: { ...windowParams(p), n: p.minRetrievals, beta: p.beta, eps: p.eps },
      limit,
    });
  }

  /**
   * The active record with the least mean Φ among those the periodic rule keeps
   * (ties: fewer retrievals, then older; never-evaluated records last), or undefined.
   */
  leastUtilityRecord(p: WindowParams): CandidateRow | undefined {
    return candidates<CandidateRow>(this.db, {
      cte: WINDOW_CTE,
      from: WINDOW_FROM,
      where: `r.status = 'active' ${seedFilter(p.protectSeeds)} AND NOT ${PERIODIC_CONDITION}`,
      orderBy: '(r.utility_count = 0), r.utility_sum / MAX(r.utility_count, 1), r.retrieval_count, r.created_task, r.rid',
      params: windowParams(p),
      limit: 1,
      countTotal: false,
    }).rows[0];
  }

  /**
   * Active records whose forgetting-curve retention is below θ:
   * (t − last retrieval or creation) > ln(1/θ)·s·(1 + retrievals), oldest first, limit L.
   */
  forgettingCandidates(p: { taskIndex: number; logInverseThreshold: number; timeScale: number; protectSeeds: boolean }, limit: number): CandidateRows<CandidateRow> {
    return candidates(this.db, {
      where: `r.status = 'active' ${seedFilter(p.protectSeeds)} AND (@t - COALESCE(r.last_retrieved_task, r.created_task)) > @k * @s * (1 + r.retrieval_count)`,
      params: { t: p.taskIndex, k: p.logInverseThreshold, s: p.timeScale },
      limit,
    });
  }

  /** Number of active records. */
  countActive(): number {
    return (prepared(this.db, "SELECT COUNT(*) AS n FROM records WHERE status = 'active'").get() as { n: number }).n;
  }

  /**
   * Number of active records, counted up to `cap` (min(active, cap)): a bounded
   * scan, for questions like "are there more than floor + n active records?"
   * that a full count answers in time proportional to the whole memory.
   */
  countActiveUpTo(cap: number): number {
    if (cap <= 0) return 0;
    return (prepared(this.db, "SELECT COUNT(*) AS n FROM (SELECT 1 FROM records WHERE status = 'active' LIMIT ?)").get(Math.floor(cap)) as { n: number }).n;
  }

  /** The ids among `ids` that are active now. */
  activeAmong(ids: readonly string[]): Set<string> {
    const rows = prepared(this.db, "SELECT id FROM records WHERE status = 'active' AND id IN (SELECT value FROM json_each(?))").all(JSON.stringify(ids)) as { id: string }[];
    return new Set(rows.map((r) => r.id));
  }

  /** Utility statistics of the active records among `ids`. */
  utilityOf(ids: readonly string[]): UtilityRow[] {
    if (ids.length === 0) return [];
    const rows = prepared(this.db, "SELECT id, utility_sum, utility_count FROM records WHERE status = 'active' AND id IN (SELECT value FROM json_each(?))").all(JSON.stringify(ids)) as {
      id: string;
      utility_sum: number;
      utility_count: number;
    }[];
    return rows.map((r) => ({ recordId: r.id, evaluatedCount: r.utility_count, meanUtility: r.utility_count > 0 ? r.utility_sum / r.utility_count : null }));
  }

  /** Whether task `taskIndex` was begun. */
  taskExists(taskIndex: number): boolean {
    return prepared(this.db, 'SELECT 1 FROM tasks WHERE task_index = ?').get(taskIndex) !== undefined;
  }

  /** Every record, row by row (the naive baseline of bench:policies only). */
  *scanRecords(): IterableIterator<NaiveRecordRow> {
    yield* prepared(this.db, 'SELECT rid, id, status, provenance, created_task FROM records').iterate() as IterableIterator<NaiveRecordRow>;
  }

  /** Every retrieval row (the naive baseline of bench:policies only). */
  *scanRetrievals(): IterableIterator<NaiveRetrievalRow> {
    yield* prepared(this.db, 'SELECT rid, task_index, utility FROM retrievals').iterate() as IterableIterator<NaiveRetrievalRow>;
  }
}
