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

/**
 * @example
 * const deps = withSimulatedAgent(session.deps, session.db, tasks, seed);
 * await runBench(plan, { addition: 'coarse', maxDebugRounds: SIMULATION_PARAMETERS.maxDebugRounds }, deps);
 */
export function withSimulatedAgent(deps: BenchDeps, db: BetterSqlite3.Database, tasks: readonly BenchTask[], seed: number, params: SimulationParameters = SIMULATION_PARAMETERS): BenchDeps {
  const statements = new Map<string, BetterSqlite3.Statement>();
  const query = (sql: string): unknown => {
    let st = statements.get(sql);
    if (!st) statements.set(sql, (st = db.prepare(toEhrSqlDialect(sql, DEFAULT_NOW))));
    return st.raw().all();
  };
  const generator = new SimulatedCodeGenerator(tasks, params, seed, readSchema(db), new DatabaseValueLookup(db), query);
  return { ...deps, generator, judge: new SimulatedJudge(tasks, params, seed) };
}
