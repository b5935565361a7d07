/**
 * Backup and restore of a team space through a SQLite file: `backupTeam` writes a snapshot
 * of the space (records with their lifecycle, vectors, utilities, the retrieval and task
 * logs, the audit trail: transfer.ts) as an Agent Memory database file, integrity-checked,
 * never overwriting a file; `restoreTeam` checks a backup file (of a file memory or of a
 * space) and writes it into a space in one transaction, refusing a non-empty space unless
 * `replace` (then the space's content is replaced in the same transaction).
 *
 * @example
 * await backupTeam(team, 'team-2026-11-26.sqlite');
 * await restoreTeam(team, 'team-2026-11-26.sqlite', { replace: true });
 */
import * as fs from 'node:fs';
import { AgentMemoryError } from '../../errors';
import type { Logger } from '../../logger';
import { BackupResult, makeSelfContained, openBackup, openChecked, removeWithSidecars, sidecarsOf } from '../io/backup';
import { databaseError } from '../sqlite/database-errors';
import { MemoryStore } from '../sqlite/store';
import type { TeamMemoryStore } from './team-store';
import { readSqlite, readTeam, writeSqlite, writeTeam } from './transfer';

/** A snapshot of the space as a SQLite memory file at `out` (checked, then renamed into place). */
export async function backupTeam(team: TeamMemoryStore, out: string, logger?: Logger): Promise<BackupResult> {
  if (fs.existsSync(out)) throw new AgentMemoryError('INVALID_INPUT', `${out} already exists; a backup never overwrites a file. Choose another name or remove it first.`, { file: out });
  const content = await readTeam(team);
  const partial = `${out}.partial-${process.pid}`;
  try {
    const store = MemoryStore.open(partial, { logger });
    try {
      writeSqlite(store, content);
    } finally {
      store.close();
    }
    makeSelfContained(partial);
    const copy = openChecked(partial, 'backup');
    let records: number;
    try {
      records = (copy.prepare('SELECT COUNT(*) AS n FROM records').get() as { n: number }).n;
    } finally {
      copy.close();
    }
    if (records !== content.records.length) throw new AgentMemoryError('DATABASE', `The backup holds ${records} records but the space has ${content.records.length}; nothing was kept. Run the backup again.`);
    fs.renameSync(partial, out);
    for (const f of sidecarsOf(partial)) fs.rmSync(f, { force: true });
    return { file: out, records, bytes: fs.statSync(out).size };
  } catch (error) {
    removeWithSidecars(partial);
    if (error instanceof AgentMemoryError) throw error;
    throw databaseError(error, out, 'write the backup');
  }
}

/** Writes a checked backup file into the space (one transaction); see the file comment. */
export async function restoreTeam(team: TeamMemoryStore, from: string, options: { replace?: boolean; logger?: Logger } = {}): Promise<{ records: number; replaced: number }> {
  // Read through a private, consistent copy: opening a backup of an older schema migrates it, and the backup must stay as it is.
  const scratch = `${from}.restore-${process.pid}`;
  const source = openBackup(from, `space '${team.space}'`);
  let content;
  try {
    try {
      await source.backup(scratch);
    } finally {
      source.close();
    }
    const store = MemoryStore.open(scratch, { logger: options.logger });
    try {
      content = readSqlite(store);
    } finally {
      store.close();
    }
  } finally {
    removeWithSidecars(scratch);
  }
  const before = await team.counts();
  await writeTeam(team, content, { replace: options.replace });
  return { records: content.records.length, replaced: options.replace ? before.active + before.pending + before.deleted : 0 };
}
