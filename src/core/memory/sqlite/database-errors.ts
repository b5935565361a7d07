import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentMemoryError, errorMessage } from '../../errors';

/** How to get a damaged memory back (named by every DATABASE_DAMAGED message). */
export function restoreAdvice(file: string): string {
  return `Restore it from a backup: agent-memory restore --from BACKUP.sqlite --db ${file} (backups are made with agent-memory backup; a ${file}.v<N>.bak copy is also kept beside it before each schema upgrade). If you have no backup, move the file away to start a fresh memory.`;
}

/**
 * Turns a raw SQLite / file-system error on the memory database into a typed
 * AgentMemoryError whose message names the file and says what to do
 * (`database is locked`, `disk I/O error`, `readonly`, `not a database`,
 * EISDIR never reach users raw). Unknown errors become code DATABASE.
 *
 * @example
 * try { write.immediate(); } catch (error) { throw databaseError(error, file, 'write to'); }
 */
export function databaseError(error: unknown, file: string, action = 'use', busyTimeoutMs?: number): AgentMemoryError {
  if (error instanceof AgentMemoryError) return error;
  const code = String((error as { code?: unknown }).code ?? '');
  const raw = errorMessage(error);
  const details = { file, sqlite: code || undefined };
  const options = { cause: error };
  if (code === 'SQLITE_NOTADB') {
    return new AgentMemoryError('NOT_A_DATABASE', `${file} is not an Agent Memory database (SQLite: ${raw}). Point the setting agentMemory.databasePath (CLI: --db) at a memory file, or move this file away to start a fresh memory there.`, details, options);
  }
  if (code.startsWith('SQLITE_CORRUPT')) {
    return new AgentMemoryError('DATABASE_DAMAGED', `The memory database ${file} is damaged (SQLite: ${raw}); nothing more is written to it. ${restoreAdvice(file)}`, details, options);
  }
  const readOnly = code.startsWith('SQLITE_READONLY') || code === 'EROFS' || code === 'EACCES' || code === 'EPERM' || (code.startsWith('SQLITE_CANTOPEN') && !writable(file));
  if (readOnly) {
    return new AgentMemoryError('READ_ONLY', `Cannot ${action} the memory database ${file}: the file or its folder is read-only (${raw}). Make both writable (SQLite also creates ${file}-wal and ${file}-shm beside it), or choose another path.`, details, options);
  }
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    const waited = busyTimeoutMs === undefined ? '' : ` for ${busyTimeoutMs} ms`;
    return new AgentMemoryError('LOCKED', `The memory database ${file} stayed locked by another process${waited} (${raw}); nothing was changed. Finish or close the other writer (another VS Code window, an agent-memory CLI run, the MCP server) and try again.`, details, options);
  }
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT' || /database or disk is full|no space left/i.test(raw)) {
    return new AgentMemoryError('DISK_FULL', `The disk holding the memory database ${file} is full (${raw}); the change was rolled back and nothing of it was stored. Free some space and try again.`, details, options);
  }
  if (code === 'EISDIR') {
    return new AgentMemoryError('IS_DIRECTORY', `${file} is a directory, not a database file. Give a file path instead, e.g. ${file.replace(/[\\/]+$/, '')}/memory.sqlite.`, details, options);
  }
  if (code.startsWith('SQLITE_IOERR')) {
    return new AgentMemoryError('DATABASE', `Disk I/O error on the memory database ${file} (${raw}); the change was rolled back. Check the disk and that the file was not moved or deleted while open, then try again.`, details, options);
  }
  if (code.startsWith('SQLITE_CANTOPEN')) {
    return new AgentMemoryError('DATABASE', `Cannot open the memory database at ${file} (${raw}). Check that its folder exists and is accessible (setting agentMemory.databasePath, CLI: --db).`, details, options);
  }
  return new AgentMemoryError('DATABASE', `Cannot ${action} the memory database ${file}: ${raw}.`, details, options);
}

/** Whether the file (when it exists) and its folder can be written (false on a read-only mount). */
function writable(file: string): boolean {
  if (file === ':memory:' || file === '') return true;
  try {
    if (fs.existsSync(file)) fs.accessSync(file, fs.constants.W_OK);
    fs.accessSync(path.dirname(path.resolve(file)), fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
