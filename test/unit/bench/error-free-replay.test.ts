import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { runBench } from '../../../src/core/bench/harness';
import { cellConfig } from '../../../src/core/bench/paper-cells';
import { createBenchSession, BenchSession } from '../../../src/core/bench/session';
import { withSimulatedAgent } from '../../../src/core/bench/sim/simulated-agent';
import { SIMULATION_PARAMETERS } from '../../../src/core/bench/sim/parameters';
import { planPaperStream } from '../../../src/core/bench/stream-setup';
import { readTaskFile, BenchTask } from '../../../src/core/bench/task-file';

const DATA = path.resolve(__dirname, '..', '..', '..', 'data', 'ehr');

/** The error-free variant through the real harness, runner (Python sandbox) and database, with the simulated agent. */
describe('bench: error-free variant = the paper\'s controlled replay', function () {
  this.timeout(180_000);
  let session: BenchSession;
  let tasks: BenchTask[];
  before(() => {
    tasks = readTaskFile(path.join(DATA, 'ehrsql-mimic3-tasks.jsonl'));
    session = createBenchSession({ databasePath: path.join(DATA, 'mimic3-demo.sqlite'), language: 'python' });
  });
  after(() => session.dispose());

  it('replays add-all\'s retrievals, adds every task, and stores the ground truth', async () => {
    const seed = 3;
    const plan = planPaperStream(tasks, { initialMemory: 100, seed, limit: 6 });
    const deps = withSimulatedAgent(session.deps, session.db, tasks, seed, { ...SIMULATION_PARAMETERS, competenceMean: 0.3 });
    const base = { seed, language: 'python' as const, maxDebugRounds: 1 };
    const all = await runBench(plan, cellConfig({ addition: 'all', deletion: 'none', variant: 'standard', attribution: 'shown' }, base), deps);
    const errorFree = await runBench(plan, cellConfig({ addition: 'all', deletion: 'none', variant: 'error-free', attribution: 'shown' }, base), deps);
    // Same retrievals per task: the same top input similarity for every task.
    assert.deepEqual(errorFree.rows.map((r) => r.inputSimilarity), all.rows.map((r) => r.inputSimilarity));
    assert.ok(errorFree.rows.every((r) => r.added), 'every task is added');
    assert.equal(errorFree.rows.at(-1)!.memorySize, 100 + plan.stream.length);
    assert.equal(errorFree.config.errorFree, true);
  });
});
