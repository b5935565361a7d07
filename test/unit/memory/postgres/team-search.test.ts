import * as assert from 'node:assert/strict';
import { Client } from 'pg';
import { benchRecords } from '../../../../src/cli/team/bench-team-data';
import { explainSearch, KEYWORD_CANDIDATES, searchTeam, SMALL_SPACE_ROWS } from '../../../../src/core/memory/postgres/team-search';
import { setupTeamMemory } from '../../../../src/core/memory/postgres/team-setup';
import { TeamMemoryStore } from '../../../../src/core/memory/postgres/team-store';
import { sweepTeam } from '../../../../src/core/memory/postgres/team-sweep';
import { beginTeamTask, logTeamRetrievals, setTeamUtility } from '../../../../src/core/memory/postgres/team-utility';
import { writeTeam } from '../../../../src/core/memory/postgres/transfer';
import { superuserMemoryUrl, usePostgres } from '../../../support/postgres';
import { sampleRecord, unitVector } from '../../../support/records';

/** term → df of the space as the triggers keep it ('' = active records; rows at 0 left out). */
async function storedStats(c: Client, space: string): Promise<Map<string, number>> {
  const r = await c.query<{ term: string; df: string }>('SELECT term, df FROM term_stats WHERE space = $1 AND df <> 0', [space]);
  return new Map(r.rows.map((row) => [row.term, Number(row.df)]));
}

/** The same, recomputed from the records. */
async function recomputedStats(c: Client, space: string): Promise<Map<string, number>> {
  const r = await c.query<{ term: string; df: string }>(
    `SELECT term, count(*) AS df FROM (SELECT t AS term FROM records, unnest(tsvector_to_array(tsv)) t WHERE space = $1 AND status = 'active'
       UNION ALL SELECT '' FROM records WHERE space = $1 AND status = 'active') x GROUP BY term`,
    [space],
  );
  return new Map(r.rows.map((row) => [row.term, Number(row.df)]));
}

const sorted = (m: Map<string, number>): [string, number][] => [...m.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));

