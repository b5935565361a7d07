import type BetterSqlite3 from 'better-sqlite3';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentMemoryError, errorMessage } from '../../errors';
import { Logger, nullLogger } from '../../logger';
import { describeConnection, looksLikeUrl } from '../postgres/connection';
import { databaseError, restoreAdvice } from './database-errors';
import { loadVectorExtension, openConnection } from './native-sqlite';
import { Migration, MIGRATIONS, registerAuditHash, SCHEMA_VERSION } from './schema';
import { MemoryBudget, memoryBudget } from '../memory-budget';
import { autocheckpointPages, CheckpointMode } from './wal-checkpoint';

export type Database = BetterSqlite3.Database;

export interface OpenDatabaseOptions {
  logger?: Logger;
  /** Milliseconds a writer waits for a lock before SQLITE_BUSY (default 10 s). */
  busyTimeoutMs?: number;
  readonly?: boolean;
  /** Run `PRAGMA quick_check` before anything is written (default true). */
  integrityCheck?: boolean;
  /** Sizes this connection's page cache and memory map (default: the default budget's; see memory-budget.ts). */
  memoryBudget?: MemoryBudget;
  /** Where the WAL is checkpointed (default `idle`: after the commits; see wal-checkpoint.ts). */
  checkpoints?: CheckpointMode;
}

export const DEFAULT_BUSY_TIMEOUT_MS = 10_000;

/**
 * The connection's share of the memory budget: its page cache (`cache_size`, anonymous memory)
 * and, for a file, its memory-mapped I/O (`mmap_size`: the first bytes of the file are read
 * through a map whose pages the OS may drop under pressure).
 */
export function applyPageBudget(db: Database, budget: MemoryBudget, inMemory = db.memory): void {
  db.pragma(`cache_size = -${budget.sqlitePageCacheKiB}`);
  if (!inMemory) db.pragma(`mmap_size = ${budget.sqliteMmapBytes}`);
}

/**
 * Opens (or creates) a memory database: loads sqlite-vec (when this platform
 * has it; see native-sqlite.ts), checks the file's
 * integrity (`PRAGMA quick_check`: a damaged file is refused before anything
 * is written to it), enables WAL and a busy timeout, sizes its page cache and
 * memory map from the memory budget (applyPageBudget), and migrates the schema
 * in place. Before upgrading an existing database it is copied to
 * `<file>.v<old>.bak` so nothing stored can be lost. Every failure is a typed
 * AgentMemoryError naming the file (see database-errors.ts).
 *
 * @example
 * const db = openDatabase(':memory:');
 * const db2 = openDatabase('/path/to/memory.sqlite', { logger });
 */
export function openDatabase(file: string, options: OpenDatabaseOptions = {}): Database {
  const logger = options.logger ?? nullLogger;
  const inMemory = file === ':memory:' || file === '';
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  if (!inMemory && looksLikeUrl(file)) {
    // A mistyped team URL (pg://…, postgres:/…) would otherwise become folders named after it, password and all.
    throw new AgentMemoryError('INVALID_INPUT', `${describeConnection(file)} is a URL, not a file path: give the memory database as a file path, or a team memory as postgres://user@host/database where one is accepted. Nothing was created.`);
  }
  if (!inMemory) {
    if (statOf(file)?.isDirectory()) throw databaseError(Object.assign(new Error('is a directory'), { code: 'EISDIR' }), file, 'open');
    try {
      fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    } catch (error) {
      throw databaseError(error, file, 'create the folder of');
    }
  }
  let db: Database;
  try {
    db = openConnection(file, { readonly: options.readonly ?? false });
  } catch (error) {
    throw databaseError(error, file, 'open');
  }
  // Never fails: without sqlite-vec the dense side runs in-process (native-sqlite.ts).
  loadVectorExtension(db, logger);
  // The audit trigger's hash (schema v11): before the migrations, which may append to the audit.
  registerAuditHash(db);
  try {
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    db.pragma('foreign_keys = ON');
    applyPageBudget(db, options.memoryBudget ?? memoryBudget(), inMemory);
    if (!inMemory) refuseForeignDatabase(db, file);
    if (!inMemory && options.integrityCheck !== false) checkIntegrityUnlessKnownClean(db, file, !options.readonly);
    if (!inMemory && !options.readonly) {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      // The automatic checkpoint is the safety net; the store checkpoints when idle (wal-checkpoint.ts).
      db.pragma(`wal_autocheckpoint = ${autocheckpointPages(options.checkpoints ?? 'idle')}`);
    }
    if (!options.readonly) migrate(db, inMemory ? null : file, logger);
  } catch (error) {
    db.close();
    throw databaseError(error, file, 'open', busyTimeoutMs);
  }
  return db;
}

/**
 * `PRAGMA quick_check`: throws DATABASE_DAMAGED (naming the file and how to
 * restore it) when the file fails; NOT_A_DATABASE when it is no SQLite file.
 */
export function checkIntegrity(db: Database, file: string): void {
  const problems = (db.pragma('quick_check') as { quick_check: string }[]).map((r) => r.quick_check);
  if (problems.length === 1 && problems[0] === 'ok') return;
  throw new AgentMemoryError('DATABASE_DAMAGED', `The memory database ${file} is damaged: it fails SQLite's integrity check (${problems.slice(0, 3).join('; ')}${problems.length > 3 ? `; ${problems.length - 3} more` : ''}). It was not opened for writing and nothing was written to it. ${restoreAdvice(file)}`, { file, problems: problems.slice(0, 20) });
}

/** Beside the database: size and mtime of the file when it was last known clean (checked, or closed by us). */
export const CLEAN_STATE_SUFFIX = '.clean.json';

interface CleanState {
  size: number;
  mtimeMs: number;
}

