import type { Statement } from 'better-sqlite3';
import { AgentMemoryError } from '../../../errors';
import type { Database } from '../database';
import type { MemoryStore } from '../store';
import type { DeletionThreshold, PeriodicBounds } from '../../../policy/names';

/**
 * The set-based SQL of the deletion policies, as named queries returning typed
 * rows (the store owns its SQL; src/core/policy builds plans from these rows).
 * Every query scans the covering index `records_policy` (schema v2); the periodic rule counts a
 * record's retrievals in the window on `retrievals_rid`; at most `limit` rows are materialized
 * (oldest first unless stated) and the question text is looked up only for those.
 * Statements are prepared once per database and SQL text.
 */

/** Columns every candidate query reads from the covering index (alias r). */
const CANDIDATE_COLUMNS = 'r.rid, r.id, r.provenance, r.created_task, r.retrieval_count, r.utility_sum, r.utility_count, r.last_retrieved_task';
/**
 * Retrievals of record `r` inside the window (windowStart, t] (`closed`: [windowStart, t]): one range of
 * the `retrievals_rid` index per record asked (cheaper than grouping the whole window's retrievals by
 * record and joining them, at every task: 30–40 % less for the combined rule's query).
 */
function windowCount(bounds: PeriodicBounds): string {
  return `(SELECT COUNT(*) FROM retrievals x WHERE x.rid = r.rid AND x.task_index ${bounds === 'closed' ? '>=' : '>'} @windowStart AND x.task_index <= @t)`;
}
/**
 * The periodic rule on `records r` (params @windowStart, @t, @alpha): the window is counted only for
 * records old enough and retrieved inside it. A record's `last_retrieved_task` (covering index) is at
 * least the task of each of its retrieval rows (the task log raises it with every row it writes), so a
 * record not retrieved since the window opened has none in it: 0 ≤ α without a lookup. At 100k records
 * only the few hundred retrieved in the window are counted, not every record.
 */
function periodicCondition(bounds: PeriodicBounds): string {
  const notSince = `(r.last_retrieved_task IS NULL OR r.last_retrieved_task ${bounds === 'closed' ? '<' : '<='} @windowStart)`;
  return `(r.created_task <= @windowStart AND ((@alpha >= 0 AND ${notSince}) OR ${windowCount(bounds)} <= @alpha))`;
}
/** The history rule on `records r` (params @n, @beta, @eps): count ≥ n and mean Φ ≤ β. */
const HISTORY_CONDITION = '(r.utility_count >= @n AND r.utility_sum / r.utility_count <= @beta + @eps)';
/**
 * The relative history rule (params @n, @acc, @z2): count ≥ n and the Wilson upper bound of
 * mean Φ below the running accuracy, in the polynomial form s < a·c ∧ (s − a·c)² > z²·a(1 − a)·c
 * (policy/deletion/relative.ts derives it).
 */
const RELATIVE_CONDITION =
  '(r.utility_count >= @n AND r.utility_count > 0 AND r.utility_sum < @acc * r.utility_count AND (r.utility_sum - @acc * r.utility_count) * (r.utility_sum - @acc * r.utility_count) > @z2 * @acc * (1 - @acc) * r.utility_count)';
const OLDEST_FIRST = 'r.created_task, r.rid';
/** Mean Φ of the evaluated tasks up to t (reads the covering index `tasks_utility`, schema v10): what runningAccuracy returns, read in full. */
export const RUNNING_ACCURACY_SQL = 'SELECT AVG(utility) AS a FROM tasks WHERE utility IS NOT NULL AND task_index <= ?';
/** The count and compensated sum of every evaluated task's Φ (schema v12, kept by triggers on `tasks`). */
const UTILITY_TOTALS_SQL = 'SELECT evaluated, utility_sum, utility_comp FROM task_utility_totals WHERE k = 1';
/** The evaluated tasks after t (usually none: tasks begun later and evaluated first), on the same index. */
const UTILITY_AFTER_SQL = 'SELECT COUNT(utility) AS n, SUM(utility) AS s FROM tasks WHERE utility IS NOT NULL AND task_index > ?';
/** The worst record first: lowest mean Φ, then more evaluated retrievals, then older. */
const WORST_FIRST = 'r.utility_sum / r.utility_count, r.utility_count DESC, r.created_task, r.rid';

