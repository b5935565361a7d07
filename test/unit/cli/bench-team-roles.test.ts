/**
 * bench:team --roles separate (bench-team-roles.ts) on the real PostgreSQL: the login roles it
 * creates hold the levels it grants (an agent's approval is refused by the server), and the
 * owner's check of the strict gate reports a record activated without a reviewer's approval and
 * a status change whose server-side actor is an agent role (edited in as the owner).
 */
import * as assert from 'node:assert/strict';
import { Client } from 'pg';
import { isAgentMemoryError } from '../../../src/core/errors';
import { setupTeamMemory } from '../../../src/core/memory/postgres/team-setup';
import { TeamMemoryStore } from '../../../src/core/memory/postgres/team-store';
import { benchVector } from '../../../src/cli/team/bench-team-data';
import { checkRoleGate, createBenchRoles } from '../../../src/cli/team/bench-team-roles';
import { usePostgres } from '../../support/postgres';

describe('bench:team separate roles and the owner\'s check of the strict gate (real PostgreSQL)', function () {
  this.timeout(120_000);
  const pg = usePostgres();
  const open: TeamMemoryStore[] = [];
  after(async () => {
    await Promise.all(open.map((s) => s.close()));
  });
  const owner = async (sql: string, params: unknown[]): Promise<void> => {
    const c = new Client({ connectionString: pg().ownerUrl });
    await c.connect();
    try {
      await c.query(sql, params);
    } finally {
      await c.end();
    }
  };

  it('grants each login its level, and counts approvals, pending records and violations as the owner reads them', async () => {
    await setupTeamMemory(pg().ownerUrl, { dimensions: [16] });
    const space = 'gate';
    const roles = await createBenchRoles(pg(), space, 1, 1, process.env);
    assert.deepEqual(roles.agents.map((a) => a.role), ['bench_agent_0']);
    assert.deepEqual(roles.reviewers.map((r) => r.role), ['bench_reviewer_0']);
    const connect = async (login: { url: string; password: string }, user: string): Promise<TeamMemoryStore> => {
      const s = await TeamMemoryStore.connect({ url: login.url, password: login.password, space, user, client: 'test' });
      open.push(s);
      return s;
    };
    const agent = await connect(roles.agents[0], 'agent');
    const reviewer = await connect(roles.reviewers[0], 'reviewer');
    assert.equal(await agent.level(), 'agent');
    assert.equal(await reviewer.level(), 'reviewer');
    const ids = ['bench-0-0', 'bench-0-1', 'bench-0-2'];
    for (const [i, id] of ids.entries()) {
      // The last one as an import asking for 'active': the server stores it pending all the same.
      await agent.add([{ id, question: `question ${i}`, execution: { code: `x = ${i}`, language: 'python', outcome: 'success' }, provenance: 'agent', status: 'active' }], {
        trigger: i === 2 ? 'import' : 'agent', embeddings: [benchVector(i, 16)], embedderId: 'bench', merge: false,
      });
    }
    assert.deepEqual((await agent.getMany(ids)).map((r) => r.status), ['pending', 'pending', 'pending']);
    await assert.rejects(agent.transition(['bench-0-0'], 'approve', { trigger: 'user' }), (e: unknown) => isAgentMemoryError(e, 'FORBIDDEN'));
    await reviewer.transition(['bench-0-0', 'bench-0-2'], 'approve', { trigger: 'user' });
    assert.deepEqual(await checkRoleGate(pg().ownerUrl, space, roles, ids), { approved_by_reviewer: 2, left_pending: 1, gate_violations: 0, agent_status_changes_in_audit: 0 });

    // Activated behind the reviewer's back (no approval in the audit): a violation.
    await owner("UPDATE records SET status = 'active' WHERE space = $1 AND id = $2", [space, 'bench-0-1']);
    assert.deepEqual(await checkRoleGate(pg().ownerUrl, space, roles, ids), { approved_by_reviewer: 2, left_pending: 0, gate_violations: 1, agent_status_changes_in_audit: 0 });

    // An approval whose server-side actor is the agent role: counted, and that record is no longer approved by a reviewer.
    await owner("UPDATE audit SET actor_role = 'bench_agent_0' WHERE space = $1 AND record_id = $2 AND operation = 'approve'", [space, 'bench-0-2']);
    assert.deepEqual(await checkRoleGate(pg().ownerUrl, space, roles, ids), { approved_by_reviewer: 1, left_pending: 0, gate_violations: 2, agent_status_changes_in_audit: 1 });

    // An acknowledged record that is not there at all: a violation too.
    assert.equal((await checkRoleGate(pg().ownerUrl, space, roles, [...ids, 'bench-0-9'])).gate_violations, 3);
  });
});
