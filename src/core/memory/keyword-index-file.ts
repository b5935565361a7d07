import * as fs from 'node:fs';
import * as path from 'node:path';
import MiniSearch, { Options } from 'minisearch';
import { z } from 'zod';
import { errorMessage } from '../errors';
import type { Logger } from '../logger';

/**
 * The keyword index file beside the database: one JSON header line (format,
 * the store's change id and active-record count when written), then
 * MiniSearch's own JSON. A file whose header disagrees with the database is
 * stale; one that does not parse is corrupt; either way the caller rebuilds.
 */
const FORMAT = 1;

const HeaderSchema = z.object({
  format: z.literal(FORMAT),
  changeId: z.number().int(),
  activeCount: z.number().int().min(0),
});

export interface IndexFileStamp {
  changeId: number;
  activeCount: number;
}

export type IndexFileRead<T> =
  | { origin: 'loaded'; index: MiniSearch<T> }
  | { origin: 'rebuilt:missing' | 'rebuilt:stale' | 'rebuilt:corrupt' };

/** Loads the index if the file exists and matches `expected`; says why not otherwise. */
export function readIndexFile<T>(file: string, expected: IndexFileStamp, options: Options<T>, logger: Logger): IndexFileRead<T> {
  removeStaleTempFiles(file, logger);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    logger.info(`no keyword index at ${file}; building it from the database`);
    return { origin: 'rebuilt:missing' };
  }
  try {
    const newline = text.indexOf('\n');
    if (newline < 0) throw new Error('no header line');
    const header = HeaderSchema.parse(JSON.parse(text.slice(0, newline)));
    if (header.changeId !== expected.changeId || header.activeCount !== expected.activeCount) {
      logger.info(`keyword index ${file} is stale (change ${header.changeId} vs ${expected.changeId}, ${header.activeCount} vs ${expected.activeCount} active records); rebuilding`);
      return { origin: 'rebuilt:stale' };
    }
    const index = MiniSearch.loadJSON<T>(text.slice(newline + 1), options);
    if (index.documentCount !== expected.activeCount) throw new Error(`holds ${index.documentCount} documents for ${expected.activeCount} active records`);
    logger.debug(`loaded keyword index ${file} (${expected.activeCount} records)`);
    return { origin: 'loaded', index };
  } catch (error) {
    logger.warn(`keyword index ${file} is corrupt (${errorMessage(error)}); rebuilding`);
    return { origin: 'rebuilt:corrupt' };
  }
}

/** Writes header + index atomically (temp file, fsync, rename); a failed write removes its temp file. */
export function writeIndexFile<T>(file: string, stamp: IndexFileStamp, index: MiniSearch<T>): void {
  const tmp = `${file}${TEMP_INFIX}${process.pid}`;
  try {
    const fd = fs.openSync(tmp, 'w');
    try {
      fs.writeSync(fd, JSON.stringify({ format: FORMAT, ...stamp }) + '\n');
      fs.writeSync(fd, JSON.stringify(index));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch (error) {
    fs.rmSync(tmp, { force: true });
    throw error;
  }
}

const TEMP_INFIX = '.tmp-';
/** A temp file older than this is stale even if its pid is alive (the pid was reused): a write takes well under a second. */
export const STALE_TEMP_AGE_MS = 10 * 60_000;

/**
 * Removes temp files (`<file>.tmp-<pid>`) left by a process that crashed while
 * writing the index. One whose process is still alive and that is younger than
 * STALE_TEMP_AGE_MS is a write in progress in another process and is kept.
 */
export function removeStaleTempFiles(file: string, logger: Logger, now = Date.now()): string[] {
  const dir = path.dirname(file);
  const prefix = path.basename(file) + TEMP_INFIX;
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => n.startsWith(prefix));
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const full = path.join(dir, name);
    const pid = Number(name.slice(prefix.length));
    try {
      const age = now - fs.statSync(full).mtimeMs;
      const live = Number.isInteger(pid) && pid > 0 && pid !== process.pid && processAlive(pid) && age < STALE_TEMP_AGE_MS;
      if (live) continue;
      fs.rmSync(full, { force: true });
      removed.push(full);
    } catch (error) {
      logger.warn(`cannot remove the stale keyword index temp file ${full}: ${errorMessage(error)}`);
    }
  }
  if (removed.length > 0) logger.info(`removed ${removed.length} keyword index temp file(s) left by an interrupted write`);
  return removed;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
