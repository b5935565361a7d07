/**
 * A throwaway PostgreSQL 15 cluster for tests and `bench:team`: initdb into a private
 * temporary folder, run as the `postgres` user (PostgreSQL refuses root) on a private
 * socket directory and a free TCP port on 127.0.0.1, with pgvector available
 * (scripts/postgres-setup.sh builds it). `stop()` shuts it down and removes every file; so does
 * the process's exit, SIGINT or SIGTERM (exit-cleanup.ts), even while the cluster is starting.
 *
 * Two login roles are created, as docs/team-memory.md documents:
 * - `agent_memory_owner` owns the schema and runs the migrations;
 * - `agent_memory_app` is what editors, the CLI and MCP servers log in as: it may read and
 *   write rows but owns nothing, so it cannot drop or alter tables.
 * Passwords are random per cluster and handed back only inside the URLs' password field.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { AgentMemoryError } from '../../core/errors';
import { onExitOrSignal } from '../exit-cleanup';

const BIN = '/usr/lib/postgresql/15/bin';

export interface ThrowawayPostgres {
  port: number;
  socketDir: string;
  /** Superuser (postgres) URL: only for setup and for tests that inspect the server. */
  superuserUrl: string;
  /** The schema owner's URL (runs migrations). */
  ownerUrl: string;
  /** The least-privilege application role's URL. */
  appUrl: string;
  /** Passwords, so tests can check they never reach a log, an error or an export. */
  passwords: string[];
  /** Restarts the server (`immediate`: like a crash, recovery from the WAL on start). */
  restart(mode?: 'fast' | 'immediate'): void;
  /** Stops the server without blocking the event loop (clients in this process see it go); `start` brings it back. */
  pause(): Promise<void>;
  /** Starts a paused server again (same port, data and roles). */
  resume(): Promise<void>;
  stop(): void;
}