describe('team memory keyword search bounded by term statistics (real server)', function () {
  this.timeout(120_000);
  const pg = usePostgres();
  const open: { close(): Promise<void> }[] = [];
  let su: Client;
  const connect = async (space: string, url = pg().appUrl, client = 'vscode@laptop'): Promise<TeamMemoryStore> => {
    const s = await TeamMemoryStore.connect({ url, space, user: 'alice', client });
    open.push(s);
    return s;
  };

  before(async () => {
    await setupTeamMemory(pg().ownerUrl, { dimensions: [16] });
    su = new Client({ connectionString: superuserMemoryUrl(pg()) });
    await su.connect();
  });
  after(async () => {
    await su?.end();
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });

  it('plans candidates from the rarest terms only; a query of common words only still has candidates (the server plans them)', async () => {
    const plan = async (frequencies: [string, number][], active: number, cap = 1000) => {
      const r = await su.query<{ rare: string | null; common: string | null; fallback: string | null; terms: string[] | null; idf: number[] | null }>(
        'SELECT rare::text, common::text, fallback::text, terms::text[] AS terms, idf FROM agent_memory_plan_keyword_search($1, $2, $3, $4)',
        [frequencies.map((f) => f[0]), frequencies.map((f) => f[1]), active, cap],
      );
      return r.rows[0];
    };
    const rare = await plan([['vancomycin', 3], ['patients', 5000], ['dose', 400], ['missing', 0]], 10_000);
    assert.equal(rare.rare, "'vancomycin' | 'dose'");
    assert.equal(rare.common, null);
    assert.deepEqual(rare.terms, ["'vancomycin'", "'dose'", "'patients'"]);
    assert.ok(rare.idf && rare.idf[0] > rare.idf[1] && rare.idf[1] > rare.idf[2]);
    // BM25 IDF over max(active, largest df): ln(1 + (N − df + 0.5) / (df + 0.5)).
    assert.ok(Math.abs(rare.idf[0] - Math.log(1 + (10_000 - 3 + 0.5) / 3.5)) < 1e-12);
    const common = await plan([['how', 9000], ['many', 8000]], 10_000);
    assert.deepEqual([common.rare, common.common, common.fallback], [null, "'many' & 'how'", "'many'"]);
    // Words in over half of the records stay out of the AND; with one term left, it is the fallback itself.
    const stop = await plan([['how', 9000], ['icu', 3000], ['stays', 2000]], 10_000);
    assert.deepEqual([stop.rare, stop.common, stop.fallback], [null, "'stays' & 'icu'", "'stays'"]);
    const one = await plan([['how', 9000], ['icu', 3000]], 10_000);
    assert.deepEqual([one.common, one.fallback], ["'icu'", null]);
    assert.deepEqual(await plan([['absent', 0]], 10), { rare: null, common: null, fallback: null, terms: null, idf: null });
    // Compound tokens of the server's parser (icd-9, example.com, 1.5) are left out, their parts kept; words of any script count.
    const mixed = await plan([['icd-9', 5], ['icd', 6], ['example.com', 1], ['1.5', 1], ['größe', 7], ['東京', 8], ['snake_case', 9]], 100);
    assert.deepEqual(mixed.terms, ["'icd'", "'größe'", "'東京'", "'snake_case'"]);
  });

  it('ranks the record sharing the rare words first among thousands sharing the common ones; common-word queries still answer', async () => {
    const owner = await connect('quality', pg().ownerUrl, 'seed');
    const n = KEYWORD_CANDIDATES + 1500;
    const content = benchRecords(n, 16);
    // Every seeded question holds 'how', 'many', 'in', 'case' (df = n > the candidate cap).
    // Programs of their own: a copy of shared-0's program would collapse with it (and its 57 other copies).
    content.records.push({ ...content.records[0], id: 'rare-one', question: 'how many patients received vancomycin in the icu', code: "answer = sql('select count(*) from rare_one')", embedding: Array.from(unitVector(1)) });
    content.records.push({ ...content.records[0], id: 'rare-two', question: 'how many patients received vancomycin dose adjustments', code: "answer = sql('select count(*) from rare_two')", embedding: Array.from(unitVector(2)) });
    const written = await writeTeam(owner, content);
    assert.equal(written.statistics.refreshed, true);
    const team = await connect('quality');

    const one = await searchTeam(team, 'vancomycin dose for how many', null, 5);
    assert.deepEqual(one.slice(0, 2).map((h) => h.record.id), ['rare-two', 'rare-one']);
    const two = await searchTeam(team, 'Vancomycin in the ICU?', null, 5);
    assert.equal(two[0].record.id, 'rare-one');

    const common = await searchTeam(team, 'how many in case', null, 5);
    assert.equal(common.length, 5);
    for (const h of common) assert.deepEqual(['how', 'many', 'in', 'case'].filter((w) => !h.record.question.split(' ').includes(w)), [], h.record.question);
    const none = await searchTeam(team, 'zzzunknownword', null, 5);
    assert.deepEqual(none, []);
  });

  it('after an owner bulk load the statistics are fresh and the search statement uses the GIN and HNSW indexes', async () => {
    const owner = await connect('plans', pg().ownerUrl, 'seed');
    // Over SMALL_SPACE_ROWS: the keyword side reads the shared GIN index (a smaller space is read through its btree, below).
    const content = benchRecords(SMALL_SPACE_ROWS + 1000, 16);
    content.records.push({ ...content.records[0], id: 'needle', question: 'which careunit handled the tracheostomy', code: "answer = sql('select careunit from needle')", embedding: Array.from(unitVector(99)) });
    await writeTeam(owner, content);
    const analyzed = await su.query<{ last: Date | null }>("SELECT greatest(last_analyze, last_autoanalyze) AS last FROM pg_stat_user_tables WHERE relname = 'records'");
    assert.ok(analyzed.rows[0].last, 'records was analyzed after the bulk load');
    const app = new Client({ connectionString: pg().appUrl });
    await app.connect();
    try {
      const plan = (await explainSearch(app, 'plans', 'tracheostomy how many', unitVector(5), true)).join('\n');
      assert.match(plan, /Index Scan using records_hnsw_16/, plan);
      assert.match(plan, /Bitmap Index Scan on records_tsv/, plan);
      assert.doesNotMatch(plan, /Seq Scan on records/, plan);
      // Only the rare term's postings were read: the keyword side did not scan for 'how' or 'many' (each in every record).
      assert.match(plan, /tsv @@ '''tracheostomy'''::tsquery/, plan);
      assert.doesNotMatch(plan, /tsv @@ '''(how|many)'''::tsquery/, plan);
    } finally {
      await app.end();
    }
    const team = await connect('plans');
    assert.equal((await searchTeam(team, 'tracheostomy how many', null, 3))[0].record.id, 'needle');
    // Hybrid: the dense side leads (weight 1 against the keyword side's 0.15: a record only the keyword side found
    // scores 0.15 / 6, below the dense side's first 32 ranks), so the needle is looked for in the top 40. (This asserted
    // it in the top 3, true only while other spaces' vectors crowded this space's dense candidates out.)
    // (How many dense candidates the HNSW scan gives here varies with the graph: these records' vectors repeat the
    // 'quality' space's, and the index is shared.)
    const hits = await searchTeam(team, 'tracheostomy how many', unitVector(5), 40);
    const needle = hits.find((h) => h.record.id === 'needle');
    assert.ok(needle?.keywordScore !== undefined, JSON.stringify(hits.map((h) => h.record.id)));
    // The application role owns nothing: it cannot ANALYZE, and says so instead of claiming it did.
    const appLoad = await connect('plans-app');
    const asApp = await writeTeam(appLoad, benchRecords(10, 16));
    assert.equal(asApp.statistics.refreshed, false);
  });

  it("a small space's keyword side reads its own rows, not the shared GIN postings of a word another space holds everywhere", async () => {
    // The other space: every record holds 'how' and 'many' (benchRecords' questions). This one: 40 records, 4 of them about admissions.
    await writeTeam(await connect('kw-big', pg().ownerUrl, 'seed'), benchRecords(3000, 16));
    const small = benchRecords(40, 16).records.map((r, i) => ({ ...r, id: `kw-${i}`, question: i % 10 === 0 ? `how many admissions of patient ${i}` : `which drug dose for patient ${i}` }));
    await writeTeam(await connect('kw-small', pg().ownerUrl, 'seed'), { ...benchRecords(0, 16), records: small });
    const hits = await searchTeam(await connect('kw-small'), 'how many admissions', null, 4);
    assert.deepEqual(hits.map((h) => h.record.id).sort(), ['kw-0', 'kw-10', 'kw-20', 'kw-30']);
    const app = new Client({ connectionString: pg().appUrl });
    await app.connect();
    try {
      const plan = (await explainSearch(app, 'kw-small', 'how many admissions', null, true)).join('\n');
      assert.doesNotMatch(plan, /Seq Scan on records/, plan);
      // Through the space's btree: no scan drops more rows than the space holds (the GIN path dropped the other space's 3,000).
      const dropped = [...plan.matchAll(/Rows Removed by Filter: (\d+)/g)].map((m) => Number(m[1]));
      assert.ok(dropped.every((n) => n <= small.length), plan);
      assert.match(plan, /Index Cond: \(space = 'kw-small'::text\)/, plan);
    } finally {
      await app.end();
    }
  });

  it("a space's dense side is not crowded out by another space's nearer records: a pass filters the space inside the HNSW scan", async () => {
    const rows = (prefix: string, n: number, vector: (i: number) => Float32Array) =>
      benchRecords(n, 16).records.map((r, i) => ({ ...r, id: `${prefix}-${i}`, question: `${prefix} zz${i}`, code: `answer = sql('select ${prefix} from t${i}')`, embedding: Array.from(vector(i)) }));
    const query = unitVector(600);
    // Space A: six records, none very near the query. Space B: 200 records exactly at the query (the HNSW index is shared).
    await writeTeam(await connect('crowd-a', pg().ownerUrl, 'seed'), { ...benchRecords(0, 16), records: rows('alpha', 6, (i) => unitVector(500 + i)) });
    await writeTeam(await connect('crowd-b', pg().ownerUrl, 'seed'), { ...benchRecords(0, 16), records: rows('beta', 200, () => query) });
    const hits = await searchTeam(await connect('crowd-a'), 'nothing in common', query, 4);
    // The first pass takes the index's 40 nearest of every space: all B's, so A has no dense candidate until the filtered pass.
    assert.deepEqual(hits.map((h) => h.record.id.split('-')[0]), ['alpha', 'alpha', 'alpha', 'alpha'], JSON.stringify(hits.map((h) => h.record.id)));
    const b = await searchTeam(await connect('crowd-b'), 'nothing in common', query, 4);
    assert.ok(b.every((h) => h.record.id.startsWith('beta-')));
    // That pass reads the space through an index (a space this small: the (space, status, …) btree and an exact sort), not every record.
    const app = new Client({ connectionString: pg().appUrl });
    await app.connect();
    try {
      await app.query('BEGIN');
      await app.query("SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true)");
      const plan = (await explainSearch(app, 'crowd-a', 'nothing in common', query, true, true)).join('\n');
      await app.query('COMMIT');
      assert.match(plan, /Index Scan using records_\w+ on records/, plan);
      assert.doesNotMatch(plan, /Seq Scan on records/, plan);
    } finally {
      await app.end();
    }
  });

  it('keeps term statistics exact under concurrent adds, approvals, rejections, deletes, restores, purges and sweeps', async () => {
    const space = 'stats';
    const clients = await Promise.all(Array.from({ length: 6 }, (_, i) => connect(space, pg().appUrl, `c${i}`)));
    const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta'];
    await Promise.all(
      clients.map(async (c, i) => {
        for (let r = 0; r < 12; r++) {
          const q = `${words[(i + r) % 8]} ${words[(i * 3 + r) % 8]} question ${i} ${r}`;
          const agent = r % 3 !== 0;
          let [rec] = await c.add([sampleRecord({ id: `s-${i}-${r}`, question: q, provenance: agent ? 'agent' : 'user' })], { trigger: agent ? 'agent' : 'user', merge: false });
          const step = async (op: 'approve' | 'reject' | 'delete' | 'restore' | 'purge'): Promise<void> => {
            [rec] = (await c.transition([rec.id], op, { trigger: 'user' })).concat(op === 'purge' ? [rec] : []);
          };
          if (rec.status === 'pending') await step(r % 4 === 1 ? 'reject' : 'approve');
          if (rec.status === 'active' && r % 5 === 2) await step('delete');
          if (rec.status === 'deleted' && r % 10 === 2) await step('restore');
          if (r % 7 === 4) {
            if (rec.status !== 'deleted') await step('delete');
            await step('purge');
          }
          // Φ and retrieval increments do not touch the statistics, but run alongside.
          const task = await beginTeamTask(c, q);
          await logTeamRetrievals(c, task, [{ recordId: `s-${i}-0`, rank: 1, inputSimilarity: null }]);
          await setTeamUtility(c, task, 0);
        }
      }),
    );
    await sweepTeam(clients[0], { periodMs: 0, minActiveRecords: 5, minRetrievals: 1, maxMeanUtility: 0.5 });
    // Batch transitions in one transaction (several statements) from two clients at once.
    const active = (await clients[0].listByStatus('active', 1000)).map((r) => r.id).sort();
    const third = Math.floor(active.length / 3);
    assert.ok(third >= 3, `${active.length} active records`);
    await Promise.all([
      clients[1].transition(active.slice(0, third), 'delete', { trigger: 'user' }),
      clients[2].transition(active.slice(third, 2 * third).reverse(), 'unapprove', { trigger: 'user' }),
    ]);
    const stored = await storedStats(su, space);
    assert.ok((stored.get('') ?? 0) > 0);
    assert.deepEqual(sorted(stored), sorted(await recomputedStats(su, space)));
    assert.equal(stored.get('') ?? 0, (await clients[0].counts()).active);
  });

  it('the application role can read but not write the statistics', async () => {
    const app = new Client({ connectionString: pg().appUrl });
    await app.connect();
    try {
      await app.query("SELECT df FROM term_stats WHERE space = 'stats' LIMIT 1");
      await assert.rejects(app.query("UPDATE term_stats SET df = 0 WHERE space = 'stats'"), /permission denied/);
      await assert.rejects(app.query("INSERT INTO term_stats VALUES ('x', 'y', 1)"), /permission denied/);
    } finally {
      await app.end();
    }
  });
});
