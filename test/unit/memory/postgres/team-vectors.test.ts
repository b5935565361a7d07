import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { Client } from 'pg';
import { isAgentMemoryError } from '../../../../src/core/errors';
import { nullLogger } from '../../../../src/core/logger';
import { TEAM_DEFAULT_DIMENSION } from '../../../../src/core/memory/postgres/team-embedder';
import { searchTeam } from '../../../../src/core/memory/postgres/team-search';
import { seedTeamDemo } from '../../../../src/core/memory/postgres/team-seed';
import { runTeamTasks } from '../../../../src/core/team/team-tasks';
import type { AgentTaskResult } from '../../../../src/core/app/types';
import { setupTeamMemory } from '../../../../src/core/memory/postgres/team-setup';
import { TeamMemoryStore } from '../../../../src/core/memory/postgres/team-store';
import { TeamMemoryTools } from '../../../../src/core/memory/postgres/team-tools';
import { parseVector } from '../../../../src/core/memory/postgres/vector-text';
import { HashingEmbedder } from '../../../../src/core/similarity/hashing-embedder';
import type { ToolClient } from '../../../../src/core/tools/memory-tools';
import { superuserMemoryUrl, usePostgres } from '../../../support/postgres';

const AGENT: ToolClient = { via: 'mcp', name: 'test-agent' };
const DEMO_DB = path.join(__dirname, '..', '..', '..', '..', 'data', 'ehr', 'mimic3-demo.sqlite');
const ADMITTED = { question: 'how many patients were admitted', code: "answer = sql('select count(*) from admissions')", language: 'python', outcome: 'success' } as const;
const ASPIRIN = { question: 'list the prescriptions of aspirin', code: "answer = sql('select drug from prescriptions')", language: 'python', outcome: 'success' } as const;
/** Shares no keyword with ADMITTED (question or code), but stems to the same words: only the dense side can find it. */
const DENSE_ONLY_QUERY = 'admitting patient diagnosing';

