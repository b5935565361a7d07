/**
 * The user's level in a team space as the editor uses it: read once on connect from the real server
 * (PostgreSQL, migration 5), said by the status item, turned into the when-clause key that offers
 * approve / reject / restore to reviewers only, and a refusal that says what is needed and who grants it.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from 'pg';
import { isAgentMemoryError } from '../../../src/core/errors';
import { grantSpaceRole } from '../../../src/core/memory/postgres/team-members';
import { setupTeamMemory } from '../../../src/core/memory/postgres/team-setup';
import { TeamMemoryStore } from '../../../src/core/memory/postgres/team-store';
import { forbiddenAdvice, offersReview, TEAM_LEVEL_CONTEXT_KEY, teamLevelContext, type TeamLevelContext } from '../../../src/core/team/team-level';
import { TeamSession } from '../../../src/core/team/team-session';
import { teamStatusText } from '../../../src/core/team/team-status';
import { superuserMemoryUrl, usePostgres } from '../../support/postgres';
import { sampleRecord } from '../../support/records';

const REVIEWER_COMMANDS = ['agentMemory.approveTeamRecords', 'agentMemory.rejectTeamRecords', 'agentMemory.restoreTeamRecords'];
const LEVELS: TeamLevelContext[] = ['owner', 'reviewer', 'agent', 'none', 'unknown'];

/** Evaluates the `agentMemory.teamLevel != X` terms of a when clause for one level (the other terms are the view's). */
function levelTermsHold(when: string, level: TeamLevelContext): boolean {
  const terms = [...when.matchAll(new RegExp(`${TEAM_LEVEL_CONTEXT_KEY.replace('.', '\\.')} != (\\w+)`, 'g'))].map((m) => m[1]);
  assert.ok(terms.length > 0, `no ${TEAM_LEVEL_CONTEXT_KEY} term in "${when}"`);
  return terms.every((t) => level !== t);
}

describe('team level: status item, reviewer-only actions, refusals (core logic and the real server)', function () {
  this.timeout(120_000);

  it("package.json offers the reviewer's actions exactly where offersReview says (every menu and the command palette)", () => {
    const manifest = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8')) as { contributes: { menus: Record<string, { command: string; when?: string }[]> } };
    let seen = 0;
    for (const entries of Object.values(manifest.contributes.menus)) {
      for (const entry of entries.filter((e) => REVIEWER_COMMANDS.includes(e.command))) {
        seen++;
        for (const level of LEVELS) assert.equal(levelTermsHold(entry.when ?? '', level), offersReview(level), `${entry.command} at level ${level}: "${entry.when}"`);
      }
    }
    assert.equal(seen, 9, 'approve, reject, restore: inline and context menu in the view, and the palette');
    assert.deepEqual(LEVELS.filter(offersReview), ['owner', 'reviewer', 'unknown']);
  });

  it('a refusal names the level needed, the role and the command the owner runs', () => {
    assert.match(forbiddenAdvice('role bob is not a reviewer of space web', 'web'), /In space 'web' approving, rejecting, restoring, deleting and setting the policy need the reviewer level\. The owner of the team memory grants it: agent-memory team-grant --url OWNER_URL --role bob --space web --as reviewer\./);
    assert.match(forbiddenAdvice('role eve is not a member of space web', 'web'), /at least the agent level.*--role eve --space web --as agent\./);
    assert.match(forbiddenAdvice('new row violates row-level security policy for table "records"', 'web'), /lacks the level.*--space web --as reviewer\./);
  });

  describe('on the real server', () => {
    const pg = usePostgres();
    const urlOf = (role: string): string => {
      const u = new URL(pg().ownerUrl);
      u.username = role;
      u.password = `pw-${role}`;
      return u.toString();
    };
    const sessions: TeamSession[] = [];
    const session = async (role: string): Promise<TeamSession> => {
      const s = new TeamSession({ connection: { url: role === 'owner' ? pg().ownerUrl : urlOf(role), space: 'web', user: role, client: 'test' } });
      sessions.push(s);
      await s.store();
      return s;
    };
    let pendingId: string;

    before(async () => {
      await setupTeamMemory(pg().ownerUrl, { dimensions: [16] });
      const su = new Client({ connectionString: superuserMemoryUrl(pg()) });
      await su.connect();
      try {
        for (const r of ['agent_w', 'reviewer_w', 'outsider_w']) await su.query(`CREATE ROLE ${r} LOGIN PASSWORD 'pw-${r}'`);
      } finally {
        await su.end();
      }
      await grantSpaceRole(pg().ownerUrl, { role: 'agent_w', space: 'web', level: 'agent' });
      await grantSpaceRole(pg().ownerUrl, { role: 'reviewer_w', space: 'web', level: 'reviewer' });
      // A reviewer of another space: connects, holds nothing in 'web'.
      await grantSpaceRole(pg().ownerUrl, { role: 'outsider_w', space: 'other', level: 'reviewer' });
      const agent = await TeamMemoryStore.connect({ url: urlOf('agent_w'), space: 'web', user: 'agent_w', client: 'test' });
      try {
        pendingId = (await agent.add([sampleRecord({ id: 'w-1', status: 'pending' })], { trigger: 'agent' }))[0].id;
      } finally {
        await agent.close();
      }
    });
    after(async () => {
      await Promise.all(sessions.splice(0).map((s) => s.close()));
    });

    it('the session reads the level once on connect; the status item says it', async () => {
      const levels: Record<string, TeamLevelContext> = {};
      for (const role of ['owner', 'reviewer_w', 'agent_w', 'outsider_w']) levels[role] = (await session(role)).level;
      assert.deepEqual({ ...levels }, { owner: 'owner', reviewer_w: 'reviewer', agent_w: 'agent', outsider_w: 'none' });
      const connected = { kind: 'connected' as const, message: "connected to localhost, space 'web'" };
      assert.equal(teamStatusText('web', 'localhost', connected, undefined, levels.agent_w).text, 'Team memory: web · connected · agent');
      assert.equal(teamStatusText('web', 'localhost', connected, undefined, levels.reviewer_w).text, 'Team memory: web · connected · reviewer');
      assert.match(teamStatusText('web', 'localhost', connected, undefined, levels.agent_w).tooltip, /You are an agent of space 'web'.*need the reviewer level.*team-grant .*--space web --as reviewer/);
      assert.equal(teamStatusText('web', 'localhost', connected).text, 'Team memory: web · connected', 'an unknown level adds nothing');
      assert.equal(teamLevelContext(null), 'none');
    });

    it("an agent's approval is refused by the server (FORBIDDEN) with the level needed and the owner's team-grant command; a reviewer's goes through", async () => {
      const agent = await session('agent_w');
      await assert.rejects(
        agent.run((store) => store.transition([pendingId], 'approve', { trigger: 'user' })),
        (e) => isAgentMemoryError(e, 'FORBIDDEN') && /need the reviewer level\. The owner of the team memory grants it: agent-memory team-grant --url OWNER_URL --role agent_w --space web --as reviewer\. Nothing was changed\./.test(e.message),
      );
      const reviewer = await session('reviewer_w');
      assert.equal((await reviewer.run((store) => store.get(pendingId)))?.status, 'pending', 'the refused approval changed nothing');
      const [approved] = await reviewer.run((store) => store.transition([pendingId], 'approve', { trigger: 'user' }));
      assert.equal(approved.status, 'active');
    });
  });
});
