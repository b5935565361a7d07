/**
 * The threat model (docs/team-threat-model.md) tried on the real server: each action as each role,
 * then the tables read AS THE OWNER (not the error text) to show nothing changed, and the writers
 * of another space unaffected. Roles: agent_a and reviewer_a in space 'a', agent_b in space 'b',
 * outsider (may connect, no level), stranger (may not connect).
 */
import * as assert from 'node:assert/strict';
import { Client } from 'pg';
import { isAgentMemoryError } from '../../../../src/core/errors';
import { TeamChange, TeamChangeFeed } from '../../../../src/core/memory/postgres/change-feed';
import { verifyTeamAudit } from '../../../../src/core/memory/postgres/team-audit';
import { grantSpaceRole } from '../../../../src/core/memory/postgres/team-members';
import { setupTeamMemory } from '../../../../src/core/memory/postgres/team-setup';
import { TeamMemoryStore } from '../../../../src/core/memory/postgres/team-store';
import { restoreTeam, backupTeam } from '../../../../src/core/memory/postgres/team-backup';
import { beginTeamTask, logTeamRetrievals, setTeamUtility } from '../../../../src/core/memory/postgres/team-utility';
import { superuserMemoryUrl, usePostgres } from '../../../support/postgres';
import { sampleRecord } from '../../../support/records';
import { runCli, splitPassword } from '../../../support/team-processes';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROLES = ['agent_a', 'reviewer_a', 'agent_b', 'outsider', 'stranger'] as const;
type Role = (typeof ROLES)[number];

