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
