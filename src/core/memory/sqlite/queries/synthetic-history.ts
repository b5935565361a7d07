import type { MemoryStore } from '../store';

/**
 * Builds a large synthetic memory history directly in SQL (one transaction,
 * prepared bulk inserts), with the per-record counters consistent with the
 * retrieval log. Used by `npm run bench:policies`; not for product data. Runs ANALYZE at the end.
 *
 * Shape: `records` records created uniformly over `tasks` tasks (the first
 * `seeds` at task 0 with provenance 'seed'); each task retrieves `k` distinct
 * records already created (half uniformly, half biased toward recent ones);
 * every retrieval gets Φ ~ Bernoulli(quality of the record), where 80% of the
 * records are good (quality 0.85) and 20% bad (quality 0.2). Every task has its row in the task
 * log, evaluated with the Φ of its first retrieval (tasks without one are not evaluated), so the
 * running accuracy of the relative threshold reads a task log of `tasks` rows. Deterministic (seeded).
 *
 * @example
 * buildSyntheticHistory(store, { records: 100_000, tasks: 250_000, k: 4 });
 */
export function buildSyntheticHistory(store: MemoryStore, options: { records: number; tasks: number; k?: number; seeds?: number; seed?: number }): { retrievals: number } {
  const { records, tasks } = options;
  const k = options.k ?? 4;
  const seeds = Math.min(options.seeds ?? 100, records);
  let state = (options.seed ?? 42) >>> 0;
  const rand = (): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
  const createdTask = new Int32Array(records);
  for (let i = 0; i < records; i++) createdTask[i] = i < seeds ? 0 : Math.floor(((i - seeds + 1) * tasks) / (records - seeds + 1));
  const quality = new Float64Array(records);
  for (let i = 0; i < records; i++) quality[i] = rand() < 0.8 ? 0.85 : 0.2;
  const count = new Int32Array(records);
  const utilSum = new Float64Array(records);
  const inSimSum = new Float64Array(records);
  const last = new Int32Array(records).fill(-1);
  const db = store.connectionForQueries();
  const now = new Date().toISOString();
  const insertTask = db.prepare('INSERT INTO tasks (task_index, question, utility, evaluator, started_at, finished_at) VALUES (?, ?, ?, ?, ?, ?)');
  const insertRetrieval = db.prepare('INSERT INTO retrievals (task_index, rid, rank, input_similarity, utility) VALUES (?, ?, ?, ?, ?)');
  const insertRecord = db.prepare(`INSERT INTO records (rid, id, question, code, language, answer, outcome, status, provenance, created_task, created_at, updated_at,
    retrieval_count, utility_sum, utility_count, last_retrieved_task, in_sim_sum, in_sim_count) VALUES (?, ?, ?, ?, 'python', '[[1]]', 'success', 'active', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const cap = tasks * k;
  const rTask = new Int32Array(cap);
  const rRid = new Int32Array(cap);
  const rRank = new Int8Array(cap);
  const rSim = new Float64Array(cap);
  const rPhi = new Uint8Array(cap);
  let retrievals = 0;
  let available = seeds; // records with created_task < t form the prefix [0, available)
  const chosen = new Set<number>();
  for (let t = 1; t <= tasks; t++) {
    while (available < records && createdTask[available] <= t - 1) available++;
    if (available === 0) continue;
    chosen.clear();
    const want = Math.min(k, available);
    while (chosen.size < want) {
      const u = rand();
      const i = rand() < 0.5 ? Math.floor(u * available) : available - 1 - Math.floor(u * u * u * available);
      chosen.add(Math.min(available - 1, Math.max(0, i)));
    }
    let rank = 0;
    for (const i of chosen) {
      const phi = rand() < quality[i] ? 1 : 0;
      const sim = 0.5 + 0.5 * rand();
      rTask[retrievals] = t;
      rRid[retrievals] = i + 1;
      rRank[retrievals] = rank++;
      rSim[retrievals] = sim;
      rPhi[retrievals] = phi;
      count[i]++;
      utilSum[i] += phi;
      inSimSum[i] += sim;
      last[i] = t;
      retrievals++;
    }
  }
  db.transaction(() => {
    for (let i = 0; i < records; i++) {
      insertRecord.run(
        i + 1,
        `syn-${i + 1}`,
        `synthetic question ${i + 1} about admissions and lab events`,
        `answer = sql("select count(*) from admissions where subject_id = ${i}")`,
        i < seeds ? 'seed' : 'agent',
        createdTask[i],
        now,
        now,
        count[i],
        utilSum[i],
        count[i],
        last[i] < 0 ? null : last[i],
        inSimSum[i],
        count[i], // every synthetic retrieval has an input similarity
      );
    }
    for (let j = 0; j < retrievals; j++) insertRetrieval.run(rTask[j], rRid[j], rRank[j], rSim[j], rPhi[j]);
    for (let t = 1, j = 0; t <= tasks; t++) {
      while (j < retrievals && rTask[j] < t) j++;
      const evaluated = j < retrievals && rTask[j] === t;
      insertTask.run(t, `synthetic task ${t}`, evaluated ? rPhi[j] : null, evaluated ? 'strict:ground-truth' : null, now, now);
    }
    db.prepare('INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)').run('next_task_index', String(tasks + 1));
  }).immediate();
  db.exec('ANALYZE'); // planner statistics for the covering indexes
  return { retrievals };
}