describe('team memory roles per space: refused by the server, checked by reading the tables as the owner (real PostgreSQL)', function () {
  this.timeout(120_000);
  const pg = usePostgres();
  const open: { close(): Promise<void> }[] = [];
  const urlOf = (role: Role): string => {
    const u = new URL(pg().ownerUrl);
    u.username = role;
    u.password = `pw-${role}`;
    return u.toString();
  };
  const store = async (role: Role | 'owner', space: string): Promise<TeamMemoryStore> => {
    const s = await TeamMemoryStore.connect({ url: role === 'owner' ? pg().ownerUrl : urlOf(role), space, user: role, client: 'test' });
    open.push(s);
    return s;
  };
  const sql = async (role: Role | 'owner' | 'super', text: string, params: unknown[] = []): Promise<{ rows: Record<string, unknown>[]; rowCount: number | null }> => {
    const c = new Client({ connectionString: role === 'owner' ? pg().ownerUrl : role === 'super' ? superuserMemoryUrl(pg()) : urlOf(role) });
    await c.connect();
    try {
      return await c.query(text, params);
    } finally {
      await c.end();
    }
  };
  /** Everything the owner sees of the memory (every space), to compare before and after a probe. */
  const snapshot = async (): Promise<string> => {
    const parts: unknown[] = [];
    for (const q of [
      'SELECT rid, space, id, question, status, status_before_delete, retrieval_count, utility_sum, utility_count, merged_count, in_sim_sum, out_sim_sum, stale FROM records ORDER BY rid',
      'SELECT id, space, operation, record_id, reason, actor_role, prev_hash, hash FROM audit ORDER BY id',
      'SELECT * FROM retrievals ORDER BY id', 'SELECT space, task_index, utility, log FROM tasks ORDER BY space, task_index', 'SELECT seq, space, record_id, kind FROM change_log ORDER BY seq',
      'SELECT * FROM meta ORDER BY space, key', 'SELECT * FROM term_stats ORDER BY space, term', 'SELECT space, role, level FROM space_members ORDER BY space, role',
      'SELECT (SELECT last_value FROM task_index_seq) t, (SELECT last_value FROM records_rid_seq) r, (SELECT last_value FROM audit_id_seq) a',
    ]) parts.push((await sql('owner', q)).rows);
    return JSON.stringify(parts);
  };
  /** Refused by the server, or (an UPDATE or DELETE the row-level security filters) touching no row; the snapshot shows the rest. */
  const refused = async (role: Role, text: string, params: unknown[] = []): Promise<void> => {
    let result: { rowCount: number | null } | undefined;
    try {
      result = await sql(role, text, params);
    } catch (e) {
      const error = e as Error & { code?: string };
      assert.ok(['42501', '28000'].includes(error.code ?? '') || /permission denied|row-level security|not a (reviewer|member)/.test(error.message), `${role}: ${text}: ${error.message}`);
      return;
    }
    assert.ok(/^(UPDATE|DELETE)/.test(text) && result.rowCount === 0, `${role}: ${text} was not refused (${result.rowCount} rows)`);
  };

  let pendingId: string;
  let activeB: string;

  before(async () => {
    await setupTeamMemory(pg().ownerUrl, { dimensions: [16] });
    for (const r of ROLES) await sql('super', `CREATE ROLE ${r} LOGIN PASSWORD 'pw-${r}'`);
    await grantSpaceRole(pg().ownerUrl, { role: 'agent_a', space: 'a', level: 'agent' });
    await grantSpaceRole(pg().ownerUrl, { role: 'reviewer_a', space: 'a', level: 'reviewer' });
    await grantSpaceRole(pg().ownerUrl, { role: 'agent_b', space: 'b', level: 'agent' });
    await sql('super', 'GRANT CONNECT ON DATABASE agent_memory TO outsider');
    const b = await store('owner', 'b');
    activeB = (await b.add([sampleRecord({ id: 'b-1' })], { trigger: 'import' }))[0].id;
    const agent = await store('agent_a', 'a');
    // The agent asks for an active record: the server stores it pending (strict is the default policy).
    pendingId = (await agent.add([{ ...sampleRecord({ id: 'a-1' }), status: 'active' }], { trigger: 'import', merge: false }))[0].id;
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });

  it('team-grant: the role must exist, granting is idempotent, a revoke takes back the level named only', async () => {
    await assert.rejects(grantSpaceRole(pg().ownerUrl, { role: 'nobody_here', space: 'a', level: 'agent' }), (e) => isAgentMemoryError(e, 'INVALID_INPUT') && /No role 'nobody_here'/.test(e.message));
    await assert.rejects(grantSpaceRole(urlOf('reviewer_a'), { role: 'agent_b', space: 'a', level: 'reviewer' }), (e) => isAgentMemoryError(e) && /schema owner/.test(e.message));
    assert.equal((await grantSpaceRole(pg().ownerUrl, { role: 'agent_a', space: 'a', level: 'agent' })).changed, false);
    assert.deepEqual(await grantSpaceRole(pg().ownerUrl, { role: 'agent_b', space: 'a', level: 'reviewer', revoke: true }), { role: 'agent_b', space: 'a', level: null, changed: false });
    const members = (await sql('owner', "SELECT role, level FROM space_members WHERE space IN ('a', 'b') ORDER BY space, role")).rows;
    assert.deepEqual(members, [{ role: 'agent_a', level: 'agent' }, { role: 'reviewer_a', level: 'reviewer' }, { role: 'agent_b', level: 'agent' }]);
    // Through the CLI, as JSON.
    const { bare, password } = splitPassword(pg().ownerUrl);
    const r = await runCli(['team-grant', '--url', bare, '--role', 'agent_b', '--space', 'c', '--as', 'agent', '--json'], password);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { role: 'agent_b', space: 'c', level: 'agent', changed: true });
    const back = await runCli(['team-grant', '--url', bare, '--role', 'agent_b', '--space', 'c', '--as', 'agent', '--revoke', '--json'], password);
    assert.deepEqual(JSON.parse(back.stdout), { role: 'agent_b', space: 'c', level: null, changed: true });
  });

  it("an agent's record is pending whatever it sent, with no counters of its own, until a reviewer of its space approves it", async () => {
    const row = (await sql('owner', "SELECT status, retrieval_count FROM records WHERE space = 'a' AND id = $1", [pendingId])).rows[0];
    assert.deepEqual(row, { status: 'pending', retrieval_count: '0' });
    // Raw SQL: status active, counters and a chosen rid are overridden by the server.
    await sql('agent_a', "INSERT INTO records (rid, space, id, question, code, language, outcome, status, provenance, created_at, updated_at, retrieval_count, utility_sum, utility_count) VALUES (1, 'a', 'raw-1', 'q', 'c', 'python', 'success', 'active', 'user', 'now', 'now', 1000, 1000, 1000)");
    const raw = (await sql('owner', "SELECT rid, status, retrieval_count, utility_sum FROM records WHERE id = 'raw-1'")).rows[0];
    assert.equal(raw.status, 'pending');
    assert.equal(raw.retrieval_count, '0');
    assert.equal(raw.utility_sum, 0);
    assert.notEqual(raw.rid, '1');
    const before = await snapshot();
    const agent = await store('agent_a', 'a');
    await assert.rejects(agent.transition([pendingId], 'approve', { trigger: 'user' }), (e) => isAgentMemoryError(e, 'FORBIDDEN') && /not a reviewer of space a/.test(e.message));
    await assert.rejects(agent.setAdditionPolicy('all'), (e) => isAgentMemoryError(e, 'FORBIDDEN'));
    const otherSpaceAgent = await store('agent_b', 'a');
    await assert.rejects(otherSpaceAgent.transition([pendingId], 'approve', { trigger: 'user' }), (e) => isAgentMemoryError(e, 'FORBIDDEN'));
    assert.equal(await snapshot(), before, 'nothing changed');
    const reviewer = await store('reviewer_a', 'a');
    await reviewer.transition([pendingId], 'approve', { trigger: 'user' });
    assert.equal((await sql('owner', 'SELECT status FROM records WHERE id = $1', [pendingId])).rows[0].status, 'active');
    const entry = (await sql('owner', "SELECT actor_user, actor_role FROM audit WHERE record_id = $1 AND operation = 'approve'", [pendingId])).rows[0];
    assert.deepEqual(entry, { actor_user: 'reviewer_a', actor_role: 'reviewer_a' });
  });

  it('tampering probes as an agent (rewrite, delete, re-scope, counters, sequences, policy, audit, membership) change nothing', async () => {
    const before = await snapshot();
    for (const q of [
      `UPDATE records SET status = 'active' WHERE id = 'raw-1'`,
      `UPDATE records SET question = 'rewritten'`,
      `UPDATE records SET retrieval_count = 999999, utility_sum = 999, utility_count = 1`,
      `UPDATE records SET space = 'b'`,
      `DELETE FROM records`,
      `UPDATE audit SET reason = 'forged'`, `DELETE FROM audit`,
      `UPDATE retrievals SET utility = 1`, `DELETE FROM retrievals`,
      `UPDATE change_log SET kind = 'purged'`, `DELETE FROM change_log`,
      `UPDATE tasks SET space = 'b'`, `UPDATE tasks SET task_index = task_index + 1000`, `UPDATE tasks SET utility = 1`, `DELETE FROM tasks`,
      `INSERT INTO tasks (space, task_index, question, started_at) VALUES ('a', 9000000000, 'q', 'now')`,
      `INSERT INTO meta (space, key, value) VALUES ('a', 'addition_policy', 'all')`,
      `UPDATE meta SET value = 'all'`, `DELETE FROM meta`,
      `SELECT agent_memory_set_policy('a', 'all')`,
      `SELECT setval('task_index_seq', 1)`, `SELECT setval('records_rid_seq', 1)`, `SELECT setval('audit_id_seq', 1)`, `SELECT nextval('records_rid_seq')`,
      `INSERT INTO term_stats VALUES ('a', 'x', 100)`, `UPDATE term_stats SET df = 0`,
      `INSERT INTO space_members (space, role, level) VALUES ('a', 'agent_a', 'reviewer')`, `UPDATE space_members SET level = 'reviewer'`,
      `SELECT agent_memory_purge('a', ARRAY(SELECT rid FROM records))`,
      `SELECT agent_memory_set_status('a', ARRAY(SELECT rid FROM records), ARRAY['active'], ARRAY[NULL], 'now')`,
      `SELECT * FROM agent_memory_lock_records('a', ARRAY['raw-1'])`,
      `SELECT agent_memory_replace_space('a')`, `SELECT agent_memory_after_task_restore('a')`,
      `SELECT agent_memory_log_retrievals('b', 1, ARRAY['b-1'], ARRAY[0], ARRAY[0.5::float8])`,
      `INSERT INTO records (space, id, question, code, language, outcome, status, provenance, created_at, updated_at) VALUES ('b', 'x', 'q', 'c', 'python', 'success', 'active', 'user', 'now', 'now')`,
      `INSERT INTO audit (space, at, operation, trigger) VALUES ('b', 'now', 'approve', 'user')`,
      `INSERT INTO retrievals (space, task_index, rid, rank) SELECT 'a', 1, rid, 0 FROM records LIMIT 1`,
    ]) await refused('agent_a', q);
    // What the agent can read: its space only.
    assert.equal((await sql('agent_a', "SELECT count(*)::int AS n FROM records WHERE space = 'b'")).rows[0].n, 0);
    assert.equal((await sql('agent_a', 'SELECT count(DISTINCT space)::int AS n FROM audit')).rows[0].n, 1);
    assert.equal(await snapshot(), before, 'no probe changed a row, a counter or a sequence');
  });

  it("an agent's own audit entry: the server sets the id, the actor and the chain; a forged one is overwritten", async () => {
    await sql('agent_a', "INSERT INTO audit (id, space, at, operation, trigger, actor_user, actor_role, prev_hash, hash) VALUES (1, 'a', 'now', 'approve', 'user', 'reviewer_a', 'reviewer_a', 'x', 'y')");
    const row = (await sql('owner', "SELECT id, actor_user, actor_role FROM audit WHERE space = 'a' ORDER BY id DESC LIMIT 1")).rows[0];
    assert.notEqual(row.id, '1');
    assert.deepEqual([row.actor_user, row.actor_role], ['reviewer_a', 'agent_a'], "the client's self-description is kept beside the server's actor");
    const a = await store('agent_a', 'a');
    assert.deepEqual(await verifyTeamAudit(a), { ok: true, entries: Number((await sql('owner', "SELECT count(*) AS n FROM audit WHERE space = 'a'")).rows[0].n), first_bad: null });
  });

  it('an agent still does its work: tasks, retrievals and Φ through the functions, counted once', async () => {
    const agent = await store('agent_a', 'a');
    const t = await beginTeamTask(agent, 'how many?');
    assert.equal(await logTeamRetrievals(agent, t, [{ recordId: pendingId, rank: 0, inputSimilarity: 0.9 }]), 1);
    assert.equal(await logTeamRetrievals(agent, t, [{ recordId: pendingId, rank: 0, inputSimilarity: 0.9 }]), 0);
    assert.deepEqual(await setTeamUtility(agent, t, 1), [pendingId]);
    const row = (await sql('owner', 'SELECT retrieval_count, utility_sum, utility_count FROM records WHERE id = $1', [pendingId])).rows[0];
    assert.deepEqual(row, { retrieval_count: '1', utility_sum: 1, utility_count: '1' });
    const forged = await assert.rejects(logTeamRetrievals(agent, 999_999_999, [{ recordId: pendingId, rank: 0, inputSimilarity: 0.9 }]));
    void forged;
    assert.equal((await sql('owner', 'SELECT retrieval_count FROM records WHERE id = $1', [pendingId])).rows[0].retrieval_count, '1', 'no counter bumped for a task that is not in the space');
  });

  it('a role that may connect but holds no level sees nothing and changes nothing; a role without CONNECT cannot connect', async () => {
    const before = await snapshot();
    await refused('outsider', 'SELECT count(*) FROM records');
    for (const q of [
      `INSERT INTO records (space, id, question, code, language, outcome, status, provenance, created_at, updated_at) VALUES ('a', 'o', 'q', 'c', 'python', 'success', 'active', 'user', 'now', 'now')`,
      `SELECT agent_memory_begin_task('a', 'q', 'now')`, `SELECT agent_memory_set_policy('a', 'all')`, `SELECT setval('task_index_seq', 1)`,
    ]) await refused('outsider', q);
    await assert.rejects(TeamMemoryStore.connect({ url: urlOf('outsider'), space: 'a', user: 'o', client: 'o' }), (e) => isAgentMemoryError(e));
    await assert.rejects(sql('stranger', 'SELECT 1'), /permission denied for database|not permitted to log in|CONNECT/i);
    assert.equal(await snapshot(), before);
  });

  it('notifications are prompts only: a non-JSON payload and a forged seq neither crash the feed nor make it skip a real change', async () => {
    const feed = await TeamChangeFeed.start({ url: urlOf('reviewer_a'), space: 'a', user: 'r', client: 'feed' });
    open.push(feed);
    const seen: TeamChange[] = [];
    feed.onDidChange((c) => seen.push(c));
    await sql('agent_a', "SELECT pg_notify('agent_memory_changes', 'not json {')");
    await sql('agent_a', `SELECT pg_notify('agent_memory_changes', '{"space":"a","seq":9000000000000,"id":"forged","kind":"purged"}')`);
    await sql('outsider', `SELECT pg_notify('agent_memory_changes', '{"space":"a","seq":9000000000000,"id":"forged","kind":"purged"}')`);
    const agent = await store('agent_a', 'a');
    const [real] = await agent.add([sampleRecord({ id: 'after-forgery', code: 'answer = 2' })], { trigger: 'agent' });
    const deadline = Date.now() + 10_000;
    while (!seen.some((c) => c.id === real.id) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.ok(seen.some((c) => c.id === real.id && c.kind === 'added'), JSON.stringify(seen));
    assert.ok(!seen.some((c) => c.id === 'forged'));
  });

  it('a revoke applies to the next statement of an open session, and so does a grant (the membership is read at every statement, only its plan is kept)', async () => {
    const owner = await store('owner', 'live');
    await owner.add([sampleRecord({ id: 'live-1', question: 'how many tracheostomy stays', code: 'answer = 11' })], { trigger: 'import' });
    await grantSpaceRole(pg().ownerUrl, { role: 'agent_b', space: 'live', level: 'agent' });
    const session = new Client({ connectionString: urlOf('agent_b') });
    await session.connect();
    try {
      const reads = async (): Promise<{ rows: number; level: unknown; keyword: number | string }> => {
        const rows = Number((await session.query("SELECT count(*) AS n FROM records WHERE space = 'live'")).rows[0].n);
        const level = (await session.query("SELECT agent_memory_level('live') AS l")).rows[0].l;
        const keyword = await session.query("SELECT count(*) AS n FROM agent_memory_search('live', 'tracheostomy', NULL, 0, 32, 40, false, '{1000,250,5000}') WHERE side = 'k'").then((r) => Number(r.rows[0].n), (e: Error & { code?: string }) => e.code ?? e.message);
        return { rows, level, keyword };
      };
      // Several statements first: the session's plans of the membership checks are made and kept.
      for (let i = 0; i < 3; i++) assert.deepEqual(await reads(), { rows: 1, level: 'agent', keyword: 1 });
      await grantSpaceRole(pg().ownerUrl, { role: 'agent_b', space: 'live', level: 'agent', revoke: true });
      assert.deepEqual(await reads(), { rows: 0, level: null, keyword: '42501' });
      await grantSpaceRole(pg().ownerUrl, { role: 'agent_b', space: 'live', level: 'reviewer' });
      assert.deepEqual(await reads(), { rows: 1, level: 'reviewer', keyword: 1 });
      assert.equal((await session.query("SELECT 'live' = ANY (agent_memory_spaces('reviewer')) AS yes")).rows[0].yes, true);
    } finally {
      await session.end();
      await grantSpaceRole(pg().ownerUrl, { role: 'agent_b', space: 'live', level: 'reviewer', revoke: true });
    }
    assert.equal((await sql('agent_b', "SELECT count(*) AS n FROM records WHERE space = 'live'")).rows[0].n, '0');
  });

  it('writers of another space are unaffected: agent_b records in b while a is probed', async () => {
    const b = await store('agent_b', 'b');
    const [rec] = await b.add([sampleRecord({ id: 'b-2', code: 'answer = 3' })], { trigger: 'agent' });
    assert.equal(rec.status, 'pending');
    const rows = (await sql('owner', "SELECT id, status FROM records WHERE space = 'b' ORDER BY rid")).rows;
    assert.deepEqual(rows, [{ id: activeB, status: 'active' }, { id: 'b-2', status: 'pending' }]);
  });

  it('audit --verify: ok on an untouched space; after the owner edits or deletes an entry in SQL, not ok naming it (API and CLI)', async () => {
    const reviewer = await store('reviewer_a', 'a');
    await reviewer.add([1, 2, 3, 4].map((i) => sampleRecord({ id: `v-${i}`, code: `answer = ${i}0` })), { trigger: 'user' });
    const ok = await verifyTeamAudit(reviewer);
    assert.equal(ok.ok, true);
    const { bare, password } = splitPassword(urlOf('reviewer_a'));
    const cli = await runCli(['audit', '--db', bare, '--space', 'a', '--verify', '--json'], password);
    assert.equal(cli.code, 0, cli.stderr);
    assert.deepEqual(JSON.parse(cli.stdout), ok);
    const ids = (await sql('owner', "SELECT id::int FROM audit WHERE space = 'a' ORDER BY id")).rows.map((r) => r.id as number);
    const edited = ids[ids.length - 3];
    await sql('owner', "UPDATE audit SET reason = 'rewritten' WHERE id = $1", [edited]);
    assert.deepEqual(await verifyTeamAudit(reviewer), { ok: false, entries: ids.length, first_bad: edited });
    const bad = await runCli(['audit', '--db', bare, '--space', 'a', '--verify', '--json'], password);
    assert.equal(bad.code, 1);
    assert.deepEqual(JSON.parse(bad.stdout), { ok: false, entries: ids.length, first_bad: edited });
    // Deleting entries: space b — the one after a deleted middle entry, and the last one.
    const bOwner = await store('owner', 'b');
    await bOwner.add([1, 2, 3].map((i) => sampleRecord({ id: `bv-${i}`, code: `answer = ${i}00` })), { trigger: 'user' });
    const bIds = (await sql('owner', "SELECT id::int FROM audit WHERE space = 'b' ORDER BY id")).rows.map((r) => r.id as number);
    await sql('owner', 'DELETE FROM audit WHERE id = $1', [bIds[bIds.length - 1]]);
    assert.deepEqual(await verifyTeamAudit(bOwner), { ok: false, entries: bIds.length - 1, first_bad: bIds[bIds.length - 1] });
    await sql('owner', 'DELETE FROM audit WHERE id = $1', [bIds[1]]);
    assert.deepEqual(await verifyTeamAudit(bOwner), { ok: false, entries: bIds.length - 2, first_bad: bIds[2] });
  });

  it("restore --replace is a reviewer's: refused to an agent (nothing changed); a reviewer's keeps the replaced audit in audit_archive and audits itself", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'team-roles-'));
    try {
      const ownerA = await store('owner', 'c');
      await ownerA.add([sampleRecord({ id: 'c-1' })], { trigger: 'import' });
      await grantSpaceRole(pg().ownerUrl, { role: 'agent_a', space: 'c', level: 'agent' });
      await grantSpaceRole(pg().ownerUrl, { role: 'reviewer_a', space: 'c', level: 'reviewer' });
      const file = path.join(dir, 'c.sqlite');
      await backupTeam(ownerA, file);
      const before = await snapshot();
      await assert.rejects(restoreTeam(await store('agent_a', 'c'), file, { replace: true }), (e) => isAgentMemoryError(e, 'FORBIDDEN'));
      assert.equal(await snapshot(), before);
      const oldAudit = (await sql('owner', "SELECT id, hash FROM audit WHERE space = 'c' ORDER BY id")).rows;
      const reviewer = await store('reviewer_a', 'c');
      await restoreTeam(reviewer, file, { replace: true });
      assert.deepEqual((await sql('owner', "SELECT id, hash FROM audit_archive WHERE space = 'c' ORDER BY id")).rows, oldAudit);
      const last = (await sql('owner', "SELECT operation, actor_role FROM audit WHERE space = 'c' ORDER BY id DESC LIMIT 1")).rows[0];
      assert.deepEqual(last, { operation: 'restore', actor_role: 'reviewer_a' });
      assert.equal((await verifyTeamAudit(reviewer)).ok, true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
