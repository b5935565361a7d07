import * as assert from 'node:assert/strict';
import { Client } from 'pg';
import { isAgentMemoryError } from '../../../../src/core/errors';
import { TeamChange, TeamChangeFeed } from '../../../../src/core/memory/postgres/change-feed';
import { PG_SCHEMA_VERSION } from '../../../../src/core/memory/postgres/migrations';
import { TeamMemoryStore } from '../../../../src/core/memory/postgres/team-store';
import { INSERT_BATCH } from '../../../../src/core/memory/postgres/team-batch-writes';
import { setupTeamMemory } from '../../../../src/core/memory/postgres/team-setup';
import { sweepTeam } from '../../../../src/core/memory/postgres/team-sweep';
import { beginTeamTask, logTeamRetrievals, setTeamUtility } from '../../../../src/core/memory/postgres/team-utility';
import { usePostgres } from '../../../support/postgres';
import { sampleRecord } from '../../../support/records';

describe('team memory on PostgreSQL (real server)', function () {
  this.timeout(60_000);
  const pg = usePostgres();
  const open: { close(): Promise<void> }[] = [];
  const connect = async (space = 'repo-a', user = 'alice', client = 'vscode@laptop'): Promise<TeamMemoryStore> => {
    const s = await TeamMemoryStore.connect({ url: pg().appUrl, space, user, client });
    open.push(s);
    return s;
  };

  before(async () => {
    const r = await setupTeamMemory(pg().ownerUrl, { dimensions: [16] });
    assert.equal(r.to, PG_SCHEMA_VERSION);
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });

  it('refuses to open a schema the owner has not migrated, then opens it; migrations are idempotent', async () => {
    const admin = new Client({ connectionString: pg().superuserUrl });
    await admin.connect();
    await admin.query('CREATE DATABASE fresh OWNER agent_memory_owner');
    await admin.end();
    const freshApp = pg().appUrl.replace('/agent_memory?', '/fresh?');
    await assert.rejects(TeamMemoryStore.connect({ url: freshApp, user: 'u', client: 'c' }), (e) => isAgentMemoryError(e) && /team-setup/.test(e.message));
    const again = await setupTeamMemory(pg().ownerUrl);
    assert.deepEqual([again.from, again.to], [PG_SCHEMA_VERSION, PG_SCHEMA_VERSION]);
  });

  it('the application role cannot drop or alter tables (least privilege)', async () => {
    const app = new Client({ connectionString: pg().appUrl });
    await app.connect();
    try {
      await assert.rejects(app.query('DROP TABLE records'), /must be owner/);
      await assert.rejects(app.query('ALTER TABLE audit DROP COLUMN actor_user'), /must be owner/);
      await assert.rejects(app.query('CREATE TABLE x (a int)'), /permission denied/);
      await assert.rejects(app.query('DELETE FROM schema_migrations'), /permission denied/);
    } finally {
      await app.end();
    }
  });

  it('stores an agent\'s record as pending under strict addition; a reviewer approves; the audit names user and client', async () => {
    const agent = await connect('repo-a', 'bob', 'mcp@ci');
    const reviewer = await connect('repo-a', 'alice', 'vscode@laptop');
    assert.equal(await agent.additionPolicy(), 'strict');
    const [rec] = await agent.add([sampleRecord({ provenance: 'agent', status: 'active' })], { trigger: 'agent' });
    assert.equal(rec.status, 'pending');
    const [approved] = await reviewer.transition([rec.id], 'approve', { trigger: 'user', reason: 'looks right' });
    assert.equal(approved.status, 'active');
    const audit = await reviewer.audit({ recordId: rec.id });
    assert.deepEqual(audit.map((a) => [a.operation, a.user, a.client]), [['approve', 'alice', 'vscode@laptop'], ['add', 'bob', 'mcp@ci']]);
    assert.equal(audit[1].evidence.strict, true);
    await assert.rejects(reviewer.transition([rec.id], 'approve', { trigger: 'user' }), (e) => isAgentMemoryError(e, 'INVALID_STATE'));
  });

  it('a record added by a user keeps its status; the space scopes every record', async () => {
    const a = await connect('repo-a');
    const b = await connect('repo-b');
    const [rec] = await a.add([sampleRecord({ id: 'shared-id', question: 'only in repo a' })], { trigger: 'user' });
    assert.equal(rec.status, 'active');
    assert.equal(await b.get('shared-id'), undefined);
    // The same id in another space is another record.
    const [other] = await b.add([sampleRecord({ id: 'shared-id', question: 'only in repo b' })], { trigger: 'user' });
    assert.equal(other.question, 'only in repo b');
    assert.equal((await a.get('shared-id'))?.question, 'only in repo a');
  });

  it('refuses a duplicate id and writes nothing of the batch', async () => {
    const a = await connect('dup-space');
    await a.add([sampleRecord({ id: 'r1' })], { trigger: 'user' });
    await assert.rejects(a.add([sampleRecord({ id: 'r2', question: 'new one' }), sampleRecord({ id: 'r1', question: 'again' })], { trigger: 'user' }), (e) => isAgentMemoryError(e, 'INVALID_INPUT') && /r1/.test(e.message));
    assert.equal(await a.get('r2'), undefined);
    assert.deepEqual(await a.counts(), { pending: 0, active: 1, deleted: 0 });
  });

  it('adds thousands of records in a few statements: a duplicate anywhere writes nothing; otherwise every record, its audit entry and the keyword statistics are exact', async () => {
    const a = await connect('bulk-space');
    const n = INSERT_BATCH * 2 + 500; // three statements
    const batch = (prefix: string) => Array.from({ length: n }, (_, i) => sampleRecord({ id: `${prefix}${i}`, question: `how many patients had event ${i % 7 === 0 ? 'tracheostomy' : 'transfer'} number ${i}` }));
    // A duplicate in the third statement: the first two were written inside the transaction, and are rolled back.
    const duplicated = batch('d');
    duplicated[INSERT_BATCH * 2 + 10] = { ...duplicated[INSERT_BATCH * 2 + 10], id: 'd3' };
    await assert.rejects(a.add(duplicated, { trigger: 'import', merge: false }), (e) => isAgentMemoryError(e, 'INVALID_INPUT') && new RegExp(`Record ${INSERT_BATCH * 2 + 11}: a record with id 'd3'`).test(e.message));
    assert.deepEqual(await a.counts(), { pending: 0, active: 0, deleted: 0 });
    assert.deepEqual(await a.audit(), []);
    const added = await a.add(batch('r'), { trigger: 'import', reason: 'bulk test', merge: false });
    assert.deepEqual(added.map((r) => r.id), batch('r').map((r) => r.id), 'the records, in input order');
    assert.deepEqual(await a.counts(), { pending: 0, active: n, deleted: 0 });
    const audit = await a.audit({ limit: n + 10 });
    assert.equal(audit.length, n);
    assert.ok(audit.every((e) => e.operation === 'import' && e.reason === 'bulk test' && e.user === 'alice' && e.evidence.status === 'active'), JSON.stringify(audit[0]));
    const su = new Client({ connectionString: pg().ownerUrl });
    await su.connect();
    try {
      const df = async (term: string) => Number((await su.query<{ df: string }>("SELECT df FROM term_stats WHERE space = 'bulk-space' AND term = $1", [term])).rows[0]?.df ?? 0);
      assert.equal(await df(''), n, 'active records');
      assert.equal(await df('tracheostomy'), Math.ceil(n / 7));
      assert.equal(await df('transfer'), n - Math.ceil(n / 7));
      assert.equal(await df('patients'), n);
      // Bulk status changes, one statement each (migration 4: the statistics follow per statement): exact after each.
      const rare = added.filter((r) => r.question.includes('tracheostomy')).map((r) => r.id);
      await a.transition(rare, 'delete', { trigger: 'user', reason: 'bulk delete' });
      assert.deepEqual([await df(''), await df('tracheostomy'), await df('patients')], [n - rare.length, 0, n - rare.length]);
      await a.transition(rare, 'restore', { trigger: 'user' });
      assert.deepEqual([await df(''), await df('tracheostomy'), await df('patients')], [n, rare.length, n]);
      await a.transitionSteps([{ ids: rare, operation: 'delete' }, { ids: rare.slice(0, 100), operation: 'purge' }], { trigger: 'user' });
      assert.deepEqual([await df(''), await df('tracheostomy')], [n - rare.length, 0]);
      await a.transition(rare.slice(100), 'restore', { trigger: 'user' });
      assert.deepEqual([await df(''), await df('tracheostomy'), await df('transfer')], [n - 100, rare.length - 100, n - rare.length]);
      // A Φ / counter update changes nothing searchable: the statistics are not written.
      await su.query("UPDATE records SET retrieval_count = retrieval_count + 1, utility_sum = utility_sum + 1, utility_count = utility_count + 1 WHERE space = 'bulk-space'");
      assert.deepEqual([await df(''), await df('tracheostomy')], [n - 100, rare.length - 100]);
      const audit2 = await a.audit({ limit: 100_000 });
      assert.equal(audit2.filter((e) => e.operation === 'delete' && e.reason === 'bulk delete').length, rare.length, 'one audit entry per record of a bulk change');
      assert.equal(audit2.filter((e) => e.operation === 'purge').length, 100);
    } finally {
      await su.end();
    }
  });

  it('merges identical additions from 8 concurrent clients into one record (no race)', async () => {
    const clients = await Promise.all(Array.from({ length: 8 }, (_, i) => connect('merge-space', `user${i}`, `mcp@${i}`)));
    const results = await Promise.all(clients.map((c) => c.add([sampleRecord({ provenance: 'agent', question: 'How many  patients?' })], { trigger: 'agent' })));
    const ids = new Set(results.map((r) => r[0].id));
    assert.equal(ids.size, 1);
    const [rec] = await clients[0].getMany([...ids]);
    assert.equal(rec.mergedCount, 8);
    assert.deepEqual(await clients[0].counts(), { pending: 1, active: 0, deleted: 0 });
  });

  it('counts every Φ and retrieval from 8 concurrent clients (atomic increments, no lost update)', async () => {
    const clients = await Promise.all(Array.from({ length: 8 }, (_, i) => connect('phi-space', `user${i}`, `vscode@${i}`)));
    const [rec] = await clients[0].add([sampleRecord({ id: 'hot' })], { trigger: 'user' });
    const rounds = 25;
    await Promise.all(
      clients.map(async (c, i) => {
        for (let r = 0; r < rounds; r++) {
          const task = await beginTeamTask(c, `task ${i}/${r}`);
          assert.equal(await logTeamRetrievals(c, task, [{ recordId: rec.id, rank: 1, inputSimilarity: 0.5 }]), 1);
          // A retried log of the same retrieval counts once.
          assert.equal(await logTeamRetrievals(c, task, [{ recordId: rec.id, rank: 1, inputSimilarity: 0.5 }]), 0);
          await setTeamUtility(c, task, r % 2 === 0 ? 1 : 0, 'strict');
        }
      }),
    );
    const after = (await clients[0].get('hot'))!;
    assert.equal(after.stats.retrievalCount, 8 * rounds);
    assert.equal(after.stats.evaluatedCount, 8 * rounds);
    assert.equal(after.stats.meanUtility, 13 / 25);
    assert.equal(after.stats.meanInputSimilarity, 0.5);
  });

  it('re-evaluating a task replaces its Φ instead of counting it twice', async () => {
    const a = await connect('reeval');
    const [rec] = await a.add([sampleRecord()], { trigger: 'user' });
    const task = await beginTeamTask(a, 'q');
    await logTeamRetrievals(a, task, [{ recordId: rec.id, rank: 1, inputSimilarity: null }]);
    await setTeamUtility(a, task, 0);
    await setTeamUtility(a, task, 1);
    const s = (await a.get(rec.id))!.stats;
    assert.deepEqual([s.evaluatedCount, s.meanUtility, s.meanInputSimilarity], [1, 1, null]);
  });

  it('delivers an approval to another client within 1 s through the change feed', async () => {
    const a = await connect('feed-space', 'alice', 'vscode@a');
    const feed = await TeamChangeFeed.start({ url: pg().appUrl, space: 'feed-space', user: 'carol', client: 'vscode@b' });
    open.push(feed);
    const [rec] = await a.add([sampleRecord({ provenance: 'agent' })], { trigger: 'agent' });
    const seen = new Promise<{ change: TeamChange; at: number }>((resolve) =>
      feed.onDidChange((change) => {
        if (change.kind === 'status') resolve({ change, at: Date.now() });
      }),
    );
    const t0 = Date.now();
    await a.transition([rec.id], 'approve', { trigger: 'user' });
    const { change, at } = await seen;
    assert.equal(change.id, rec.id);
    assert.ok(at - t0 < 1000, `visible after ${at - t0} ms`);
  });

  it('runs one sweep per team per period under an advisory lock, respecting the memory floor', async () => {
    const clients = await Promise.all(Array.from({ length: 4 }, (_, i) => connect('sweep-space', `u${i}`, `c${i}`)));
    const recs = await clients[0].add(Array.from({ length: 5 }, (_, i) => sampleRecord({ id: `s${i}`, question: `question ${i}`, createdTask: i })), { trigger: 'user' });
    for (const r of recs) {
      const task = await beginTeamTask(clients[0], 'q');
      await logTeamRetrievals(clients[0], task, [{ recordId: r.id, rank: 1, inputSimilarity: null }]);
      await setTeamUtility(clients[0], task, 0);
    }
    const params = { periodMs: 60_000, minActiveRecords: 2, minRetrievals: 1, maxMeanUtility: 0.2 };
    const results = await Promise.all(clients.map((c) => sweepTeam(c, params)));
    const ran = results.filter((r) => r.ran);
    assert.equal(ran.length, 1, JSON.stringify(results));
    const first = ran[0];
    assert.ok(first.ran);
    assert.deepEqual(first.deleted, ['s0', 's1', 's2']);
    assert.equal(first.floorKept, 2);
    assert.deepEqual(await clients[1].counts(), { pending: 0, active: 2, deleted: 3 });
    assert.deepEqual(await sweepTeam(clients[2], params), { ran: false, reason: 'swept within the period' });
    const audit = await clients[0].audit({ recordId: 's0' });
    assert.equal(audit[0].trigger, 'rule:team-sweep');
    // Soft delete: restorable to its status before.
    const [restored] = await clients[3].transition(['s0'], 'restore', { trigger: 'user' });
    assert.equal(restored.status, 'active');
  });
});
