import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { run } from '../../../src/cli/commands/bench';
import { goldProgram } from '../../../src/core/data/gold-program';
import { runBench, BenchRun } from '../../../src/core/bench/harness';
import { shiftOrder } from '../../../src/core/bench/kmeans';
import type { BenchMetrics } from '../../../src/core/bench/metrics';
import { createBenchSession } from '../../../src/core/bench/session';
import { readTaskFile } from '../../../src/core/bench/task-file';
import { planTasks } from '../../../src/core/bench/task-plan';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { TaskLog } from '../../../src/core/memory/sqlite/task-log';
import { DEFAULT_FORGETTING_THRESHOLD, DEFAULT_FORGETTING_TIME_SCALE, retention } from '../../../src/core/policy/deletion';
import { HashingEmbedder } from '../../../src/core/similarity/hashing-embedder';

const DATA = path.resolve(__dirname, '..', '..', '..', 'data', 'ehr');
const DB = path.join(DATA, 'mimic3-demo.sqlite');
const STREAM = 21;
const SEEDS = 6;

interface Line {
  question: string;
  gold_sql: string;
  template: string;
  answer_status: string;
}

/** Memory accounting every run must satisfy, whatever the variant. */
function assertAccounting(m: BenchMetrics, tasks: number): void {
  assert.equal(m.rows.length, tasks);
  assert.equal(m.initial_memory_size, SEEDS);
  let size = SEEDS;
  m.rows.forEach((r, i) => {
    size += (r.added ? 1 : 0) - r.deleted;
    assert.equal(r.memorySize, size, `task ${i + 1}`);
    assert.equal(m.memory_size_curve[i], size);
  });
  assert.equal(m.memory_size_final, size);
  assert.equal(m.records_deleted, m.rows.reduce((s, r) => s + r.deleted, 0));
}

/**
 * The benchmark variants through the real CLI / harness, the offline reuse
 * model, the real JavaScript sandbox, store and policies on real EHR tasks:
 * error-free, distribution shift, capacity and forgetting.
 */
