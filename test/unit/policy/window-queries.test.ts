import { strict as assert } from 'node:assert';
import { deletionQueries, NaiveRetrievalRow } from '../../../src/core/memory/sqlite/queries/deletion-candidates';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { TaskLog } from '../../../src/core/memory/sqlite/task-log';
import type { PeriodicBounds } from '../../../src/core/policy/names';
import { seededRandom } from '../../../src/core/random';
import { sampleRecord } from '../../support/records';

interface RecordState {
  rid: number;
  id: string;
  status: string;
  provenance: string;
  created_task: number;
  retrieval_count: number;
  utility_sum: number;
  utility_count: number;
}

/** A memory with a random retrieval history: 150 records made over 600 tasks, some deleted, some seeds; 1–6 retrievals per task, half evaluated. */
function randomHistory(seed: number): { store: MemoryStore; records: () => RecordState[]; retrievals: NaiveRetrievalRow[] } {
  const random = seededRandom(seed);
  const store = MemoryStore.open(':memory:');
  const added = store.add(
    Array.from({ length: 150 }, (_, i) => sampleRecord({ id: `r${i}`, provenance: i % 5 === 0 ? 'seed' : 'agent', createdTask: Math.floor(random() * 600), status: 'active' })),
    { trigger: 'import' },
  );
  const tasks = new TaskLog(store);
  for (let t = 1; t <= 600; t++) {
    const index = tasks.begin(`task ${t}`);
    const picked = [...new Set(Array.from({ length: 1 + Math.floor(random() * 6) }, () => added[Math.floor(random() * random() * added.length)].id))];
    tasks.logRetrievals(index, picked.map((recordId, rank) => ({ recordId, rank, inputSimilarity: random() })));
    if (random() < 0.5) tasks.setUtility(index, random() < 0.4 ? 1 : 0, 'test');
  }
  store.transition(added.filter(() => random() < 0.1).map((r) => r.id), 'delete', { trigger: 'user' });
  const q = deletionQueries(store);
  const db = store.connectionForQueries();
  return {
    store,
    records: () => db.prepare('SELECT rid, id, status, provenance, created_task, retrieval_count, utility_sum, utility_count FROM records').all() as RecordState[],
    retrievals: [...q.scanRetrievals()],
  };
}

/** Retrievals of `rid` in the window, counted row by row. */
function inWindow(retrievals: readonly NaiveRetrievalRow[], rid: number, t: number, start: number, bounds: PeriodicBounds): number {
  return retrievals.filter((r) => r.rid === rid && (bounds === 'closed' ? r.task_index >= start : r.task_index > start) && r.task_index <= t).length;
}

const oldestFirst = (a: RecordState, b: RecordState) => a.created_task - b.created_task || a.rid - b.rid;

