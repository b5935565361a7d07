import * as assert from 'node:assert/strict';
import { Client } from 'pg';
import { isAgentMemoryError } from '../../../../src/core/errors';
import { applyMigrations, ensureDenseIndex, PG_SCHEMA_VERSION } from '../../../../src/core/memory/postgres/migrations';
import { searchTeam } from '../../../../src/core/memory/postgres/team-search';
import { setupTeamMemory } from '../../../../src/core/memory/postgres/team-setup';
import { TeamMemoryStore } from '../../../../src/core/memory/postgres/team-store';
import { vectorLiteral } from '../../../../src/core/memory/postgres/vector-text';
import { superuserMemoryUrl, usePostgres } from '../../../support/postgres';
import { unitVector } from '../../../support/records';

/** Records written straight in SQL (no client of this version can write a schema at version 6): how many … questions, one needle. */
async function seedAtVersion6(owner: Client, space: string, n: number): Promise<void> {
  const ids = Array.from({ length: n }, (_, i) => `old-${i}`);
  const questions = ids.map((_, i) => `how many admissions in case ${i}`);
  const codes = ids.map((_, i) => `answer = sql('select count(*) from t${i}')`);
  const vectors = ids.map((_, i) => vectorLiteral(unitVector(1000 + i)));
  ids.push('needle');
  questions.push('which careunit handled the tracheostomy');
  codes.push("answer = sql('select careunit from needle')");
  vectors.push(vectorLiteral(unitVector(7)));
  await owner.query(
    `INSERT INTO records (space, id, question, code, language, outcome, status, provenance, created_at, updated_at, embedding, embedder_id, embedding_dim)
     SELECT $1, id, q, c, 'python', 'success', 'active', 'seed', now()::text, now()::text, v::vector, 'test', 16 FROM unnest($2::text[], $3::text[], $4::text[], $5::text[]) x(id, q, c, v)`,
    [space, ids, questions, codes, vectors],
  );
}