describe('bench: variants (error-free, shift order, capacity, forgetting)', function () {
  this.timeout(40_000);
  let dir: string;
  let tasksFile: string;
  let stream: Line[];

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-variants-'));
    const lines = fs.readFileSync(path.join(DATA, 'ehrsql-mimic3-tasks.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Line);
    const nonempty = lines.filter((l) => l.answer_status === 'nonempty');
    stream = nonempty.slice(0, STREAM);
    const templates = new Set(stream.map((l) => l.template));
    const pool = nonempty.slice(STREAM + 5).filter((l) => templates.has(l.template)).slice(0, SEEDS).map((l) => ({ ...l, answer_status: 'seed-pool' }));
    assert.equal(pool.length, SEEDS);
    tasksFile = path.join(dir, 'tasks.jsonl');
    fs.writeFileSync(tasksFile, [...stream, ...pool].map((l) => JSON.stringify(l)).join('\n') + '\n');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function cli(name: string, extra: string[]): Promise<BenchMetrics> {
    const out = path.join(dir, name);
    const stdout = process.stdout.write.bind(process.stdout);
    process.stdout.write = (() => true);
    let code: number;
    try {
      code = await run(['--tasks', tasksFile, '--db', DB, '--initial-memory', String(SEEDS), '--language', 'javascript', '--quiet', '--out', out, ...extra]);
    } finally {
      process.stdout.write = stdout;
    }
    assert.equal(code, 0);
    return JSON.parse(fs.readFileSync(path.join(out, 'metrics.json'), 'utf8')) as BenchMetrics;
  }

  /** Runs the harness with the reuse model, keeping the store in a file; returns the run and the store (caller closes). */
  async function harness(name: string, config: { errorFree: boolean }): Promise<{ result: BenchRun; store: MemoryStore }> {
    const plan = planTasks(readTaskFile(tasksFile), { initialMemory: SEEDS, seed: 7, limit: 12 });
    const session = createBenchSession({ databasePath: DB, language: 'javascript' });
    const storePath = path.join(dir, `${name}.sqlite`);
    try {
      const result = await runBench(plan, { addition: 'all', language: 'javascript', initialMemory: SEEDS, limit: 12, errorFree: config.errorFree }, { ...session.deps, storePath });
      return { result, store: MemoryStore.open(storePath) };
    } finally {
      session.dispose();
    }
  }

  it('--error-free stores the ground-truth program even where the agent wrote other code', async () => {
    const goldById = new Map(readTaskFile(tasksFile).map((t) => [t.id, goldProgram(t.goldSql, 'javascript')]));
    for (const errorFree of [true, false]) {
      const { result, store } = await harness(errorFree ? 'error-free' : 'agent-output', { errorFree });
      try {
        assert.equal(result.rows.length, 12);
        const agentCode = new Map(new TaskLog(store).list({ limit: 100 }).map((t) => [t.recordId, t.code]));
        const added = store.list({ limit: 1000 }).items.filter((r) => r.provenance === 'agent');
        assert.equal(added.length, 12, 'add-all adds every task');
        let differed = 0;
        for (const record of added) {
          const gold = goldById.get(String(record.metadata.taskId))!;
          const agent = agentCode.get(record.id);
          assert.equal(typeof agent, 'string', 'the task log links the record');
          if (agent !== gold) differed++;
          assert.equal(record.execution.code, errorFree ? gold : agent, `record of task ${String(record.metadata.taskId)}`);
          assert.equal(record.metadata.source, errorFree ? 'bench-error-free' : 'bench-agent');
        }
        assert.ok(differed >= 3, `the reuse model's adapted code differs from the gold program on several tasks (${differed})`);
        if (errorFree) assert.ok(result.rows.some((r) => r.correct === 0), 'some agent answers were wrong, yet the stored program is gold');
      } finally {
        store.close();
      }
    }
  });

  it('--order shift runs the tasks group by group: 3 k-means groups of the task embeddings, deterministic for a seed', async () => {
    const a = await cli('shift-a', ['--addition', 'strict', '--order', 'shift', '--seed', '11']);
    const b = await cli('shift-b', ['--addition', 'strict', '--order', 'shift', '--seed', '11']);
    assertAccounting(a, STREAM);
    assert.deepEqual(b.rows.map((r) => [r.id, r.group]), a.rows.map((r) => [r.id, r.group]), 'same seed ⇒ same order');

    // Same tasks as the file's stream, reordered group by group, file order kept inside a group.
    const lineOf = new Map(stream.map((l, i) => [l.question, i]));
    assert.deepEqual(a.rows.map((r) => r.question).sort(), stream.map((l) => l.question).sort());
    const groups = a.rows.map((r) => r.group!);
    assert.deepEqual([...new Set(groups)], [0, 1, 2], 'three groups, run in order');
    for (let i = 1; i < a.rows.length; i++) {
      if (groups[i] === groups[i - 1]) assert.ok(lineOf.get(a.rows[i].question)! > lineOf.get(a.rows[i - 1].question)!, 'file order inside a group');
    }
    assert.deepEqual(a.group_starts, [1, groups.indexOf(1) + 1, groups.indexOf(2) + 1]);
    assert.notDeepEqual(a.rows.map((r) => r.question), stream.map((l) => l.question), 'the shift order is not the file order');

    // The grouping is shiftOrder's over the harness's embeddings of the questions …
    const embedder = new HashingEmbedder();
    const vectors = stream.map((l) => embedder.embedSync(l.question));
    const expected = shiftOrder(vectors, 3, 11);
    assert.deepEqual(a.rows.map((r) => r.question), expected.order.map((i) => stream[i].question));
    // … and a k-means fixed point: every task is nearest to the mean of its own group.
    const dim = vectors[0].length;
    const means = [0, 1, 2].map((g) => {
      const members = a.rows.map((r, i) => (groups[i] === g ? vectors[lineOf.get(r.question)!] : null)).filter((v): v is Float32Array => v !== null);
      const m = new Float64Array(dim);
      for (const v of members) for (let d = 0; d < dim; d++) m[d] += v[d] / members.length;
      return m;
    });
    const dist = (v: Float32Array, m: Float64Array) => v.reduce((s, x, d) => s + (x - m[d]) ** 2, 0);
    a.rows.forEach((r, i) => {
      const v = vectors[lineOf.get(r.question)!];
      const own = dist(v, means[groups[i]]);
      for (const g of [0, 1, 2]) assert.ok(own <= dist(v, means[g]) + 1e-9, `task ${r.position} is nearest to its group's mean`);
    });
  });

  it('--capacity N keeps the active memory at most N after every task', async () => {
    const capacity = 10;
    const m = await cli('capacity', ['--addition', 'all', '--capacity', String(capacity), '--limit', '12']);
    assertAccounting(m, 12);
    assert.equal(m.config.capacity, capacity);
    assert.ok(m.rows.every((r) => r.added), 'add-all adds every task');
    m.memory_size_curve.forEach((size, i) => assert.ok(size <= capacity, `task ${i + 1}: ${size} active records > ${capacity}`));
    assert.equal(Math.max(...m.memory_size_curve), capacity, 'the cap is reached');
    // Without a capacity the same run grows past it: deletions are the cap's doing.
    assert.ok(m.records_deleted >= SEEDS + 12 - capacity);
    const uncapped = await cli('uncapped', ['--addition', 'all', '--limit', '12']);
    assert.equal(uncapped.memory_size_final, SEEDS + 12);
    assert.equal(uncapped.records_deleted, 0);
  });

  it('--deletion forgetting runs past its 20-task schedule and keeps records that are still retained', async () => {
    const m = await cli('forgetting', ['--addition', 'all', '--deletion', 'forgetting']);
    assertAccounting(m, STREAM);
    assert.equal(m.config.deletion, 'forgetting');
    assert.ok(m.rows.every((r) => r.added));
    // At task 20 no record is older than 20 tasks, so its retention is above the threshold: nothing is forgotten.
    assert.ok(retention({ deltaTasks: 20, retrievals: 0, timeScale: DEFAULT_FORGETTING_TIME_SCALE }) > DEFAULT_FORGETTING_THRESHOLD);
    assert.equal(m.records_deleted, 0);
    assert.equal(m.memory_size_final, SEEDS + STREAM);
  });
});
