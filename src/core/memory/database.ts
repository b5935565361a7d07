import BetterSqlite3 from 'better-sqlite3';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as sqliteVec from 'sqlite-vec';
import { AgentMemoryError, errorMessage } from '../errors';
import { Logger, nullLogger } from '../logger';
import { MIGRATIONS, SCHEMA_VERSION } from './schema';

export type Database = BetterSqlite3.Database;

export interface OpenDatabaseOptions {
  logger?: Logger;
  /** Milliseconds a writer waits for a lock before SQLITE_BUSY (default 10 s). */
  busyTimeoutMs?: number;
  readonly?: boolean;
}

export const DEFAULT_BUSY_TIMEOUT_MS = 10_000;

/**
 * Opens (or creates) a memory database: loads sqlite-vec, enables WAL and a busy
 * timeout, and migrates the schema in place. Before upgrading an existing
 * database it is copied to `<file>.v<old>.bak` so nothing stored can be lost.
 *
 * @example
 * const db = openDatabase(':memory:');
 * const db2 = openDatabase('/path/to/memory.sqlite', { logger });
 */
export function openDatabase(file: string, options: OpenDatabaseOptions = {}): Database {
  const logger = options.logger ?? nullLogger;
  const inMemory = file === ':memory:' || file === '';
  if (!inMemory) fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  let db: Database;
  try {
    db = new BetterSqlite3(file, { readonly: options.readonly ?? false });
  } catch (error) {
    throw new AgentMemoryError('DATABASE', `Cannot open the memory database at ${file}: ${errorMessage(error)}. Check the path and its permissions (setting agentMemory.databasePath).`, { file }, { cause: error });
  }
  try {
    sqliteVec.load(db);
  } catch (error) {
    db.close();
    throw new AgentMemoryError('DATABASE', `Cannot load the sqlite-vec extension: ${errorMessage(error)}. Reinstall the extension for this platform.`, {}, { cause: error });
  }
  db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS}`);
  db.pragma('foreign_keys = ON');
  if (!inMemory && !options.readonly) {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
  }
  if (!options.readonly) migrate(db, inMemory ? null : file, logger);
  return db;
}

/** Current schema version of an open database. */
export function schemaVersion(db: Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

function migrate(db: Database, file: string | null, logger: Logger): void {
  const current = schemaVersion(db);
  if (current > SCHEMA_VERSION) {
    throw new AgentMemoryError('MIGRATION', `The memory database has schema version ${current}, newer than this build supports (${SCHEMA_VERSION}). Update the Agent Memory extension.`, { current, supported: SCHEMA_VERSION });
  }
  if (current === SCHEMA_VERSION) return;
  const hasData = (db.prepare("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table'").get() as { n: number }).n > 0;
  if (file && hasData) {
    // Never overwrite (or trip over) a backup left by an earlier attempt.
    let backup = `${file}.v${current}.bak`;
    if (fs.existsSync(backup)) backup = `${file}.v${current}.${Date.now()}.bak`;
    // VACUUM INTO writes a consistent copy even while WAL holds uncheckpointed pages.
    db.prepare('VACUUM INTO ?').run(backup);
    logger.info(`[store] backed up schema v${current} database to ${backup} before migrating`);
  }
  for (const migration of MIGRATIONS) {
    if (migration.version <= current) continue;
    const apply = db.transaction(() => {
      if (migration.run) migration.run(db);
      else db.exec(migration.sql ?? '');
      db.pragma(`user_version = ${migration.version}`);
    });
    try {
      apply.immediate();
    } catch (error) {
      throw new AgentMemoryError('MIGRATION', `Migration to schema v${migration.version} (${migration.description}) failed: ${errorMessage(error)}. The database was left at v${schemaVersion(db)}; a backup is beside it.`, { version: migration.version }, { cause: error });
    }
    logger.info(`[store] migrated memory database to schema v${migration.version}: ${migration.description}`);
  }
}
