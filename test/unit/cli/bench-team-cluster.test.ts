/**
 * Issue 38: a `bench:team` that failed left its throwaway PostgreSQL cluster running, and a
 * password set in the environment for another server (AGENT_MEMORY_PG_PASSWORD) replaced its own
 * cluster's, so the owner's login was refused. The bench runs here as npm runs it (a real child
 * process through tsx, a real cluster, real client processes), with a private TMPDIR so its
 * cluster folder can be watched.
 */
import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TEAM_DEFAULT_DIMENSION } from '../../../src/core/memory/postgres/team-embedder';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const BENCH = path.join(ROOT, 'src', 'cli', 'bench-team.ts');
const FOREIGN = { AGENT_MEMORY_PG_PASSWORD: 'a-password-for-another-server', PGPASSWORD: 'another-one' };

function start(tmp: string, args: string[]): { child: ChildProcess; done: Promise<{ code: number | null; stdout: string; stderr: string }> } {
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', BENCH, ...args], { cwd: ROOT, env: { ...process.env, ...FOREIGN, TMPDIR: tmp }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  return { child, done: new Promise((resolve, reject) => child.on('error', reject).on('close', (code) => resolve({ code, stdout, stderr }))) };
}

const clusterDirs = (tmp: string) => fs.readdirSync(tmp).filter((f) => f.startsWith('agent-memory-pg-'));

/** Whether the process runs (a zombie waiting for init to reap it has stopped). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Waits until the process has gone; the suite's timeout fails the test if it never does. */
async function gone(pid: number): Promise<void> {
  while (alive(pid)) await new Promise((resolve) => setTimeout(resolve, 100));
}

describe('bench:team and its own throwaway cluster', function () {
  this.timeout(300_000);
  let tmp: string;
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'am-bench-team-'));
    // The cluster runs as the postgres user (PostgreSQL refuses root): it must reach its folder inside.
    fs.chmodSync(tmp, 0o755);
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('ignores a password set in the environment for another server, and removes its cluster when done', async () => {
    const { done } = start(tmp, ['--clients', '1', '--rounds', '5', '--records', '20', '--json']);
    const r = await done;
    assert.equal(r.code, 0, `exit ${r.code}: ${r.stderr.slice(-1500)}`);
    const report = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as { writes_acknowledged: number; writes_lost: number };
    assert.ok(report.writes_acknowledged > 0, 'the client wrote through its own cluster');
    assert.equal(report.writes_lost, 0);
    assert.deepEqual(clusterDirs(tmp), [], 'the cluster folder is removed');
  });

  it('runs agents and reviewers as separate login roles at the built-in dimension: agent approvals refused, every agent record approved by a reviewer', async () => {
    const rounds = 6;
    const r = await start(tmp, ['--clients', '2', '--rounds', String(rounds), '--records', '30', '--json']).done;
    assert.equal(r.code, 0, `exit ${r.code}: ${r.stdout.slice(-1500)} ${r.stderr.slice(-1500)}`);
    const report = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as Record<string, unknown>;
    assert.equal(report.dimension, TEAM_DEFAULT_DIMENSION);
    assert.equal(report.roles, 'separate');
    assert.deepEqual(report.role_layout, {
      agents: [{ role: 'bench_agent_0', level: 'agent', clients: 1 }, { role: 'bench_agent_1', level: 'agent', clients: 1 }],
      reviewers: [{ role: 'bench_reviewer_0', level: 'reviewer', processes: 1 }],
    });
    assert.equal(report.writes_acknowledged, 2 * rounds);
    assert.equal(report.writes_lost, 0);
    assert.equal(report.increments_found, report.increments_sent);
    // Each agent tried to approve its previous record every round after the first: the server refused every one.
    assert.equal(report.agent_approvals_refused, 2 * (rounds - 1));
    assert.equal(report.agent_approvals_succeeded, 0);
    assert.equal(report.agent_approvals_failed_otherwise, 0);
    // Read as the owner: every agent record (half of them sent as 'active' imports) was pending until the reviewer approved it.
    assert.equal(report.agent_records_approved_by_reviewer, 2 * rounds);
    assert.equal(report.agent_records_left_pending, 0);
    assert.equal(report.gate_violations, 0);
    assert.equal(report.agent_status_changes_in_audit, 0);
    assert.deepEqual(clusterDirs(tmp), [], 'the cluster folder is removed');
  });

  it('keeps the single-role layout (--roles single): every client the one application role, approving its own records', async () => {
    const r = await start(tmp, ['--clients', '1', '--rounds', '4', '--records', '20', '--roles', 'single', '--dimension', '16', '--json']).done;
    assert.equal(r.code, 0, `exit ${r.code}: ${r.stderr.slice(-1500)}`);
    const report = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as Record<string, unknown>;
    assert.equal(report.dimension, 16);
    assert.deepEqual(report.role_layout, { application_role: { role: 'agent_memory_app', level: 'reviewer of every space', clients: 1 } });
    assert.equal(report.writes_lost, 0);
    assert.equal(report.agent_approvals_succeeded, undefined, 'no gate figures without separate roles');
  });

  it('refuses --roles separate with --url (it creates its own login roles) before connecting', async () => {
    const r = await start(tmp, ['--url', 'postgres://someone@127.0.0.1:1/agent_memory', '--clients', '1', '--rounds', '1']).done;
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /--roles separate creates its own login roles/);
    assert.deepEqual(clusterDirs(tmp), []);
  });

  it('stops and removes its cluster when interrupted (SIGINT), exit code 130', async () => {
    const { child, done } = start(tmp, ['--clients', '1', '--rounds', '100000', '--records', '20']);
    // Wait (however long the machine takes) until the cluster's server runs, then interrupt the bench.
    let pid: number | undefined;
    while (pid === undefined) {
      const [dir] = clusterDirs(tmp);
      const pidFile = dir ? path.join(tmp, dir, 'data', 'postmaster.pid') : '';
      const text = pidFile && fs.existsSync(pidFile) ? fs.readFileSync(pidFile, 'utf8') : '';
      if (/^\d+\n/.test(text)) pid = Number(text.split('\n')[0]);
      else if (child.exitCode !== null) assert.fail(`the bench ended before its cluster ran: ${(await done).stderr.slice(-1500)}`);
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(alive(pid), 'the cluster runs');
    child.kill('SIGINT');
    const r = await done;
    assert.equal(r.code, 130, `exit ${r.code}: ${r.stderr.slice(-1500)}`);
    await gone(pid); // the server was stopped (pg_ctl stop -m immediate; init reaps it)
    assert.deepEqual(clusterDirs(tmp), [], 'the cluster folder is removed');
  });
});
