import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AgentTaskResult } from '../../../../src/core/app/types';
import { setupTeamMemory } from '../../../../src/core/memory/postgres/team-setup';
import { TeamMemoryStore } from '../../../../src/core/memory/postgres/team-store';
import { usePostgres } from '../../../support/postgres';
import { runCli, splitPassword, transcript } from '../../../support/team-processes';
import { CHART_HEART_RATE, LAB_POTASSIUM } from '../../../support/records';

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');

/** Three stream questions of the bundled demo (a non-empty gold answer), as a --tasks file. */
function writeTasks(file: string): { question: string }[] {
  const lines = fs.readFileSync(path.join(ROOT, 'data', 'ehr', 'ehrsql-mimic3-tasks.jsonl'), 'utf8').split('\n').filter((l) => l.includes('"answer_status": "nonempty"'));
  const picked = [lines[0], lines[Math.floor(lines.length / 2)], lines[lines.length - 1]];
  fs.writeFileSync(file, picked.join('\n') + '\n');
  return picked.map((l) => JSON.parse(l) as { question: string });
}

const ok = (r: { code: number; stdout: string; stderr: string }, what: string): string => {
  assert.equal(r.code, 0, `${what}: ${r.stderr}`);
  return r.stdout;
};

const keysOf = (line: string): string => Object.keys(JSON.parse(line) as object).filter((k) => k !== 'embedding' && k !== 'embedderId').sort().join(',');

