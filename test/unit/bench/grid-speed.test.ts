import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { ActiveTemplates } from '../../../src/core/bench/active-templates';
import { BoundedMemo, memoCodeSimilarity } from '../../../src/core/bench/grid-memo';
import { paperCells, cellKey } from '../../../src/core/bench/paper-cells';
import { CellSeedResult, gridMemoStats, runSeed, SeedJob } from '../../../src/core/bench/paper-seed';
import { createBenchSession, BenchSession } from '../../../src/core/bench/session';
import { readTaskFile, BenchTask } from '../../../src/core/bench/task-file';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { codeSimilarity } from '../../../src/core/similarity/code';

const DATA = path.resolve(__dirname, '..', '..', '..', 'data', 'ehr');

/** Everything a cell reports except how long it took and how the run cache answered. */
function figures(r: CellSeedResult): Omit<CellSeedResult, 'durationMs' | 'cpuMs' | 'profile' | 'cacheHits' | 'cacheMisses'> {
  const { durationMs: _d, cpuMs: _c, profile: _p, cacheHits: _h, cacheMisses: _m, ...rest } = r;
  return rest;
}

async function collect(job: SeedJob, session: BenchSession, tasks: BenchTask[], memo: boolean): Promise<CellSeedResult[]> {
  const out: CellSeedResult[] = [];
  for await (const r of runSeed(job, session, tasks, { memo })) out.push(r);
  return out;
}

describe('bench: the grid speed-ups keep every figure', function () {
  this.timeout(600_000);
  let session: BenchSession;
  let tasks: BenchTask[];
  before(() => {
    tasks = readTaskFile(path.join(DATA, 'ehrsql-mimic3-tasks.jsonl'));
    session = createBenchSession({ databasePath: path.join(DATA, 'mimic3-demo.sqlite'), language: 'python' });
  });
  after(() => session.dispose());

  it('same seed → the same cell results with the memos (code similarity, mutation verdicts) as without', async () => {
    const wanted = ['strict/combined/standard/top-output/relative', 'coarse/history/standard/followed', 'all/periodic/standard/shown', 'strict/combined/capacity/shown', 'strict/history/shift/shown'];
    const cells = paperCells().filter((c) => wanted.includes(cellKey(c)));
    assert.equal(cells.length, wanted.length);
    // A short window so that periodic, history and capacity deletions all happen within the limit.
    const job: SeedJob = { agent: 'simulated', seed: 11, cells, language: 'python', limit: 45, period: 8 };
    const plain = await collect(job, session, tasks, false);
    const before = gridMemoStats().codeSimilarity.hits;
    const fast = await collect(job, session, tasks, true);
    assert.ok(gridMemoStats().codeSimilarity.hits > before, 'the memoised path was taken');
    assert.deepEqual(fast.map(figures), plain.map(figures));
    assert.ok(plain.some((r) => r.memoryCurve.some((m, i) => i > 0 && m < plain[0].memoryCurve[i - 1])), 'some cell deleted records');
  });

  it('ActiveTemplates agrees with the store query through adds, deletes, restores and purges', () => {
    const store = MemoryStore.open(':memory:');
    const templates = new ActiveTemplates(store);
    try {
      const add = (question: string, template?: string): string =>
        store.add([{ question, execution: { code: `answer = ${JSON.stringify(question)}`, language: 'python', answer: null, outcome: 'success' }, metadata: template ? { template } : {} }], { trigger: 'import' })[0].id;
      const a = add('q a', 't1');
      const b = add('q b', 't1');
      const c = add('q c', 't2');
      add('q d');
      const agree = (): void => {
        for (const t of ['t1', 't2', 't3']) assert.equal(templates.has(t), store.queries.activeWithTemplate(t) > 0, t);
      };
      agree();
      store.transition([a], 'delete', { trigger: 'rule:test', reason: 'test' });
      agree();
      store.transition([b, c], 'delete', { trigger: 'rule:test', reason: 'test' });
      agree();
      assert.equal(templates.has('t1'), false);
      store.transition([b], 'restore', { trigger: 'user', reason: 'test' });
      agree();
      assert.equal(templates.has('t1'), true);
      store.transition([c], 'purge', { trigger: 'user', reason: 'test' });
      agree();
      // Opened over an existing memory: counts what is already active.
      const late = new ActiveTemplates(store);
      assert.equal(late.has('t1'), true);
      assert.equal(late.has('t2'), false);
      late.dispose();
    } finally {
      templates.dispose();
      store.close();
    }
  });

  it('the code-similarity memo returns what codeSimilarity returns, and starts over when full', () => {
    const memo = new BoundedMemo<number>(2);
    const sim = memoCodeSimilarity(codeSimilarity, memo);
    const a = 'answer = sql("select 1")';
    const b = 'query = "select 2"\nanswer = sql(query)';
    assert.equal(sim(a, b, 'python'), codeSimilarity(a, b, 'python'));
    assert.equal(sim(a, b, 'python'), codeSimilarity(a, b, 'python'));
    assert.equal(sim(b, a, 'python'), codeSimilarity(b, a, 'python'));
    assert.deepEqual([memo.hits, memo.misses], [1, 2]);
    sim(a, a, 'python');
    sim(a, b, 'python');
    assert.deepEqual([memo.hits, memo.misses], [1, 4], 'the full memo started over');
  });
});