function currentState(file: string): CleanState | undefined {
  const main = statOf(file);
  // A WAL with frames means an unclean shutdown or another open connection: never "known clean".
  const wal = statOf(`${file}-wal`);
  if (!main || (wal && wal.size > 0)) return undefined;
  return { size: main.size, mtimeMs: main.mtimeMs };
}

/**
 * `quick_check` reads every page (≈ 7 s for a 250 MB / 100k-record memory on a
 * 2-core machine), so it is skipped when the file is exactly as this program
 * left it: same size and modification time as recorded at the last successful
 * check or clean close, and no WAL frames pending. Anything else (a crash, a
 * copy, a change by another tool, damage) gets the full check.
 */
function checkIntegrityUnlessKnownClean(db: Database, file: string, writable: boolean): void {
  const now = currentState(file);
  let known: CleanState | undefined;
  try {
    known = JSON.parse(fs.readFileSync(file + CLEAN_STATE_SUFFIX, 'utf8')) as CleanState;
  } catch {
    known = undefined;
  }
  if (now && known && known.size === now.size && known.mtimeMs === now.mtimeMs) return;
  checkIntegrity(db, file);
  if (writable && now) writeCleanState(file, now);
}

/** Records that `file` is clean as it is now (call after closing it cleanly). */
export function markClean(file: string): void {
  if (file === ':memory:' || file === '') return;
  const now = currentState(file);
  if (now) writeCleanState(file, now);
  else fs.rmSync(file + CLEAN_STATE_SUFFIX, { force: true });
}

function writeCleanState(file: string, state: CleanState): void {
  try {
    fs.writeFileSync(file + CLEAN_STATE_SUFFIX, JSON.stringify(state));
  } catch {
    // Only an optimisation: without it the next open runs the full check.
  }
}

function statOf(file: string): fs.Stats | undefined {
  try {
    return fs.statSync(file);
  } catch {
    return undefined;
  }
}

/** Current schema version of an open database. */
export function schemaVersion(db: Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/**
 * Every Agent Memory database has a schema version ≥ 1 (the first migration sets it in the same
 * transaction that creates the tables), so a file at version 0 that holds tables belongs to
 * another program (a data database given as the memory, say). It is refused before anything is
 * written to it or beside it: no WAL switch, no backup, no tables added.
 */
function refuseForeignDatabase(db: Database, file: string): void {
  const { version, tables } = snapshot(db);
  if (version !== 0 || tables.length === 0) return;
  const names = tables.slice(0, 3).join(', ') + (tables.length > 3 ? ', …' : '');
  throw new AgentMemoryError('NOT_A_DATABASE', `${file} is a SQLite database of another program (tables: ${names}), not an Agent Memory database; nothing was written to it. Point the setting agentMemory.databasePath (CLI: --db) at a memory file or at a new path (a fresh memory is created there); a database the agent should query goes to agentMemory.agent.dataPath (CLI: --data).`, { file, tables });
}

/**
 * The schema version and the first user tables, read in one transaction: another process may be
 * creating the schema right now (both first opens of a new file), and two separate reads could
 * see version 0 and its tables.
 */
function snapshot(db: Database): { version: number; tables: string[] } {
  return db.transaction(() => ({
    version: schemaVersion(db),
    tables: (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name LIMIT 4").all() as { name: string }[]).map((t) => t.name),
  }))();
}

function migrate(db: Database, file: string | null, logger: Logger): void {
  const { version: current, tables } = snapshot(db);
  if (current > SCHEMA_VERSION) {
    throw new AgentMemoryError('MIGRATION', `The memory database has schema version ${current}, newer than this build supports (${SCHEMA_VERSION}). Update the Agent Memory extension.`, { current, supported: SCHEMA_VERSION });
  }
  if (current === SCHEMA_VERSION) return;
  let backedUp = false;
  if (file && tables.length > 0) {
    // Never overwrite (or trip over) a backup left by an earlier attempt.
    let backup = `${file}.v${current}.bak`;
    if (fs.existsSync(backup)) backup = `${file}.v${current}.${Date.now()}.bak`;
    // VACUUM INTO writes a consistent copy even while WAL holds uncheckpointed pages.
    db.prepare('VACUUM INTO ?').run(backup);
    logger.info(`[store] backed up schema v${current} database to ${backup} before migrating`);
    backedUp = true;
  }
  // All steps in one write transaction: a failure leaves the file as it was, and another process
  // opening the same file (two first opens of a new memory at once) sees it before or after, never
  // half-migrated; under the write lock the steps it already applied are skipped.
  let failing: Migration | undefined;
  const applyAll = db.transaction(() => {
    const at = schemaVersion(db);
    const applied: Migration[] = [];
    for (const migration of MIGRATIONS) {
      if (migration.version <= at) continue;
      failing = migration;
      if (migration.run) migration.run(db);
      else db.exec(migration.sql ?? '');
      db.pragma(`user_version = ${migration.version}`);
      applied.push(migration);
    }
    failing = undefined;
    return applied;
  });
  let applied: Migration[];
  try {
    applied = applyAll.immediate();
  } catch (error) {
    const step = failing ? `Migration to schema v${failing.version} (${failing.description})` : 'The schema update';
    throw new AgentMemoryError('MIGRATION', `${step} failed: ${errorMessage(error)}. Nothing was changed: the database is still at v${schemaVersion(db)}${backedUp ? ` and a copy of it is beside it (${path.basename(file ?? '')}.v${current}*.bak)` : ''}.`, { version: failing?.version, left: schemaVersion(db) }, { cause: error });
  }
  for (const migration of applied) logger.info(`[store] migrated memory database to schema v${migration.version}: ${migration.description}`);
}
