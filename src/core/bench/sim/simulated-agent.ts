/**
 * SIMULATION — wires the simulated agent (generator + coarse judge) into a
 * benchmark session's dependencies for one seed.
 */
import type BetterSqlite3 from 'better-sqlite3';
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
  const generator = new SimulatedCodeGenerator(tasks, params, seed, readSchema(db), new DatabaseValueLookup(db));
  return { ...deps, generator, judge: new SimulatedJudge(tasks, params, seed) };
}