describe('deletion queries: the periodic window counted per record, checked row by row', () => {
  for (const seed of [1, 2, 3]) {
    it(`periodic, combined, history (not periodic) and least-utility queries select as a row-by-row count says (seed ${seed})`, () => {
      const h = randomHistory(seed);
      const q = deletionQueries(h.store);
      const records = h.records();
      let periodicSeen = 0;
      let historySeen = 0;
      for (const t of [250, 400, 600, 550]) {
        for (const period of [50, 200]) {
          for (const alpha of [0, 1, 3]) {
            for (const periodicBounds of ['half-open', 'closed'] as const) {
              for (const protectSeeds of [false, true]) {
                const start = t - period;
                const p = { taskIndex: t, period, alpha, protectSeeds, periodicBounds, minRetrievals: 3, beta: 0.5, eps: 1e-9 };
                const live = records.filter((r) => r.status === 'active' && !(protectSeeds && r.provenance === 'seed'));
                const count = (r: RecordState) => inWindow(h.retrievals, r.rid, t, start, periodicBounds);
                const periodic = (r: RecordState) => r.created_task <= start && count(r) <= alpha;
                const history = (r: RecordState) => r.utility_count >= 3 && r.utility_sum / r.utility_count <= 0.5 + 1e-9;
                const label = `t ${t}, period ${period}, α ${alpha}, ${periodicBounds}, seeds ${protectSeeds ? 'kept' : 'not kept'}`;

                const expectedPeriodic = live.filter(periodic).sort(oldestFirst);
                const gotPeriodic = q.periodicCandidates(p, 1000);
                assert.deepEqual(gotPeriodic.rows.map((r) => [r.id, r.in_window]), expectedPeriodic.map((r) => [r.id, count(r)]), `periodic: ${label}`);
                periodicSeen += expectedPeriodic.length;

                const expectedCombined = live.filter((r) => periodic(r) || history(r)).sort(oldestFirst);
                const gotCombined = q.combinedCandidates({ ...p, mode: 'either' }, 1000);
                assert.deepEqual(
                  gotCombined.rows.map((r) => [r.id, r.in_window, r.periodic_hit, r.history_hit]),
                  expectedCombined.map((r) => [r.id, count(r), periodic(r) ? 1 : 0, history(r) ? 1 : 0]),
                  `combined: ${label}`,
                );
                const both = q.combinedCandidates({ ...p, mode: 'both' }, 1000).rows.map((r) => r.id);
                assert.deepEqual(both, live.filter((r) => periodic(r) && history(r)).sort(oldestFirst).map((r) => r.id), `combined (both): ${label}`);

                const expectedHistoryOnly = live.filter((r) => history(r) && !periodic(r)).sort(oldestFirst);
                const gotHistoryOnly = q.historyCandidates(p, 1000, undefined, { notPeriodic: p });
                assert.deepEqual(gotHistoryOnly.rows.map((r) => [r.id, r.in_window]), expectedHistoryOnly.map((r) => [r.id, count(r)]), `history, not periodic: ${label}`);
                historySeen += expectedHistoryOnly.length;

                // Limits: the first rows, and the number the condition holds for.
                if (expectedCombined.length > 2) {
                  const limited = q.combinedCandidates({ ...p, mode: 'either' }, 2);
                  assert.deepEqual(limited.rows.map((r) => r.id), expectedCombined.slice(0, 2).map((r) => r.id));
                  assert.equal(limited.total, expectedCombined.length);
                }

                const kept = live.filter((r) => !periodic(r));
                const least = [...kept].sort((a, b) => Number(a.utility_count === 0) - Number(b.utility_count === 0) || a.utility_sum / Math.max(a.utility_count, 1) - b.utility_sum / Math.max(b.utility_count, 1) || a.retrieval_count - b.retrieval_count || oldestFirst(a, b))[0];
                assert.equal(q.leastUtilityRecord(p)?.id, least?.id, `least utility: ${label}`);
              }
            }
          }
        }
      }
      assert.ok(periodicSeen > 100 && historySeen > 50, `both rules selected records (${periodicSeen} periodic, ${historySeen} history-only)`);
      h.store.close();
    });
  }

  for (const seed of [4, 5]) {
    it(`history candidates of an id list (the records one task credited): the rows, order and total a row-by-row check gives (seed ${seed})`, () => {
      const h = randomHistory(seed);
      const q = deletionQueries(h.store);
      const records = h.records();
      const random = seededRandom(seed * 7);
      const worstFirst = (a: RecordState, b: RecordState) => a.utility_sum / a.utility_count - b.utility_sum / b.utility_count || b.utility_count - a.utility_count || oldestFirst(a, b);
      let seen = 0;
      for (let round = 0; round < 60; round++) {
        // Any ids: active, deleted, unknown, named twice.
        const ids = Array.from({ length: 1 + Math.floor(random() * 8) }, () => (random() < 0.1 ? 'unknown' : records[Math.floor(random() * records.length)].id));
        ids.push(ids[0]);
        const protectSeeds = random() < 0.5;
        const p = { minRetrievals: 2, beta: 0.5, eps: 1e-9, protectSeeds };
        const selected = records.filter((r) => ids.includes(r.id) && r.status === 'active' && !(protectSeeds && r.provenance === 'seed') && r.utility_count >= 2 && r.utility_sum / r.utility_count <= 0.5 + 1e-9);
        for (const order of ['oldest', 'worst'] as const) {
          const expected = [...selected].sort(order === 'worst' ? worstFirst : oldestFirst).map((r) => r.id);
          for (const limit of [1, 2, 1000]) {
            const got = q.historyCandidates(p, limit, ids, { order });
            assert.deepEqual(got.rows.map((r) => r.id), expected.slice(0, limit), `${order}, limit ${limit}, ids ${ids.join(' ')}`);
            assert.equal(got.total, expected.length);
            for (const r of got.rows) assert.equal(r.question, h.store.get(r.id)?.question, 'each row carries its question');
          }
        }
        // The relative threshold (Wilson upper bound below the running accuracy) on the same ids.
        const relative = q.historyCandidates({ ...p, threshold: 'relative', accuracy: 0.6, z: 1.96 }, 1000, ids);
        const wilson = (r: RecordState) => { const d = r.utility_sum - 0.6 * r.utility_count; return r.utility_count >= 2 && d < 0 && d * d > 1.96 * 1.96 * 0.6 * 0.4 * r.utility_count; };
        assert.deepEqual(relative.rows.map((r) => r.id), records.filter((r) => ids.includes(r.id) && r.status === 'active' && !(protectSeeds && r.provenance === 'seed') && wilson(r)).sort(oldestFirst).map((r) => r.id));
        seen += selected.length;
      }
      assert.ok(seen > 20, `the rule selected records in some rounds (${seen})`);
      h.store.close();
    });
  }

  it('a record last retrieved at the window\'s first task is in a closed window and out of a half-open one; one retrieved before it is in neither', () => {
    const store = MemoryStore.open(':memory:');
    store.add(['edge', 'before', 'inside', 'never'].map((id) => sampleRecord({ id, createdTask: 0, status: 'active' })), { trigger: 'import' });
    const tasks = new TaskLog(store);
    const retrieved: Record<number, string> = { 9: 'before', 10: 'edge', 15: 'inside' };
    for (let t = 1; t <= 20; t++) {
      const index = tasks.begin(`task ${t}`);
      if (retrieved[t]) tasks.logRetrievals(index, [{ recordId: retrieved[t], rank: 0, inputSimilarity: 0.5 }]);
    }
    const q = deletionQueries(store);
    // t 20, period 10: the window is (10, 20] or [10, 20].
    const ids = (periodicBounds: PeriodicBounds) => q.periodicCandidates({ taskIndex: 20, period: 10, alpha: 0, protectSeeds: false, periodicBounds }, 10).rows.map((r) => r.id).sort();
    assert.deepEqual(ids('half-open'), ['before', 'edge', 'never']);
    assert.deepEqual(ids('closed'), ['before', 'never']);
    // A dry run at an earlier task does not count retrievals after it: at t 14, (4, 14] holds 'before' and 'edge', not 'inside'.
    assert.deepEqual(q.periodicCandidates({ taskIndex: 14, period: 10, alpha: 0, protectSeeds: false }, 10).rows.map((r) => r.id).sort(), ['inside', 'never']);
    store.close();
  });
});
