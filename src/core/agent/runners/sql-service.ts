import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import { z } from 'zod';
import { AgentMemoryError, errorMessage } from '../../errors';
import type { Logger } from '../../logger';
import type { ChildSqlRequest } from './types';

/**
 * Source of the SQL helper process (plain Node, no permission flags: it is our
 * code). It opens the database with better-sqlite3 `{ readonly: true,
 * fileMustExist: true }`, sets `query_only`, and answers one NDJSON request a
 * line. Only statements that are both read-only and return rows are run, so
 * INSERT/UPDATE/DELETE/DROP/CREATE, ATTACH/DETACH, BEGIN and PRAGMA writes are refused.
 * PRAGMAs are allow-listed (schema reads only) and results are capped at
 * MAX_SQL_ROWS rows. argv: [modulePath, databasePath, maxRows].
 */
const HELPER_SOURCE = String.raw`
'use strict';
const Database = require(process.argv[1]);
const readline = require('readline');
const out = (obj) => process.stdout.write(JSON.stringify(obj) + '\n');
let db;
try {
  db = new Database(process.argv[2], { readonly: true, fileMustExist: true });
  db.pragma('query_only = ON');
} catch (e) {
  out({ id: 0, fatal: String((e && e.message) || e) });
  process.exit(2);
}
out({ id: 0, ready: true });
const PRAGMAS = new Set(['table_info', 'table_xinfo', 'index_list', 'index_info', 'index_xinfo', 'foreign_key_list', 'table_list']);
const MAX_ROWS = Number(process.argv[3]);
function refuse(message) { const e = new Error(message); e.name = 'SqlReadOnlyError'; return e; }
function checkPragma(query) {
  let q = query;
  for (;;) {
    const m = /^(\s+|--[^\n]*(\n|$)|\/\*[\s\S]*?\*\/)/.exec(q);
    if (!m) break;
    q = q.slice(m[0].length);
  }
  if (!/^pragma\b/i.test(q)) return;
  const m = /^pragma\s+(?:["\x60\[]?\w+["\x60\]]?\s*\.\s*)?["\x60\[]?(\w+)/i.exec(q);
  if (!m || !PRAGMAS.has(m[1].toLowerCase()) || /=/.test(q)) throw refuse('PRAGMA ' + (m ? m[1] : '') + ' is not allowed; only ' + [...PRAGMAS].join(', ') + ' may be read');
}
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  let id = -1;
  try {
    const req = JSON.parse(line);
    id = req.id;
    const stmt = db.prepare(req.query);
    if (!stmt.readonly || !stmt.reader) throw refuse('only read-only queries that return rows are allowed (SELECT / WITH ... SELECT); writes, ATTACH, transactions and PRAGMA changes are refused');
    checkPragma(req.query);
    if (req.shape !== 'object') stmt.raw(true);
    const rows = [];
    for (const row of stmt.iterate(...req.params)) {
      if (rows.length >= MAX_ROWS) throw new Error('the query returned more than ' + MAX_ROWS + ' rows; aggregate or add a LIMIT');
      rows.push(row);
    }
    out({ id, ok: true, rows });
  } catch (e) {
    out({ id, ok: false, error: { kind: e && e.name === 'SqlReadOnlyError' ? 'SqlReadOnlyError' : 'SqlError', message: String((e && e.message) || e) } });
  }
}).on('close', () => process.exit(0));
`;

/** Most rows one `sql()` call may return. */
export const MAX_SQL_ROWS = 200_000;
const STARTUP_TIMEOUT_MS = 30_000;

const HelperMessageSchema = z.union([
  z.object({ id: z.literal(0), ready: z.literal(true) }),
  z.object({ id: z.literal(0), fatal: z.string() }),
  z.object({ id: z.number().int(), ok: z.literal(true), rows: z.array(z.unknown()) }),
  z.object({ id: z.number().int(), ok: z.literal(false), error: z.object({ kind: z.string(), message: z.string() }) }),
]);

/** Reply to a child's SQL request. */
export type SqlReply = { ok: true; rows: unknown[] } | { ok: false; error: { kind: string; message: string } };

interface Pending {
  owner: number;
  resolve: (reply: SqlReply) => void;
}

/**
 * A long-lived helper process that serves read-only SQL over one database for
 * the JavaScript sandbox (the sandbox itself may not load native addons, which
 * would bypass Node's permission model). Running SQL outside the host process
 * means a runaway query (a cartesian join, an endless recursive CTE) can be
 * killed without blocking the host: `release(owner)` kills the helper when that
 * owner still has a query in flight; the next query starts a fresh one.
 *
 * @example
 * const svc = new SqlService('/data/ehr.sqlite', logger);
 * const reply = await svc.query(1, { t: 'sql', query: 'select 1', params: [], shape: 'array' });
 * svc.release(1); svc.dispose();
 */
export class SqlService {
  private child: ChildProcessWithoutNullStreams | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private buffer = '';
  private started: { promise: Promise<void>; resolve: () => void } | undefined;

  constructor(
    readonly databasePath: string,
    private readonly logger: Logger,
  ) {}

