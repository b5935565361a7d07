import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { setupTeamMemory } from '../../../../src/core/memory/postgres/team-setup';
import { TeamMemoryStore } from '../../../../src/core/memory/postgres/team-store';
import { superuserMemoryUrl, usePostgres } from '../../../support/postgres';
import { runCli, splitPassword } from '../../../support/team-processes';

async function query<T extends object>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<T>(sql, params)).rows;
  } finally {
    await c.end();
  }
}

describe('team memory administration and connection mistakes (real cluster, real processes)', function () {
  this.timeout(300_000);
  const pg = usePostgres();
  let dir: string;
  before(async () => {
    await setupTeamMemory(pg().ownerUrl, { dimensions: [384] });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-team-admin-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const connect = (space: string) => TeamMemoryStore.connect({ url: pg().appUrl, space, user: 'alice', client: 'test' });

  it('team-setup refuses the owner or a missing role as the application role, and repairs the owner rights an earlier setup took', async () => {
    await assert.rejects(setupTeamMemory(pg().ownerUrl, { appRole: 'agent_memory_owner' }), /must be another role than the schema owner 'agent_memory_owner'.*Nothing was changed/);
    await assert.rejects(setupTeamMemory(pg().ownerUrl, { appRole: 'no_such_role' }), /No role 'no_such_role' on this server: create it first/);
    // What `--app-role <owner>` used to do: the owner loses its rights on the keyword statistics, and every write fails.
    await query(pg().ownerUrl, 'REVOKE INSERT, UPDATE, DELETE ON term_stats FROM agent_memory_owner');
    const team = await connect('repaired');
    try {
      await assert.rejects(team.add([{ question: 'how many patients', execution: { code: 'x', language: 'python', outcome: 'success' } }], { trigger: 'user' }), /permission denied/);
      await setupTeamMemory(pg().ownerUrl, { dimensions: [384] });
      const [rec] = await team.add([{ question: 'how many patients', execution: { code: 'x', language: 'python', outcome: 'success' } }], { trigger: 'user' });
      assert.equal(rec.status, 'active');
    } finally {
      await team.close();
    }
  });

  it("team-setup with a dimension the space refuses leaves no index behind", async () => {
    await setupTeamMemory(pg().ownerUrl, { dimensions: [384], space: 'dims' });
    await assert.rejects(setupTeamMemory(pg().ownerUrl, { dimensions: [96], space: 'dims' }), /EMBEDDER_MISMATCH|already embeds with/);
    const indexes = await query<{ indexname: string }>(superuserMemoryUrl(pg()), "SELECT indexname FROM pg_indexes WHERE tablename = 'records' AND indexname LIKE '%96%'");
    assert.deepEqual(indexes, []);
  });

  it('a missing password fails at once with what to set; a mistyped URL or one as --data never shows the password', async () => {
    const { bare, password } = splitPassword(pg().appUrl);
    const started = Date.now();
    const r = await runCli(['review', '--db', bare, '--space', 's1']);
    assert.equal(r.code, 1);
    assert.ok(Date.now() - started < 20_000, `took ${Date.now() - started} ms`);
    assert.match(r.stderr, /CONFIG: The team memory at .* refused the login \(.*: no password was given, or a wrong one\): set AGENT_MEMORY_PG_PASSWORD/);
    const u = new URL(bare);
    const secret = 'Sl@sh/Secret@99';
    const withSecret = `postgres://${u.username}:${secret}@${u.host}${u.pathname}${u.search}`;
    const typos = [
      ['review', '--db', withSecret.replace('postgres://', 'pg://')],
      ['review', '--db', withSecret.replace('postgres://', 'postgres:/')],
      ['export', '--db', withSecret, '--space', 's1'],
      ['task', '--db', path.join(dir, 'm.sqlite'), '--question', 'q', '--data', withSecret],
    ];
    for (const argv of typos) {
      const t = await runCli(argv, password);
      assert.notEqual(t.code, 0, argv.join(' '));
      assert.ok(!`${t.stdout}${t.stderr}`.includes('Secret@99'), `${argv[0]} ${argv[2]}: ${t.stderr}`);
    }
    assert.deepEqual(fs.readdirSync(process.cwd()).filter((f) => /^(pg|postgres):/.test(f)), [], 'no folder named after a URL');
  });

  it('a bad space is named in words; backup and restore of a space leave nothing beside the backup; a file that is no backup is named as such', async () => {
    const { bare, password } = splitPassword(pg().appUrl);
    const bad = await runCli(['review', '--db', bare, '--space', 'a b; DROP TABLE records'], password);
    assert.equal(bad.code, 2, 'a usage error');
    assert.match(bad.stderr, /INVALID_INPUT: --space: a space is a name of letters/);
    assert.doesNotMatch(bad.stderr, /"code":|\[\s*\{/);
    const seeded = await runCli(['seed', '--db', bare, '--space', 'kept', '--count', '5'], password);
    assert.equal(seeded.code, 0, seeded.stderr);
    const out = path.join(dir, 'kept.sqlite');
    assert.equal((await runCli(['backup', '--db', bare, '--space', 'kept', '--out', out], password)).code, 0);
    const restored = await runCli(['restore', '--from', out, '--db', bare, '--space', 'copy'], password);
    assert.equal(restored.code, 0, restored.stderr);
    assert.deepEqual(fs.readdirSync(dir).filter((f) => f.startsWith('kept')), ['kept.sqlite']);
    const jsonl = path.join(dir, 'kept.jsonl');
    fs.writeFileSync(jsonl, '{"question":"q"}\n');
    const wrong = await runCli(['restore', '--from', jsonl, '--db', bare, '--space', 'other'], password);
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /The backup .*kept\.jsonl is not an Agent Memory database\. Choose another backup \(--from\); space 'other' was not touched/);
  });
});
