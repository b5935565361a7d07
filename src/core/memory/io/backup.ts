import BetterSqlite3 from 'better-sqlite3';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentMemoryError, isAgentMemoryError } from '../../errors';
import { checkIntegrity, CLEAN_STATE_SUFFIX, schemaVersion } from '../sqlite/database';
import { databaseError } from '../sqlite/database-errors';
import { SCHEMA_VERSION } from '../sqlite/schema';

/** Pages per backup step: all of them, so the copy is one consistent snapshot even while another process writes. */
const ALL_PAGES = 0x7fffffff;

export interface BackupResult {
  file: string;
  records: number;
  bytes: number;
}

/** Opens `file` read-only after checking it is an intact Agent Memory database of a schema this build reads (NOT_FOUND, NOT_A_DATABASE, MIGRATION, CORRUPT otherwise). */
export function openChecked(file: string, role: string): BetterSqlite3.Database {
  if (!fs.existsSync(file)) throw new AgentMemoryError('NOT_FOUND', `No ${role} at ${file}. Check the path.`, { file });
  if (fs.statSync(file).isDirectory()) throw databaseError(Object.assign(new Error('is a directory'), { code: 'EISDIR' }), file, 'open');
  let db: BetterSqlite3.Database;
  try {
    db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw databaseError(error, file, 'open');
  }
  try {
    checkIntegrity(db, file);
    const hasRecords = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'records'").get();
    if (!hasRecords) throw new AgentMemoryError('NOT_A_DATABASE', `${file} is a SQLite file but not an Agent Memory database (no records table). Check the path.`, { file });
    const version = schemaVersion(db);
    if (version > SCHEMA_VERSION) throw new AgentMemoryError('MIGRATION', `${file} has schema version ${version}, newer than this build supports (${SCHEMA_VERSION}). Update Agent Memory first.`, { file, version });
    return db;
  } catch (error) {
    db.close();
    throw databaseError(error, file, 'read');
  }
}

function recordCount(db: BetterSqlite3.Database): number {
  return (db.prepare('SELECT COUNT(*) AS n FROM records').get() as { n: number }).n;
}

/**
 * Copies a memory database with SQLite's online backup API (all pages in one
 * step: a consistent snapshot, even while another process writes). The
 * source must pass its integrity check; the copy is checked too, written
 * beside `out` and renamed into place only when complete. Never overwrites
 * an existing `out`.
 *
 * @example
 * const { records } = await backupDatabase('memory.sqlite', 'memory-2026-11-24.sqlite');
 */
export async function backupDatabase(dbFile: string, out: string): Promise<BackupResult> {
  if (path.resolve(dbFile) === path.resolve(out)) throw new AgentMemoryError('INVALID_INPUT', 'The backup file must differ from the database.');
  if (fs.existsSync(out)) throw new AgentMemoryError('INVALID_INPUT', `${out} already exists; a backup never overwrites a file. Choose another name or remove it first.`, { file: out });
  const folder = path.dirname(path.resolve(out));
  if (!fs.existsSync(folder)) throw new AgentMemoryError('NOT_FOUND', `The folder for the backup, ${folder}, does not exist. Create it or choose another path.`, { file: out });
  const source = openChecked(dbFile, 'memory database');
  const partial = `${out}.partial-${process.pid}`;
  try {
    await copyPages(source, partial);
    makeSelfContained(partial);
  } catch (error) {
    removeWithSidecars(partial);
    throw databaseError(error, out, 'write the backup');
  } finally {
    source.close();
  }
  let copy: BetterSqlite3.Database | undefined;
  try {
    copy = openChecked(partial, 'backup');
    const records = recordCount(copy);
    copy.close();
    copy = undefined;
    fs.renameSync(partial, out);
    return { file: out, records, bytes: fs.statSync(out).size };
  } catch (error) {
    copy?.close();
    removeWithSidecars(partial);
    throw error;
  }
}

/**
 * SQLite's online backup of `source` into `dest`, all pages in one step. better-sqlite3 resolves
 * a backup whose destination was locked before its first page as if it had finished (no page
 * counted, nothing copied): that case is the BUSY error it is.
 */
async function copyPages(source: BetterSqlite3.Database, dest: string): Promise<void> {
  const { totalPages } = await source.backup(dest, { progress: () => ALL_PAGES });
  if (totalPages === 0) throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
}

/** Removes a scratch database file and everything SQLite or this program put beside it. */
export function removeWithSidecars(file: string): void {
  for (const f of [file, ...sidecarsOf(file)]) fs.rmSync(f, { force: true });
}

/** What may sit beside a database file: its WAL, shared memory, rollback journal and clean-close marker. */
export function sidecarsOf(file: string): string[] {
  return [`${file}-wal`, `${file}-shm`, `${file}-journal`, `${file}${CLEAN_STATE_SUFFIX}`];
}

