import * as fs from 'node:fs';
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

/** Writes header + index atomically (temp file, fsync, rename). */
export function writeIndexFile<T>(file: string, stamp: IndexFileStamp, index: MiniSearch<T>): void {
  const tmp = `${file}.tmp-${process.pid}`;
  const fd = fs.openSync(tmp, 'w');
  try {
    fs.writeSync(fd, JSON.stringify({ format: FORMAT, ...stamp }) + '\n');
    fs.writeSync(fd, JSON.stringify(index));
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
}