/** OLDEST_FIRST, in TypeScript. */
function oldestFirst(a: CandidateRow, b: CandidateRow): number {
  return a.created_task - b.created_task || a.rid - b.rid;
}

/** WORST_FIRST, in TypeScript (the history condition holds only for utility_count > 0). */
function worstFirst(a: CandidateRow, b: CandidateRow): number {
  return a.utility_sum / a.utility_count - b.utility_sum / b.utility_count || b.utility_count - a.utility_count || oldestFirst(a, b);
}

function historyCondition(p: HistoryParams): string {
  return p.threshold === 'relative' ? RELATIVE_CONDITION : HISTORY_CONDITION;
}

function historyParams(p: HistoryParams): Record<string, number> {
  if (p.threshold !== 'relative') return { n: p.minRetrievals, beta: p.beta, eps: p.eps };
  if (p.accuracy === undefined || p.z === undefined) throw new AgentMemoryError('INVALID_INPUT', 'The relative history threshold needs the running accuracy and z: plan it through planHistory / planCombined, which resolve them.');
  return { n: p.minRetrievals, acc: p.accuracy, z2: p.z * p.z };
}

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
  /** (t − period, t] (default) or [t − period, t]. */
  periodicBounds?: PeriodicBounds;
}
export interface HistoryParams {
  minRetrievals: number;
  beta: number;
  /** Tolerance of "mean ≤ β" on floating-point sums. */
  eps: number;
  protectSeeds: boolean;
  /** `paper` (mean ≤ β, default) or `relative` (Wilson upper bound < accuracy, with `accuracy` and `z`). */
  threshold?: DeletionThreshold;
  accuracy?: number;
  z?: number;
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

/**
 * The active records (with `seed`, the seed filter) a periodic condition — alone or OR-ed with the
 * history condition — can be false for when α ≥ 0: those created inside the window and those with
 * a retrieval row in it (both bounds' windows). Any other active record is at least one period old
 * and has no retrieval in the window: 0 ≤ α, the periodic rule holds. Two index ranges
 * (`records_policy`, `retrievals_task`): a few hundred rows at 100k records.
 */
const WINDOW_OUTSIDERS = `SELECT rid FROM records WHERE status = 'active' AND created_task > @windowStart
  UNION SELECT rid FROM retrievals WHERE task_index >= @windowStart AND task_index <= @t`;

/**
 * The number of active records (after `seed`) `condition` holds for, counted as all active records
 * less those among WINDOW_OUTSIDERS it does not hold for (not TRUE: false or NULL). Exact when
 * `condition` holds for every other active record (a periodic condition with α ≥ 0, alone or OR-ed):
 * one count of the active records instead of evaluating the condition on each of them.
 */
function totalByOutsiders(db: Database, condition: string, seed: string, params: Record<string, unknown>): number {
  const sql = `SELECT (SELECT COUNT(*) FROM records r WHERE r.status = 'active' ${seed})
    - (SELECT COUNT(*) FROM records r WHERE r.rid IN (${WINDOW_OUTSIDERS}) AND r.status = 'active' ${seed} AND (${condition}) IS NOT TRUE) AS n`;
  return (prepared(db, sql).get(params) as { n: number }).n;
}

function candidates<T extends CandidateRow>(
  db: Database,
  spec: { from?: string; where: string; extraColumns?: string; orderBy?: string; params: Record<string, unknown>; limit: number; countTotal?: boolean; total?: () => number },
): CandidateRows<T> {
  const from = spec.from ?? 'records r';
  const extra = spec.extraColumns ? `, ${spec.extraColumns}` : '';
  const rows = prepared(
    db,
    `WITH cand AS (SELECT ${CANDIDATE_COLUMNS}${extra} FROM ${from} WHERE ${spec.where} ORDER BY ${spec.orderBy ?? OLDEST_FIRST} LIMIT @limit)
     SELECT cand.*, (SELECT question FROM records q WHERE q.rid = cand.rid) AS question FROM cand`,
  ).all({ ...spec.params, limit: spec.limit }) as T[];
  let total = rows.length;
  if (rows.length === spec.limit && spec.countTotal !== false) {
    total = spec.total ? spec.total() : (prepared(db, `SELECT COUNT(*) AS n FROM ${from} WHERE ${spec.where}`).get(spec.params) as { n: number }).n;
  }
  return { rows, total };
}

/** The periodic rule of a window and its retrieval count, as SQL on `records r`. */
function windowSpec(p: WindowParams): { periodic: string; count: string } {
  const bounds = p.periodicBounds ?? 'half-open';
  return { periodic: periodicCondition(bounds), count: windowCount(bounds) };
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
    const window = windowSpec(p);
    const params = windowParams(p);
    return candidates(this.db, {
      where: `r.status = 'active' AND ${window.periodic} ${seedFilter(p.protectSeeds)}`,
      extraColumns: `${window.count} AS in_window`,
      params,
      limit,
      ...(p.alpha >= 0 ? { total: () => totalByOutsiders(this.db, window.periodic, seedFilter(p.protectSeeds), params) } : {}),
    });
  }

