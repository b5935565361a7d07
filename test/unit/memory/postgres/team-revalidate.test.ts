import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { searchTeam } from '../../../../src/core/memory/postgres/team-search';
import { seedTeamDemo } from '../../../../src/core/memory/postgres/team-seed';
import { setupTeamMemory } from '../../../../src/core/memory/postgres/team-setup';
import { TeamMemoryStore } from '../../../../src/core/memory/postgres/team-store';
import { usePostgres } from '../../../support/postgres';
import { runCli, splitPassword, transcript } from '../../../support/team-processes';

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');
const DEMO_DB = path.join(ROOT, 'data', 'ehr', 'mimic3-demo.sqlite');
const TASKS = path.join(ROOT, 'data', 'ehr', 'ehrsql-mimic3-tasks.jsonl');

describe('revalidate on a postgres:// team space (real CLI process, real cluster)', function () {
  this.timeout(600_000);
  const pg = usePostgres();
  let dir: string;
  let team: TeamMemoryStore;
  let other: TeamMemoryStore;

  before(async () => {
    await setupTeamMemory(pg().ownerUrl, { dimensions: [] });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-team-revalidate-'));
    team = await TeamMemoryStore.connect({ url: pg().appUrl, space: 'reval', user: 'test', client: 'test' });
    other = await TeamMemoryStore.connect({ url: pg().appUrl, space: 'other', user: 'test', client: 'test' });
    assert.equal(await seedTeamDemo(team, TASKS, 40, 'python'), 40);
    assert.equal(await seedTeamDemo(other, TASKS, 40, 'python'), 40);
  });
  after(async () => {
    await team?.close();
    await other?.close();
    const all = transcript.join('\n');
    for (const p of pg().passwords) assert.ok(!all.includes(p), 'a password reached an output');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('marks exactly the programs that use a renamed column stale (audited, in this space only); team retrieval skips them; a clean re-run clears them', async () => {
    const drifted = path.join(dir, 'drifted.sqlite');
    fs.copyFileSync(DEMO_DB, drifted);
    const db = new Database(drifted);
    db.exec('ALTER TABLE prescriptions RENAME COLUMN drug TO drug_name');
    db.close();
    const records = await team.listByStatus('active', 1000);
    assert.equal(records.length, 40);
    const usesColumn = new Set(records.filter((r) => /\bdrug\b/.test(r.execution.code.replace(/'[^']*'/g, "''"))).map((r) => r.id));
    assert.ok(usesColumn.size > 0 && usesColumn.size < 40, `programs using prescriptions.drug: ${usesColumn.size}`);

    const { bare, password } = splitPassword(pg().appUrl);
    const r = await runCli(['revalidate', '--db', bare, '--space', 'reval', '--data', drifted, '--json'], password);
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as { checked: number; unchanged: number; changed: number; failing: number; failing_ids: string[] };
    assert.equal(report.checked, 40);
    assert.deepEqual(new Set(report.failing_ids), usesColumn, 'exactly the programs that use the renamed column fail');
    assert.equal(report.unchanged, 40 - usesColumn.size);

    const stale = await team.withClient((c) => c.query<{ id: string }>('SELECT id FROM records WHERE space = $1 AND stale', [team.space]), 'read');
    assert.deepEqual(new Set(stale.rows.map((x) => x.id)), usesColumn, 'the failing records are marked stale on the server');
    const otherStale = await other.withClient((c) => c.query<{ n: number }>('SELECT count(*)::int AS n FROM records WHERE space = $1 AND stale', [other.space]), 'read');
    assert.equal(otherStale.rows[0].n, 0, 'another space is untouched');
    const staleOne = records.find((x) => usesColumn.has(x.id))!;
    const audit = await team.audit({ recordId: staleOne.id });
    assert.ok(audit.some((e) => e.operation === 'revalidate' && /stale/.test(e.reason) && e.client.startsWith('cli@')), 'the stale mark is audited with the client');
    // Its own question no longer brings it back from the team memory (the keyword side here; the dense side filters the same way).
    const hits = await searchTeam(team, staleOne.question, null, 10);
    assert.ok(hits.length > 0, 'the search still answers');
    assert.ok(hits.every((h) => !usesColumn.has(h.record.id)), 'no stale record is returned');
    const before = await searchTeam(other, staleOne.question, null, 10);
    assert.ok(before.some((h) => h.record.question === staleOne.question), 'the same record in the other space is still found');

    // The original data: every program runs clean again and the marks are cleared (audited).
    const clean = await runCli(['revalidate', '--db', bare, '--space', 'reval', '--data', DEMO_DB, '--json'], password);
    assert.equal(clean.code, 0, clean.stderr);
    assert.equal((JSON.parse(clean.stdout) as { failing: number }).failing, 0);
    const left = await team.withClient((c) => c.query<{ n: number }>('SELECT count(*)::int AS n FROM records WHERE space = $1 AND stale', [team.space]), 'read');
    assert.equal(left.rows[0].n, 0);
    assert.ok((await team.audit({ recordId: staleOne.id })).some((e) => e.operation === 'revalidate' && /no longer stale/.test(e.reason)));
    assert.ok((await searchTeam(team, staleOne.question, null, 10)).some((h) => h.record.id === staleOne.id), 'found again');
  });
});
