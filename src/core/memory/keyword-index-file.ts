import * as fs from 'node:fs';
import MiniSearch, { Options } from 'minisearch';
import { z } from 'zod';
import { errorMessage } from '../errors';
import type { Logger } from '../logger';

/**
 * The keyword index file beside the database: one JSON header line (format,
 * the `record_changes` seq the index reflects, its document count), one line
 * with the document frequency of every term, then MiniSearch's own JSON. The
 * caller catches a loaded index up on the changes after `seq` (or rebuilds
 * when the change log no longer reaches back that far); a file that does not
 * parse is corrupt and rebuilt.
 */
const FORMAT = 2;

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
    const index = MiniSearch.loadJSON<T>(text.slice(second + 1), options);
    if (index.documentCount !== header.documentCount) throw new Error(`holds ${index.documentCount} documents, its header says ${header.documentCount}`);
    logger.debug(`loaded keyword index ${file} (${header.documentCount} records, change ${header.seq})`);
    return { origin: 'loaded', index, seq: header.seq, frequencies };
  } catch (error) {
    logger.warn(`keyword index ${file} is corrupt or of an older format (${errorMessage(error)}); rebuilding`);
    return { origin: 'rebuilt:corrupt' };
  }
}

/** Writes header + frequencies + index atomically (temp file, fsync, rename). */
export function writeIndexFile<T>(file: string, stamp: IndexFileStamp, frequencies: Map<string, number>, index: MiniSearch<T>): void {
  const tmp = `${file}.tmp-${process.pid}`;
  const fd = fs.openSync(tmp, 'w');
  try {
    fs.writeSync(fd, JSON.stringify({ format: FORMAT, ...stamp }) + '\n');
    fs.writeSync(fd, JSON.stringify([...frequencies]) + '\n');
    fs.writeSync(fd, JSON.stringify(index));
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
}