  /**
   * Active records retrieved (with Φ) ≥ n times that the history rule selects (mean Φ ≤ β, or the
   * relative threshold), oldest first (`order: 'worst'`: lowest mean first), limit L; with
   * `recordIds`, only those (driven from the id list: a few index lookups); with `notPeriodic`,
   * only records the periodic rule of that window keeps.
   */
  historyCandidates(p: HistoryParams, limit: number, recordIds?: readonly string[], options: { order?: 'oldest' | 'worst'; notPeriodic?: WindowParams } = {}): CandidateRows<CandidateRow & { in_window?: number }> {
    if (recordIds && !options.notPeriodic) return this.historyAmong(p, limit, recordIds, options.order ?? 'oldest');
    const params = { ...historyParams(p), ...(recordIds ? { ids: JSON.stringify(recordIds) } : {}), ...(options.notPeriodic ? windowParams(options.notPeriodic) : {}) };
    const window = options.notPeriodic ? windowSpec(options.notPeriodic) : undefined;
    // CROSS JOIN fixes the join order: the id list drives the query.
    const from = `${recordIds ? 'json_each(@ids) j CROSS JOIN ' : ''}records r`;
    return candidates(this.db, {
      ...(window ? { extraColumns: `${window.count} AS in_window` } : {}),
      from,
      where: `r.status = 'active' AND ${historyCondition(p)} ${seedFilter(p.protectSeeds)} ${recordIds ? 'AND r.id = j.value' : ''} ${window ? `AND NOT ${window.periodic}` : ''}`,
      ...(options.order === 'worst' ? { orderBy: WORST_FIRST } : {}),
      params,
      limit,
    });
  }

  /**
   * historyCandidates driven by a short id list (the records one task credited, after every task):
   * one index lookup per id, every match read with its question, ordered and cut in TypeScript
   * (the same order and total as the generic query, without its temporary sort tree, its
   * co-routine and, when the limit is reached, its second counting pass).
   */
  private historyAmong(p: HistoryParams, limit: number, recordIds: readonly string[], order: 'oldest' | 'worst'): CandidateRows<CandidateRow> {
    const all = prepared(
      this.db,
      `SELECT ${CANDIDATE_COLUMNS}, r.question FROM json_each(@ids) j CROSS JOIN records r WHERE r.id = j.value AND r.status = 'active' AND ${historyCondition(p)} ${seedFilter(p.protectSeeds)}`,
    ).all({ ...historyParams(p), ids: JSON.stringify([...new Set(recordIds)]) }) as CandidateRow[];
    all.sort(order === 'worst' ? worstFirst : oldestFirst);
    return { rows: all.length > limit ? all.slice(0, limit) : all, total: all.length };
  }