/** Takes a finished copy out of WAL mode, so it is one self-contained file (no -wal / -shm beside it). */
export function makeSelfContained(file: string): void {
  const db = new BetterSqlite3(file, { fileMustExist: true });
  try {
    db.pragma('journal_mode = DELETE');
  } finally {
    db.close();
  }
}

export interface RestoreResult {
  records: number;
  /** Where the replaced database was kept (undefined when there was none). */
  previous?: string;
}

/**
 * Restores `dbFile` from a backup. The backup is integrity-checked (and must
 * be an Agent Memory database of a supported schema) before anything is
 * touched. An existing database is first kept as `<db>.before-restore-<time>.bak`,
 * then replaced through SQLite's backup API, so a process that has it open sees
 * the restored content at its next query and no torn file can result. If
 * another process holds the write lock, restore fails with LOCKED and changes
 * nothing. The change counter is moved past both files' so derived indexes
 * (the keyword index file) are rebuilt.
 *
 * @example
 * const { records, previous } = await restoreDatabase('memory-2026-11-24.sqlite', 'memory.sqlite');
 */
export async function restoreDatabase(from: string, dbFile: string): Promise<RestoreResult> {
  if (path.resolve(from) === path.resolve(dbFile)) throw new AgentMemoryError('INVALID_INPUT', 'The backup and the database are the same file.');
  const source = openBackup(from, dbFile);
  let previous: string | undefined;
  let oldChange = 0;
  try {
    let intact = false;
    if (fs.existsSync(dbFile)) {
      if (fs.statSync(dbFile).isDirectory()) throw databaseError(Object.assign(new Error('is a directory'), { code: 'EISDIR' }), dbFile, 'restore');
      previous = `${dbFile}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}.bak`;
      const kept = keepCopy(dbFile, previous);
      oldChange = kept.changeId;
      intact = kept.readable;
      // An unreadable file cannot be written through SQLite (nor be in use by anyone): replace it whole.
      if (!kept.readable) for (const f of [dbFile, `${dbFile}-wal`, `${dbFile}-shm`]) fs.rmSync(f, { force: true });
    }
    try {
      await copyPages(source, dbFile);
    } catch (error) {
      const failure = databaseError(error, dbFile, 'restore');
      // Refused before a page was written (another process holds the write lock): the database is as it was, so its copy goes.
      if (intact && previous && isAgentMemoryError(failure, 'LOCKED')) removeWithSidecars(previous);
      throw failure;
    }
  } finally {
    source.close();
  }
  let target: BetterSqlite3.Database | undefined;
  try {
    target = new BetterSqlite3(dbFile);
    checkIntegrity(target, dbFile);
    target.prepare("UPDATE meta SET value = CAST(value AS INTEGER) + ? WHERE key = 'change_id'").run(oldChange + 1);
    return { records: recordCount(target), previous };
  } catch (error) {
    throw databaseError(error, dbFile, 'check the restored');
  } finally {
    target?.close();
  }
}

/** The backup to restore from, checked; its errors name it as the backup (not as a memory to point the settings at). `target`: what it would go into. */
export function openBackup(from: string, target: string): BetterSqlite3.Database {
  try {
    return openChecked(from, 'backup');
  } catch (error) {
    if (isAgentMemoryError(error, 'NOT_A_DATABASE') || isAgentMemoryError(error, 'DATABASE_DAMAGED')) {
      const what = error.code === 'NOT_A_DATABASE' ? 'is not an Agent Memory database' : 'is damaged (it fails the integrity check)';
      throw new AgentMemoryError(error.code, `The backup ${from} ${what}. Choose another backup (--from); ${target} was not touched.`, { file: from }, { cause: error });
    }
    throw error;
  }
}

/** Keeps the current database's content at `copy` (consistent copy; raw bytes when it cannot be read). */
function keepCopy(dbFile: string, copy: string): { changeId: number; readable: boolean } {
  let db: BetterSqlite3.Database | undefined;
  try {
    db = new BetterSqlite3(dbFile, { fileMustExist: true });
    db.prepare('VACUUM INTO ?').run(copy);
    const row = db.prepare("SELECT value FROM meta WHERE key = 'change_id'").get() as { value: string } | undefined;
    return { changeId: Number(row?.value ?? 0) || 0, readable: true };
  } catch {
    // Damaged or not a database (the usual reason to restore): keep its bytes as they are.
    fs.rmSync(copy, { force: true });
    fs.copyFileSync(dbFile, copy);
    if (fs.existsSync(`${dbFile}-wal`)) fs.copyFileSync(`${dbFile}-wal`, `${copy}-wal`);
    return { changeId: 0, readable: false };
  } finally {
    db?.close();
  }
}