describe('team memory shared vectors: memory_record embeds, memory_search embeds the query (real server)', function () {
  this.timeout(120_000);
  const pg = usePostgres();
  const open: { close(): Promise<void> }[] = [];
  let su: Client;
  const connect = async (space: string): Promise<TeamMemoryStore> => {
    const s = await TeamMemoryStore.connect({ url: pg().appUrl, space, user: 'alice', client: 'mcp@test' });
    open.push(s);
    return s;
  };
  const toolsOn = (store: TeamMemoryStore): TeamMemoryTools => new TeamMemoryTools({ team: () => Promise.resolve(store), logger: nullLogger });

  before(async () => {
    const setup = await setupTeamMemory(pg().ownerUrl, { dimensions: [64], space: 'vec' });
    assert.equal(setup.sharedEmbedder, 'hash-v1-64');
    su = new Client({ connectionString: superuserMemoryUrl(pg()) });
    await su.connect();
  });
  after(async () => {
    await su?.end();
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });

  it('records added through memory_record carry the shared embedder\'s vector, and a dense-only match is found', async () => {
    const store = await connect('vec');
    const tools = toolsOn(store);
    const admitted = await tools.record(ADMITTED, AGENT);
    const aspirin = await tools.record(ASPIRIN, AGENT);
    assert.equal(admitted.status, 'pending');
    await store.transition([admitted.id!, aspirin.id!], 'approve', { trigger: 'user' });

    const row = await su.query<{ embedder_id: string; embedding_dim: number; embedding: string }>(
      'SELECT embedder_id, embedding_dim, embedding::text AS embedding FROM records WHERE space = $1 AND id = $2',
      ['vec', admitted.id],
    );
    assert.equal(row.rows[0].embedder_id, 'hash-v1-64');
    assert.equal(row.rows[0].embedding_dim, 64);
    // Any client computes the same vector from the question alone.
    const expected = new HashingEmbedder({ dimension: 64 }).embedSync(ADMITTED.question);
    const stored = parseVector(row.rows[0].embedding);
    assert.equal(stored.length, 64);
    for (let i = 0; i < 64; i++) assert.ok(Math.abs(stored[i] - expected[i]) < 1e-6, `component ${i}`);

    assert.deepEqual(await searchTeam(store, DENSE_ONLY_QUERY, null, 5), [], 'the keyword side alone finds nothing');
    const found = await tools.search({ query: DENSE_ONLY_QUERY, k: 2, min_score: 0 }, AGENT);
    assert.equal(found.results[0].id, admitted.id);
    // Another client (its own tools, its own connection) agrees.
    const other = await toolsOn(await connect('vec')).search({ query: DENSE_ONLY_QUERY, k: 1, min_score: 0 }, { via: 'mcp', name: 'other-agent' });
    assert.deepEqual(other.results.map((r) => r.id), [admitted.id]);
  });

  it('a space with no stored embedder: the first memory_record claims the default hashing embedder for every client', async () => {
    const store = await connect('fresh-vec');
    assert.equal(await store.getMeta('embedder_id'), undefined);
    await toolsOn(store).record(ADMITTED, AGENT);
    assert.equal(await store.getMeta('embedder_id'), `hash-v1-${TEAM_DEFAULT_DIMENSION}`);
    assert.equal(await store.getMeta('embedder_dim'), String(TEAM_DEFAULT_DIMENSION));
  });

  it('a space whose meta names an endpoint model is refused plainly (UNSUPPORTED), not guessed at', async () => {
    const store = await connect('endpoint-space');
    await store.setMeta('embedder_id', 'openai:text-embedding-3-small');
    await store.setMeta('embedder_dim', '1536');
    const tools = toolsOn(store);
    const unsupported = (e: unknown): boolean => isAgentMemoryError(e, 'UNSUPPORTED') && /not supported yet/.test(e.message) && /openai:text-embedding-3-small/.test(e.message);
    await assert.rejects(tools.search({ query: 'patients' }, AGENT), unsupported);
    await assert.rejects(tools.record(ADMITTED, AGENT), unsupported);
    assert.deepEqual(await store.counts(), { pending: 0, active: 0, deleted: 0 });
  });

  it('team-setup refuses to give a space another shared embedder dimension', async () => {
    await assert.rejects(setupTeamMemory(pg().ownerUrl, { dimensions: [32], space: 'vec' }), (e) => isAgentMemoryError(e, 'EMBEDDER_MISMATCH'));
    const again = await setupTeamMemory(pg().ownerUrl, { dimensions: [64], space: 'vec' });
    assert.equal(again.sharedEmbedder, 'hash-v1-64');
  });

  it('seed and the task pipeline store the shared embedder\'s vectors too, and the task retrieves on both sides', async () => {
    const store = await connect('vec-tasks');
    const tasksFile = path.join(__dirname, '..', '..', '..', '..', 'data', 'ehr', 'ehrsql-mimic3-tasks.jsonl');
    assert.equal(await seedTeamDemo(store, tasksFile, 10, 'python'), 10);
    const rows = await su.query<{ question: string; embedder_id: string | null; embedding: string | null }>(
      'SELECT question, embedder_id, embedding::text AS embedding FROM records WHERE space = $1',
      ['vec-tasks'],
    );
    assert.equal(rows.rows.length, 10);
    const shared = new HashingEmbedder({ dimension: TEAM_DEFAULT_DIMENSION });
    for (const r of rows.rows) {
      assert.equal(r.embedder_id, shared.id, 'the space claimed the default shared embedder');
      const expected = shared.embedSync(r.question);
      const got = parseVector(r.embedding!);
      assert.ok(Math.max(...Array.from(expected, (x, i) => Math.abs(x - got[i]))) < 1e-3, 'the seeded vector is the shared embedder\'s');
    }
    const question = `${rows.rows[0].question} please`;
    const results: AgentTaskResult[] = [];
    await runTeamTasks(store, [{ question }], { language: 'python', dataPath: DEMO_DB, k: 4, sweep: null, logger: nullLogger, onResult: (r) => results.push(r) });
    assert.equal(results.length, 1);
    assert.ok(results[0].demonstrations.length > 0);
    const top = results[0].demonstrations[0];
    assert.ok(top.inputSimilarity !== null && top.inputSimilarity > 0.5, `the top demonstration comes with its dense similarity (${top.inputSimilarity})`);
    if (results[0].addition.recordId) {
      const added = await su.query<{ embedder_id: string | null }>('SELECT embedder_id FROM records WHERE space = $1 AND id = $2', ['vec-tasks', results[0].addition.recordId]);
      assert.equal(added.rows[0].embedder_id, shared.id, 'the task\'s record carries the shared vector');
    }
  });
});
