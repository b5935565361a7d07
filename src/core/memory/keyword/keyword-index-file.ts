import * as fs from 'node:fs';
import * as path from 'node:path';
import MiniSearch, { AsPlainObject, Options } from 'minisearch';
import { z } from 'zod';
import { errorMessage } from '../../errors';
import type { Logger } from '../../logger';

/**
 * The keyword index file beside the database: one JSON header line (format,
 * the `record_changes` seq the index reflects, its document count), one line
 * with the document frequency of every term per field (`q:term`, `c:term`;
 * format 3), then MiniSearch's own JSON. The
 * caller catches a loaded index up on the changes after `seq` (or rebuilds
 * when the change log no longer reaches back that far); a file that does not
 * parse is corrupt and rebuilt.
 */
const FORMAT = 3;

const HeaderSchema = z.object({
  format: z.literal(FORMAT),
  seq: z.number().int().min(0),
  documentCount: z.number().int().min(0),
});
const FrequencySchema = z.array(z.tuple([z.string(), z.number().int().min(0)]));

export interface IndexFileStamp {
  /** Last `record_changes` seq applied to the index. */
  seq: number;
  documentCount: number;
}

export type IndexFileRead<T> =
  | { origin: 'loaded'; index: MiniSearch<T>; seq: number; frequencies: Map<string, number> }
  | { origin: 'rebuilt:missing' | 'rebuilt:corrupt' };

/** Loads the index file; says why not when it cannot. */
export function readIndexFile<T>(file: string, options: Options<T>, logger: Logger): IndexFileRead<T> {
  removeStaleTempFiles(file, logger);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    logger.info(`no keyword index at ${file}; building it from the database`);
    return { origin: 'rebuilt:missing' };
  }
  try {
    const first = text.indexOf('\n');
    const second = first < 0 ? -1 : text.indexOf('\n', first + 1);
    if (second < 0) throw new Error('no header lines');
    const header = HeaderSchema.parse(JSON.parse(text.slice(0, first)));
    const frequencies = new Map(FrequencySchema.parse(JSON.parse(text.slice(first + 1, second))));
    // Parsed here and the text dropped before MiniSearch builds its maps: the file's text (tens of MB
    // at 100k records) is not kept alive beside the parsed tree and the index while they are built.
    const plain = JSON.parse(text.slice(second + 1)) as AsPlainObject;
    text = '';
    const index = MiniSearch.loadJS<T>(plain, options);
    if (index.documentCount !== header.documentCount) throw new Error(`holds ${index.documentCount} documents, its header says ${header.documentCount}`);
    logger.debug(`loaded keyword index ${file} (${header.documentCount} records, change ${header.seq})`);
    return { origin: 'loaded', index, seq: header.seq, frequencies };
  } catch (error) {
    logger.warn(`keyword index ${file} is corrupt or of an older format (${errorMessage(error)}); rebuilding`);
    return { origin: 'rebuilt:corrupt' };
  }
}

/** Writes header + frequencies + index atomically (temp file, fsync, rename); a failed write removes its temp file. */
export function writeIndexFile<T>(file: string, stamp: IndexFileStamp, frequencies: Map<string, number>, index: MiniSearch<T>): void {
  writeFileAtomically(file, (fd) => {
    fs.writeSync(fd, JSON.stringify({ format: FORMAT, ...stamp }) + '\n');
    fs.writeSync(fd, JSON.stringify([...frequencies]) + '\n');
    fs.writeSync(fd, JSON.stringify(index));
  });
}

/**
 * Writes a keyword index file atomically: `write` fills this process's temp file (tempFileOf), which is
 * fsynced and renamed over `file`; a failed write removes the temp file and rethrows.
 */
export function writeFileAtomically(file: string, write: (fd: number) => void): void {
  const tmp = tempFileOf(file);
  try {
    const fd = fs.openSync(tmp, 'w');
    try {
      write(fd);
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

/** The temp file a write of `file` by process `pid` (this one by default) goes through. */
export function tempFileOf(file: string, pid = process.pid): string {
  return `${file}${TEMP_INFIX}${pid}`;
}
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

