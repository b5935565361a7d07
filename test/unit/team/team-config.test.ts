import * as assert from 'node:assert/strict';
import { editorActor, resolveTeamConfig, spaceFromFolder, teamHost } from '../../../src/core/team/team-config';
import { isPasswordProblem } from '../../../src/core/memory/postgres/connection';
import { teamStatusText } from '../../../src/core/team/team-status';
import { AgentMemoryError } from '../../../src/core/errors';
import { parseSettings } from '../../../src/core/settings';

describe('team memory settings (core/team/team-config)', () => {
  it('off when no URL is set; the space defaults to the workspace folder name, else "default"', () => {
    assert.deepEqual(resolveTeamConfig({ url: '', space: '' }, 'repo'), { kind: 'off' });
    assert.deepEqual(resolveTeamConfig({ url: 'postgres://app@db.example.com:5433/mem?sslmode=verify-full', space: '' }, 'my-repo'), {
      kind: 'on', url: 'postgres://app@db.example.com:5433/mem?sslmode=verify-full', space: 'my-repo', host: 'db.example.com:5433',
    });
    const named = resolveTeamConfig({ url: 'postgresql://app@db/mem', space: 'shared.ehr' }, 'my-repo');
    assert.equal(named.kind === 'on' && named.space, 'shared.ehr');
    const noFolder = resolveTeamConfig({ url: 'postgres://app@db/mem', space: '' }, undefined);
    assert.equal(noFolder.kind === 'on' && noFolder.space, 'default');
  });

  it('refuses a URL with a password (in the user info or as a parameter) without repeating the password', () => {
    for (const url of ['postgres://app:s3cret-pw@db/mem', 'postgres://app@db/mem?password=s3cret-pw&sslmode=require']) {
      const config = resolveTeamConfig({ url, space: '' }, 'repo');
      assert.equal(config.kind, 'invalid', url);
      const message = config.kind === 'invalid' ? config.message : '';
      assert.match(message, /contains a password/);
      assert.match(message, /Set Team Memory Password/);
      assert.ok(!message.includes('s3cret-pw'), message);
    }
  });

  it('refuses a URL that is not postgres://, one without a user, and a bad space name', () => {
    assert.match(JSON.stringify(resolveTeamConfig({ url: 'mysql://app@db/mem', space: '' }, 'r')), /must be a postgres:\/\/ URL/);
    assert.match(JSON.stringify(resolveTeamConfig({ url: 'postgres://db/mem', space: '' }, 'r')), /names no user/);
    assert.match(JSON.stringify(resolveTeamConfig({ url: 'postgres://app@db/mem', space: 'a space' }, 'r')), /is not a space name/);
  });

  it('derives a valid space from any folder name', () => {
    assert.equal(spaceFromFolder('My Repo (fork)'), 'My-Repo-fork-');
    assert.equal(spaceFromFolder('.hidden'), 'hidden');
    assert.equal(spaceFromFolder('ünïcode'), 'n-code');
    assert.equal(spaceFromFolder('***'), 'default');
    assert.equal(spaceFromFolder('x'.repeat(300)).length, 100);
  });

  it('the settings carry team.url and team.space (defaults empty)', () => {
    const { settings, problems } = parseSettings((key) => (key === 'team.url' ? 'postgres://app@db/mem' : undefined));
    assert.deepEqual(problems, []);
    assert.deepEqual(settings.team, { url: 'postgres://app@db/mem', space: '' });
  });

  it('names the editor as the acting client', () => {
    const actor = editorActor();
    assert.match(actor.client, /^vscode@.+/);
    assert.ok(actor.user.length > 0);
    assert.equal(teamHost('postgres://app@10.0.0.5/mem'), '10.0.0.5');
  });

  it('recognises a refused login as "password needed" and nothing else', () => {
    assert.equal(isPasswordProblem(new AgentMemoryError('DATABASE', 'refused', { pgCode: '28P01' })), true);
    assert.equal(isPasswordProblem(new Error('SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a string')), true);
    assert.equal(isPasswordProblem(new AgentMemoryError('UNREACHABLE', 'connect ECONNREFUSED 127.0.0.1:5432')), false);
    assert.equal(isPasswordProblem(new AgentMemoryError('DATABASE', 'relation "records" does not exist', { pgCode: '42P01' })), false);
  });

  it('status bar words for each state', () => {
    const text = (kind: Parameters<typeof teamStatusText>[2]['kind']) => teamStatusText('repo', 'db:5432', { kind, message: 'm' }).text;
    assert.equal(text('connected'), 'Team memory: repo · connected');
    assert.equal(text('unreachable'), 'Team memory: repo · unreachable (db:5432)');
    assert.equal(text('password-needed'), 'Team memory: repo · password needed');
  });
});
