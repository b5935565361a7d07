/**
 * SIMULATION — wires the simulated agent (generator + coarse judge) into a
 * benchmark session's dependencies for one seed.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { DEFAULT_NOW } from '../../agent/runners/types';
import { toEhrSqlDialect } from '../../agent/runners/sql-dialect';
import { DatabaseValueLookup } from '../../agent/reuse/value-lookup';
import type { BenchDeps } from '../harness';
import type { BenchTask } from '../task-file';
import { SimulationParameters, SIMULATION_PARAMETERS } from './parameters';
import { readSchema, SimulatedCodeGenerator } from './simulated-generator';
import { SimulatedJudge } from './simulated-judge';

/** Largest result (rows) the per-process memo keeps. */
const MEMO_MAX_ROWS = 1000;
const memos = new WeakMap<BetterSqlite3.Database, Map<string, unknown[] | Error>>();
/** Per database handle: whether a mutated query's answer differs from its task's (any result size; see SimulatedCodeGenerator). */
const verdictMemos = new WeakMap<BetterSqlite3.Database, Map<string, boolean>>();

/** The memo of one database handle's query results (the simulated agent's mutation checks). */
function resultsOf(db: BetterSqlite3.Database): Map<string, unknown[] | Error> {
  let m = memos.get(db);
  if (!m) memos.set(db, (m = new Map()));
  return m;
}

/**
 * @example
 * const deps = withSimulatedAgent(session.deps, session.db, tasks, seed);
 * await runBench(plan, { addition: 'coarse', maxDebugRounds: SIMULATION_PARAMETERS.maxDebugRounds }, deps);
 */
export function withSimulatedAgent(deps: BenchDeps, db: BetterSqlite3.Database, tasks: readonly BenchTask[], seed: number, params: SimulationParameters = SIMULATION_PARAMETERS, options: { memo?: boolean } = {}): BenchDeps {
  const results = resultsOf(db);
  const query = (sql: string): unknown => {
    let r = results.get(sql);
    if (r === undefined) {
      try {
        r = db.prepare(toEhrSqlDialect(sql, DEFAULT_NOW)).raw().all();
      } catch (error) {
        r = error instanceof Error ? error : new Error(String(error));
      }
      // The database is read-only and "now" fixed: a query's result never changes, so every seed and cell of the process shares it (small results only).
      if (!Array.isArray(r) || r.length <= MEMO_MAX_ROWS) results.set(sql, r);
    }
    if (r instanceof Error) throw r;
    return r;
  };
  let verdicts = verdictMemos.get(db);
  if (!verdicts) verdictMemos.set(db, (verdicts = new Map()));
  const generator = new SimulatedCodeGenerator(tasks, params, seed, readSchema(db), new DatabaseValueLookup(db), query, options.memo === false ? undefined : verdicts);
  return { ...deps, generator, judge: new SimulatedJudge(tasks, params, seed) };
}