  /**
   * Runs one read-only query (already in the EHRSQL dialect) for `owner`. Never
   * rejects. A query still running after `timeoutMs` kills the helper (a running
   * SQLite statement cannot be interrupted) and answers a SqlTimeout error.
   */
  query(owner: number, request: ChildSqlRequest, timeoutMs?: number): Promise<SqlReply> {
    return new Promise<SqlReply>((outerResolve) => {
      let timer: NodeJS.Timeout | undefined;
      const resolve = (reply: SqlReply): void => {
        if (timer) clearTimeout(timer);
        outerResolve(reply);
      };
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          this.logger.debug(`killing the SQL helper: a query of run ${owner} ran past ${timeoutMs} ms`);
          this.stop('the query ran past the time limit');
        }, Math.max(1, timeoutMs));
      }
      let child: ChildProcessWithoutNullStreams;
      try {
        child = this.ensureStarted();
      } catch (error) {
        resolve({ ok: false, error: { kind: 'SqlError', message: errorMessage(error) } });
        return;
      }
      const id = this.nextId++;
      this.pending.set(id, { owner, resolve });
      child.stdin.write(JSON.stringify({ id, query: request.query, params: request.params, shape: request.shape }) + '\n');
    });
  }

  /**
   * Starts the helper if needed and resolves once it has opened the database (or
   * failed: the next query then reports why). Runners await this before a run's
   * clock starts, so starting the helper never eats into the program's time.
   */
  ready(): Promise<void> {
    try {
      this.ensureStarted();
    } catch {
      return Promise.resolve();
    }
    return this.started?.promise ?? Promise.resolve();
  }

  /** Ends `owner`'s use; kills the helper if one of its queries is still running. */
  release(owner: number): void {
    const stuck = [...this.pending.values()].some((p) => p.owner === owner);
    if (stuck) {
      this.logger.debug(`killing the SQL helper: a query of run ${owner} was still running`);
      this.stop('the SQL helper was restarted because another run was cancelled mid-query');
    }
  }

  /** Stops the helper process (idempotent). */
  dispose(): void {
    this.stop('the SQL service was disposed');
  }

  private stop(reason: string): void {
    const child = this.child;
    this.child = null;
    this.buffer = '';
    this.started?.resolve();
    this.started = undefined;
    if (child) child.kill('SIGKILL');
    for (const p of this.pending.values()) p.resolve({ ok: false, error: { kind: 'SqlError', message: reason } });
    this.pending.clear();
  }

  private ensureStarted(): ChildProcessWithoutNullStreams {
    if (this.child) return this.child;
    if (!fs.existsSync(this.databasePath)) {
      throw new AgentMemoryError('RUNNER', `Database not found: ${this.databasePath}. Point the runner at an existing SQLite file.`);
    }
    const modulePath = require.resolve('better-sqlite3');
    const child = spawn(process.execPath, ['-e', HELPER_SOURCE, modulePath, this.databasePath, String(MAX_SQL_ROWS)], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { LANG: 'C.UTF-8' },
      windowsHide: true,
    });
    this.child = child;
    // A ref'd timer keeps the host's event loop alive until the helper is ready (the child itself is unref'd).
    const startup = setTimeout(() => {
      if (this.child === child) this.stop(`the SQL helper did not start within ${STARTUP_TIMEOUT_MS} ms`);
    }, STARTUP_TIMEOUT_MS);
    let resolveStarted = (): void => undefined;
    const promise = new Promise<void>((resolve) => (resolveStarted = resolve)).finally(() => clearTimeout(startup));
    this.started = { promise, resolve: resolveStarted };
    child.unref();
    for (const s of [child.stdin, child.stdout, child.stderr] as unknown as Array<{ unref?: () => void }>) s.unref?.();
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => this.onData(child, chunk));
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < 4000) stderr += chunk;
    });
    child.stdin.on('error', () => undefined);
    child.on('error', (error) => {
      this.logger.warn(`SQL helper failed: ${error.message}`);
      if (this.child === child) this.stop(`the SQL helper failed: ${error.message}`);
    });
    child.on('exit', (code, signal) => {
      if (this.child !== child) return;
      this.logger.warn(`SQL helper exited (code ${code}, signal ${signal}) ${stderr.trim()}`);
      this.stop(`the SQL helper exited unexpectedly (code ${code}, signal ${signal}) ${stderr.trim()}`.trim());
    });
    return child;
  }

  private onData(child: ChildProcessWithoutNullStreams, chunk: string): void {
    if (this.child !== child) return;
    this.buffer += chunk;
    let nl = chunk.includes('\n') ? this.buffer.indexOf('\n') : -1;
    while (nl >= 0) {
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      this.onLine(line);
      if (this.child !== child) return;
      nl = this.buffer.indexOf('\n');
    }
  }

  private onLine(line: string): void {
    let parsed: z.infer<typeof HelperMessageSchema>;
    try {
      parsed = HelperMessageSchema.parse(JSON.parse(line));
    } catch (error) {
      this.logger.warn(`SQL helper sent an invalid message: ${errorMessage(error)}`);
      return;
    }
    if ('fatal' in parsed) {
      this.stop(`cannot open the database read-only: ${parsed.fatal}`);
      return;
    }
    if ('ready' in parsed) {
      this.started?.resolve();
      return;
    }
    const p = this.pending.get(parsed.id);
    if (!p) return;
    this.pending.delete(parsed.id);
    p.resolve(parsed.ok ? { ok: true, rows: parsed.rows } : { ok: false, error: parsed.error });
  }
}