describe('migration 7 on a team memory at migration 6 with data (real PostgreSQL + pgvector)', function () {
  this.timeout(120_000);
  const pg = usePostgres();

  it('the migration runner brings it to 7: the records and term statistics are kept, the search runs in one call and finds the needle, hybrid and keyword-only', async () => {
    const owner = new Client({ connectionString: pg().ownerUrl });
    await owner.connect();
    const su = new Client({ connectionString: superuserMemoryUrl(pg()) });
    await su.connect();
    const open: TeamMemoryStore[] = [];
    try {
      assert.deepEqual(await applyMigrations(owner, { through: 6 }), { from: 0, to: 6 });
      await ensureDenseIndex(owner, 16);
      await seedAtVersion6(owner, 'kept', 3000);
      const stats = async (): Promise<string> => JSON.stringify((await su.query("SELECT term, df FROM term_stats WHERE space = 'kept' AND df <> 0 ORDER BY term")).rows);
      const before = await stats();
      // Version 6's keyword side, as the application role (a reviewer of every space).
      const app = new Client({ connectionString: pg().appUrl });
      await app.connect();
      const oldKeyword = await app.query("SELECT rid FROM agent_memory_keyword_candidates('kept', 'tracheostomy'::tsquery, 10, false)");
      await app.end();
      assert.equal(oldKeyword.rowCount, 1);
      await assert.rejects(TeamMemoryStore.connect({ url: pg().appUrl, space: 'kept', user: 'alice', client: 'test' }), (e: unknown) => isAgentMemoryError(e, 'MIGRATION'));

      await setupTeamMemory(pg().ownerUrl, { dimensions: [16] });
      assert.equal(Number((await su.query('SELECT max(version) AS v FROM schema_migrations')).rows[0].v), PG_SCHEMA_VERSION);
      assert.equal(PG_SCHEMA_VERSION, 7);
      assert.equal(await stats(), before);
      assert.equal(Number((await su.query("SELECT count(*) AS n FROM records WHERE space = 'kept'")).rows[0].n), 3001);
      // The per-part functions of 6 are gone (nothing calls them any more).
      const gone = await su.query("SELECT to_regprocedure('agent_memory_keyword_candidates(text,tsquery,integer,boolean)') AS f, to_regprocedure('agent_memory_keyword_plan(text,tsquery,integer,boolean,boolean)') AS p");
      assert.deepEqual(gone.rows[0], { f: null, p: null });

      const team = await TeamMemoryStore.connect({ url: pg().appUrl, space: 'kept', user: 'alice', client: 'test' });
      open.push(team);
      assert.equal((await searchTeam(team, 'tracheostomy how many', null, 3))[0].record.id, 'needle');
      const hybrid = await searchTeam(team, 'which careunit', unitVector(7), 4);
      assert.equal(hybrid[0].record.id, 'needle');
      assert.ok(hybrid[0].denseScore !== undefined && Math.abs(hybrid[0].denseScore - 1) < 1e-6 && hybrid[0].keywordScore !== undefined);
      // A common-words-only query still answers from the candidates holding every word; a query of no words answers nothing.
      const common = await searchTeam(team, 'how many admissions in case', null, 5);
      assert.equal(common.length, 5);
      assert.deepEqual(await searchTeam(team, '%_%', null, 5), []);

      // The function answers the space's active count and the keyword candidate, called directly as the application role.
      const c = new Client({ connectionString: pg().appUrl });
      await c.connect();
      try {
        const direct = await c.query<{ side: string; n: string }>("SELECT side, count(*) AS n FROM agent_memory_search('kept', 'tracheostomy', NULL, 0, 32, 40, false, '{1000,250,5000}') GROUP BY side ORDER BY side");
        assert.deepEqual(direct.rows.map((r) => [r.side, Number(r.n)]), [['a', 1], ['k', 1]]);
        const active = await c.query<{ score: number }>("SELECT score FROM agent_memory_search('kept', 'tracheostomy', NULL, 0, 32, 40, false, '{1000,250,5000}') WHERE side = 'a'");
        assert.equal(active.rows[0].score, 3001);
      } finally {
        await c.end();
      }
    } finally {
      await Promise.all(open.map((s) => s.close()));
      await owner.end();
      await su.end();
    }
  });

  it("the search function refuses a role that holds no level in the space, and bad arguments, before reading anything", async () => {
    await setupTeamMemory(pg().ownerUrl, { dimensions: [16] });
    const su = new Client({ connectionString: pg().superuserUrl });
    await su.connect();
    await su.query("CREATE ROLE search_stranger LOGIN PASSWORD 'stranger-pw'; GRANT CONNECT ON DATABASE agent_memory TO search_stranger");
    await su.end();
    const u = new URL(pg().ownerUrl);
    u.username = 'search_stranger';
    u.password = 'stranger-pw';
    const stranger = new Client({ connectionString: u.toString() });
    await stranger.connect();
    try {
      await assert.rejects(stranger.query("SELECT * FROM agent_memory_search('kept', 'tracheostomy', NULL, 0, 32, 40, false, '{1000,250,5000}')"), (e: { code?: string }) => e.code === '42501');
      const app = new Client({ connectionString: pg().appUrl });
      await app.connect();
      try {
        await assert.rejects(app.query("SELECT * FROM agent_memory_search('kept', 'x', NULL, 16, 32, 40, false, '{1000,250,5000}')"), (e: { code?: string }) => e.code === '22023');
        await assert.rejects(app.query("SELECT * FROM agent_memory_search('kept', 'x', NULL, 0, 0, 40, false, '{1000,250,5000}')"), (e: { code?: string }) => e.code === '22023');
        await assert.rejects(app.query("SELECT * FROM agent_memory_search('kept', 'x', NULL, 0, 32, 40, false, '{1000,250}')"), (e: { code?: string }) => e.code === '22023');
      } finally {
        await app.end();
      }
    } finally {
      await stranger.end();
    }
  });
});