describe('every CLI command on a postgres:// team memory (real child processes, real cluster)', function () {
  this.timeout(600_000);
  const pg = usePostgres();
  let bare: string;
  let password: string;
  let dir: string;
  let team: TeamMemoryStore;
  const team$ = (...argv: string[]) => runCli(argv, password);

  before(async () => {
    await setupTeamMemory(pg().ownerUrl, { dimensions: [] });
    ({ bare, password } = splitPassword(pg().appUrl));
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-team-cli-'));
    team = await TeamMemoryStore.connect({ url: pg().appUrl, space: 'cli', user: 'test', client: 'test' });
  });
  after(async () => {
    await team?.close();
    // Every output of every process, and every file the commands wrote: no password of the cluster.
    const written = fs.readdirSync(dir).map((f) => fs.readFileSync(path.join(dir, f)).toString('latin1'));
    const all = transcript.join('\n') + written.join('\n');
    for (const p of pg().passwords) assert.ok(!all.includes(p), 'a password reached an output or a file');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('seed → task (3 questions) on a space: strict keeps the agent records pending, retrievals and Φ land on the server; the export has the SQLite export shape', async () => {
    const tasksFile = path.join(dir, 'tasks.jsonl');
    const questions = writeTasks(tasksFile);
    assert.equal(ok(await team$('seed', '--db', bare, '--space', 'cli', '--count', '30'), 'seed').trim(), '30');
    assert.equal(ok(await team$('seed', '--db', bare, '--space', 'cli', '--count', '30'), 'seed again').trim(), '0', 'seeded records are skipped');

    const out = ok(await team$('task', '--db', bare, '--space', 'cli', '--tasks', tasksFile, '--json'), 'task');
    const graded = out.trim().split('\n').map((l) => JSON.parse(l) as AgentTaskResult);
    assert.deepEqual(graded.map((r) => r.question), questions.map((q) => q.question));
    for (const r of graded) {
      assert.equal(r.verdict.source, 'gold');
      // A correct answer is added active by strict's ground-truth rule, but the server keeps an agent's record pending.
      if (r.verdict.kind === 'correct') assert.deepEqual([r.addition.status, /stored pending \(the space's policy\)/.test(r.addition.reason)], ['pending', true], r.addition.reason);
      else assert.equal(r.addition.recordId, null, r.addition.reason);
    }
    // Without a gold answer (the editor's case), strict stores the agent's record pending for a reviewer.
    const asked = JSON.parse(ok(await team$('task', '--db', bare, '--space', 'cli', '--question', questions[0].question, '--json'), 'task --question')) as AgentTaskResult;
    assert.equal(asked.addition.status, 'pending', asked.addition.reason);
    const results = [...graded, asked];
    for (const r of results) assert.ok(r.demonstrations.length > 0, 'the seeded space served demonstrations');
    const counts = await team.counts();
    const added = results.filter((r) => r.addition.recordId !== null);
    const addedIds = new Set(added.map((r) => r.addition.recordId)); // an identical addition merges into the pending twin
    assert.deepEqual(counts, { active: 30, pending: addedIds.size, deleted: 0 });

    // Every retrieval was logged under a team task, and Φ went to the shown records (atomic increments).
    const stats = await team.withClient((c) =>
      c.query<{ retrievals: number; credited: number; tasks: number }>(
        "SELECT (SELECT coalesce(sum(retrieval_count), 0)::int FROM records WHERE space = 'cli') AS retrievals, (SELECT coalesce(sum(utility_count), 0)::int FROM records WHERE space = 'cli') AS credited, (SELECT count(*)::int FROM tasks WHERE space = 'cli' AND finished_at IS NOT NULL) AS tasks",
      ), 'read');
    assert.equal(stats.rows[0].retrievals, results.reduce((n, r) => n + r.demonstrations.length, 0));
    assert.equal(stats.rows[0].credited, results.filter((r) => r.utility !== null).reduce((n, r) => n + r.demonstrations.filter((d) => d.shown).length, 0));
    assert.equal(stats.rows[0].tasks, 4);
    const taskRows = await team.withClient((c) => c.query<{ task_index: number; log: string; record_id: string | null }>("SELECT task_index, log, record_id FROM tasks WHERE space = 'cli' ORDER BY task_index"), 'read');
    assert.deepEqual(taskRows.rows.map((t) => t.task_index), results.map((r) => r.taskIndex));
    for (const t of taskRows.rows) assert.equal(typeof (JSON.parse(t.log) as { memorySize?: number }).memorySize, 'number', 'the pipeline\'s final log reached the server');
    for (const r of added) {
      const audit = await team.audit({ recordId: r.addition.recordId! });
      assert.equal(audit[0].operation, 'add');
      assert.match(audit[0].client, /^cli@/);
    }

    // The same run on a SQLite file: the export lines have the same fields.
    const file = path.join(dir, 'local.sqlite');
    ok(await runCli(['seed', '--db', file, '--count', '30']), 'seed file');
    const local = ok(await runCli(['task', '--db', file, '--tasks', tasksFile, '--json']), 'task file').trim().split('\n').map((l) => JSON.parse(l) as AgentTaskResult);
    assert.deepEqual(Object.keys(local[0]).sort(), Object.keys(results[0]).sort(), 'one result shape on both backends');
    const teamExport = ok(await team$('export', '--db', bare, '--space', 'cli'), 'export team').trim().split('\n');
    const fileExport = ok(await runCli(['export', '--db', file]), 'export file').trim().split('\n');
    assert.equal(teamExport.length, 30 + addedIds.size);
    assert.deepEqual([...new Set(teamExport.map(keysOf))].sort(), [...new Set(fileExport.map(keysOf))].sort());
    const seedText = (lines: string[]) => lines.map((l) => JSON.parse(l) as { provenance: string; question: string; execution: unknown }).filter((r) => r.provenance === 'seed').map((r) => JSON.stringify([r.question, r.execution])).sort();
    assert.deepEqual(seedText(teamExport), seedText(fileExport), 'the same demo records on both backends');
  });

  it('task --rerank on a space: the demonstrations are re-ranked with the agent database\'s values (the lab program, where the fused order gives the chart one)', async () => {
    // No stored program compares "calculated total co2": only the agent's database (the bundled demo) says it is a lab test.
    const question = 'What was the last calculated total co2 value of patient 12?';
    const space = await TeamMemoryStore.connect({ url: pg().appUrl, space: 'cli-rerank', user: 'test', client: 'test' });
    let ids: string[];
    try {
      const { embedder } = await space.sharedEmbedder();
      const added = await space.add(
        [CHART_HEART_RATE, LAB_POTASSIUM].map((r) => ({ question: r.question, execution: { code: r.code, language: 'python' as const, outcome: 'success' as const }, provenance: 'seed' as const })),
        { trigger: 'user', reason: 'test seed', merge: false, embedder },
      );
      ids = added.map((r) => r.id);
    } finally {
      await space.close();
    }
    const top = async (extra: string[]): Promise<string> => {
      const r = JSON.parse(ok(await team$('task', '--db', bare, '--space', 'cli-rerank', '--question', question, '--json', ...extra), `task ${extra.join(' ')}`)) as { demonstrations: { recordId: string }[] };
      return r.demonstrations[0].recordId;
    };
    assert.equal(await top([]), ids[0], 'fused: the chart record');
    assert.equal(await top(['--rerank']), ids[1], 're-ranked: the lab record');
  });

  it('export is byte-identical with the SQLite export of the same records (migrate to a file), and export → import → export round-trips in a space', async () => {
    const exported = ok(await team$('export', '--db', bare, '--space', 'cli'), 'export');
    const copy = path.join(dir, 'copy.sqlite');
    ok(await team$('migrate', '--from', bare, '--from-space', 'cli', '--to', copy), 'migrate');
    assert.equal(ok(await runCli(['export', '--db', copy]), 'export file'), exported);

    const jsonl = path.join(dir, 'cli.jsonl');
    fs.writeFileSync(jsonl, exported);
    assert.match(ok(await team$('import', jsonl, '--db', bare, '--space', 'imported'), 'import'), /imported \d+ record\(s\) into space imported/);
    assert.equal(ok(await team$('export', '--db', bare, '--space', 'imported'), 'export imported'), exported);
    const again = await team$('import', jsonl, '--db', bare, '--space', 'imported');
    assert.equal(again.code, 1);
    assert.match(again.stderr, /IMPORT: \d+ record id\(s\) already exist in this memory/);
    const fresh = path.join(dir, 'imported.sqlite');
    ok(await runCli(['import', jsonl, '--db', fresh]), 'import file');
    assert.equal(ok(await runCli(['export', '--db', fresh]), 'export imported file'), exported);
  });

  it('backup writes a checked SQLite snapshot of the space; restore refuses a non-empty space, --replace replaces it in one transaction', async () => {
    const exported = ok(await team$('export', '--db', bare, '--space', 'cli'), 'export');
    const backup = path.join(dir, 'cli-backup.sqlite');
    assert.match(ok(await team$('backup', '--db', bare, '--space', 'cli', '--out', backup), 'backup'), /backed up \d+ record\(s\) to .*cli-backup\.sqlite/);
    const twice = await team$('backup', '--db', bare, '--space', 'cli', '--out', backup);
    assert.equal(twice.code, 1);
    assert.match(twice.stderr, /already exists; a backup never overwrites a file/);
    assert.equal(ok(await runCli(['export', '--db', backup]), 'export backup'), exported, 'the backup is a memory file with the same records');

    ok(await team$('restore', '--from', backup, '--db', bare, '--space', 'restored'), 'restore');
    assert.equal(ok(await team$('export', '--db', bare, '--space', 'restored'), 'export restored'), exported);
    const restoredTeam = await TeamMemoryStore.connect({ url: pg().appUrl, space: 'restored', user: 'test', client: 'test' });
    try {
      const [seedRecord] = await restoredTeam.listByStatus('active', 1);
      await restoredTeam.transition([seedRecord.id], 'delete', { trigger: 'user', reason: 'changed after the backup' });
      const before = await restoredTeam.counts();
      const refused = await team$('restore', '--from', backup, '--db', bare, '--space', 'restored');
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /INVALID_STATE: Space 'restored' of the team memory is not empty.*restore --replace/);
      assert.deepEqual(await restoredTeam.counts(), before, 'nothing changed');
      assert.match(ok(await team$('restore', '--from', backup, '--db', bare, '--space', 'restored', '--replace'), 'restore --replace'), /replacing \d+ record\(s\)/);
      assert.equal(ok(await team$('export', '--db', bare, '--space', 'restored'), 'export replaced'), exported);
      assert.equal((await restoredTeam.get(seedRecord.id))?.status, 'active');
    } finally {
      await restoredTeam.close();
    }
    // A team backup restores into a file too (it is an ordinary memory file).
    const file = path.join(dir, 'from-team-backup.sqlite');
    ok(await runCli(['restore', '--from', backup, '--db', file]), 'restore into a file');
    assert.equal(ok(await runCli(['export', '--db', file]), 'export file'), exported);
  });

  it('review: approvals, rejections and restores of several ids in one call are one transaction, all or nothing', async () => {
    const ids = ['r1', 'r2', 'r3'];
    await team.add(ids.map((id) => ({ id, question: `review question ${id}`, execution: { code: `answer = '${id}'`, language: 'python', outcome: 'success' }, status: 'pending' })), { trigger: 'user', merge: false });
    const before = await team.counts();
    const refused = await team$('review', '--db', bare, '--space', 'cli', '--approve', 'r1', '--approve', 'r2', '--reject', 'r3', '--restore', 'r1');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /INVALID_STATE: Cannot restore 'r1': it is active/);
    assert.deepEqual(await team.counts(), before, 'the approvals and the rejection before the refused restore were rolled back');
    assert.deepEqual((await team.getMany(ids)).map((r) => r.status), ['pending', 'pending', 'pending']);

    const done = ok(await team$('review', '--db', bare, '--space', 'cli', '--approve', 'r1', '--approve', 'r2', '--reject', 'r3', '--restore', 'r3', '--json'), 'review');
    const changed = (JSON.parse(done) as { changed: { operation: string; id: string; status: string }[] }).changed;
    assert.deepEqual(changed, [
      { operation: 'approve', id: 'r1', status: 'active' },
      { operation: 'approve', id: 'r2', status: 'active' },
      { operation: 'reject', id: 'r3', status: 'pending' },
      { operation: 'restore', id: 'r3', status: 'pending' },
    ]);
    const audit = await team.audit({ recordId: 'r3' });
    assert.deepEqual(audit.slice(0, 2).map((a) => a.operation), ['restore', 'reject']);
  });
});