  /**
   * Active records the periodic OR (`both`: AND) the history rule selects, in one pass
   * over the same snapshot, oldest first, limit L; each row says which rule hit.
   */
  combinedCandidates(p: WindowParams & HistoryParams & { mode: 'either' | 'both' }, limit: number, order: 'oldest' | 'worst' = 'oldest'): CandidateRows<CombinedCandidateRow> {
    const join = p.mode === 'either' ? 'OR' : 'AND';
    const history = historyCondition(p);
    const window = windowSpec(p);
    const params = { ...windowParams(p), ...historyParams(p) };
    // Either rule: the periodic rule alone holds for every active record outside the window's few (totalByOutsiders).
    const sparse = p.mode === 'either' && p.alpha >= 0;
    return candidates(this.db, {
      where: `r.status = 'active' AND (${window.periodic} ${join} ${history}) ${seedFilter(p.protectSeeds)}`,
      extraColumns: `${window.count} AS in_window, ${window.periodic} AS periodic_hit, ${history} AS history_hit`,
      ...(order === 'worst' ? { orderBy: WORST_FIRST } : {}),
      params,
      limit,
      ...(sparse ? { total: () => totalByOutsiders(this.db, `${window.periodic} OR ${history}`, seedFilter(p.protectSeeds), params) } : {}),
    });
  }

  /**
   * The agent's running accuracy at task t: mean Φ over the evaluated tasks up to t (null when none
   * is evaluated). Read from the running totals (one row) less the evaluated tasks after t (an index
   * range, empty at the current task); for a t in the first half of the log, the tasks up to t are
   * read directly instead (fewer rows).
   */
  runningAccuracy(taskIndex: number): number | null {
    const totals = prepared(this.db, UTILITY_TOTALS_SQL).get() as { evaluated: number; utility_sum: number; utility_comp: number } | undefined;
    if (!totals || taskIndex < this.lastTaskIndex() / 2) return this.runningAccuracyFullRead(taskIndex);
    const after = prepared(this.db, UTILITY_AFTER_SQL).get(taskIndex) as { n: number; s: number | null };
    const count = totals.evaluated - after.n;
    if (count <= 0) return null;
    // The compensation is added last (Neumaier), the tasks after t taken off the exact sum.
    return (totals.utility_sum - (after.s ?? 0) + totals.utility_comp) / count;
  }

  /** The running accuracy read in full from the task log (RUNNING_ACCURACY_SQL): the reference bench:policies times runningAccuracy against. */
  runningAccuracyFullRead(taskIndex: number): number | null {
    return (prepared(this.db, RUNNING_ACCURACY_SQL).get(taskIndex) as { a: number | null }).a;
  }

  /** The index of the last task begun (0 before any). */
  private lastTaskIndex(): number {
    return (prepared(this.db, 'SELECT COALESCE(MAX(task_index), 0) AS t FROM tasks').get() as { t: number }).t;
  }

  /**
   * The active record with the least mean Φ among those the periodic rule keeps
   * (ties: fewer retrievals, then older; never-evaluated records last, or with
   * `evaluatedOnly` (§6.2 as the paper reads) never), or undefined.
   */
  leastUtilityRecord(p: WindowParams, evaluatedOnly = false): CandidateRow | undefined {
    return candidates<CandidateRow>(this.db, {
      where: `r.status = 'active' ${seedFilter(p.protectSeeds)} AND NOT ${windowSpec(p).periodic}${evaluatedOnly ? ' AND r.utility_count > 0' : ''}`,
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

  /** Every active record's rid and id, as two parallel arrays (read from the covering index `records_policy`, not the rows). */
  activeIds(): { rids: number[]; ids: string[] } {
    const rids: number[] = [];
    const ids: string[] = [];
    for (const [rid, id] of prepared(this.db, "SELECT rid, id FROM records WHERE status = 'active'").raw(true).iterate() as IterableIterator<[number, string]>) {
      rids.push(rid);
      ids.push(id);
    }
    return { rids, ids };
  }

  /** The id, code and language of the records `rids`. */
  programsOf(rids: readonly number[]): { rid: number; id: string; code: string; language: string }[] {
    if (rids.length === 0) return [];
    return prepared(this.db, 'SELECT rid, id, code, language FROM records WHERE rid IN (SELECT value FROM json_each(?))').all(JSON.stringify(rids)) as { rid: number; id: string; code: string; language: string }[];
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