function postgresIds(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined; // not root: run as ourselves
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  return { uid, gid };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface ThrowawayOptions {
  /** Extra server settings (`name=value`, passed as `-c`), e.g. `shared_preload_libraries=pg_stat_statements` for a bench's per-statement figures. */
  settings?: string[];
}

/** A server setting as `-c` takes it: a plain name and a value without spaces or quotes. */
const SETTING = /^[a-z_.]+=[A-Za-z0-9_.,-]+$/;

/** Starts a fresh cluster (about 2–4 s). Throws CONFIG with what to run when PostgreSQL 15 or pgvector is missing. */
export async function startThrowawayPostgres(options: ThrowawayOptions = {}): Promise<ThrowawayPostgres> {
  const settings = options.settings ?? [];
  const bad = settings.find((s) => !SETTING.test(s));
  if (bad !== undefined) throw new AgentMemoryError('INVALID_INPUT', `'${bad}' is not a server setting the throwaway cluster takes (name=value, no spaces or quotes).`);
  if (!fs.existsSync(path.join(BIN, 'initdb'))) {
    throw new AgentMemoryError('CONFIG', `PostgreSQL 15 is not installed (${BIN}/initdb missing). Run: bash scripts/bootstrap.sh (as root).`);
  }
  const ids = postgresIds();
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-memory-pg-'));
  const data = path.join(base, 'data');
  // From here the cluster is stopped and its folder removed however this process ends: stop(), a failed
  // start, the process's exit, SIGINT or SIGTERM (a crashed or interrupted bench or test leaves no server behind).
  const stop = onExitOrSignal(() => {
    try {
      if (fs.existsSync(path.join(data, 'postmaster.pid'))) spawnSync(path.join(BIN, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop'], { ...(ids ?? {}) });
    } finally {
      fs.rmSync(base, { recursive: true, force: true });
    }
  });
  try {
    return await startIn(base, data, ids, stop, settings);
  } catch (error) {
    stop();
    throw error;
  }
}

async function startIn(base: string, data: string, ids: { uid: number; gid: number } | undefined, stop: () => void, settings: string[]): Promise<ThrowawayPostgres> {
  const socketDir = path.join(base, 'sock');
  fs.mkdirSync(socketDir);
  const superPassword = randomBytes(18).toString('base64url');
  const ownerPassword = randomBytes(18).toString('base64url');
  const appPassword = randomBytes(18).toString('base64url');
  const pwfile = path.join(base, 'pw');
  fs.writeFileSync(pwfile, superPassword, { mode: 0o600 });
  if (ids) {
    for (const p of [base, socketDir, pwfile]) fs.chownSync(p, ids.uid, ids.gid);
  }
  const run = (cmd: string, args: string[]): void => {
    const r = spawnSync(path.join(BIN, cmd), args, { ...(ids ?? {}), encoding: 'utf8', cwd: base });
    if (r.status !== 0) throw new AgentMemoryError('DATABASE', `${cmd} failed (exit ${String(r.status)}): ${(r.stderr || r.stdout).slice(-800)}`);
  };
  const runAsync = (cmd: string, args: string[]): Promise<void> =>
    new Promise((resolve, reject) => {
      execFile(path.join(BIN, cmd), args, { ...(ids ?? {}), encoding: 'utf8', cwd: base }, (error, stdout, stderr) => {
        if (error) reject(new AgentMemoryError('DATABASE', `${cmd} failed: ${(stderr || stdout || error.message).slice(-800)}`));
        else resolve();
      });
    });
  const port = await freePort();
  run('initdb', ['-D', data, '-U', 'postgres', '--pwfile', pwfile, '-A', 'scram-sha-256', '-E', 'UTF8', '--no-sync']);
  fs.rmSync(pwfile);
  const options = `-p ${port} -k ${socketDir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200 -c shared_buffers=64MB${settings.map((x) => ` -c ${x}`).join('')}`;
  const log = path.join(base, 'server.log');
  const start = (): void => run('pg_ctl', ['-D', data, '-o', options, '-l', log, '-w', '-t', '60', 'start']);
  start();
  const url = (user: string, password: string, db: string): string =>
    `postgres://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}/${db}?sslmode=disable`;
  const superuserUrl = url('postgres', superPassword, 'postgres');
  const psql = (sql: string, db = 'postgres'): void => {
    const r = spawnSync(path.join(BIN, 'psql'), ['-v', 'ON_ERROR_STOP=1', '-q', '-h', socketDir, '-p', String(port), '-U', 'postgres', '-d', db, '-c', sql], {
      ...(ids ?? {}),
      encoding: 'utf8',
      env: { ...process.env, PGPASSWORD: superPassword },
    });
    if (r.status !== 0) throw new AgentMemoryError('DATABASE', `cluster setup failed: ${r.stderr.slice(-800)}`);
  };
  psql(`CREATE ROLE agent_memory_owner LOGIN PASSWORD '${ownerPassword}'; CREATE ROLE agent_memory_app LOGIN PASSWORD '${appPassword}';`);
  psql('CREATE DATABASE agent_memory OWNER agent_memory_owner;');
  // pgvector is created by the superuser once (CREATE EXTENSION needs it for an untrusted extension).
  psql('CREATE EXTENSION vector; REVOKE CREATE ON SCHEMA public FROM PUBLIC; GRANT CONNECT ON DATABASE agent_memory TO agent_memory_app;', 'agent_memory');
  return {
    port,
    socketDir,
    superuserUrl,
    ownerUrl: url('agent_memory_owner', ownerPassword, 'agent_memory'),
    appUrl: url('agent_memory_app', appPassword, 'agent_memory'),
    passwords: [superPassword, ownerPassword, appPassword],
    restart(mode = 'fast') {
      run('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']);
      start();
    },
    pause: () => runAsync('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']),
    resume: () => runAsync('pg_ctl', ['-D', data, '-o', options, '-l', log, '-w', '-t', '60', 'start']),
    stop,
  };
}
