/**
 * Importing a JSONL file of any size: a first pass checks every line (as importJsonl does, reading
 * the file in blocks and keeping only the ids), then a second writes the records in batches of N
 * lines, each one transaction that also records a checkpoint (the byte offset and line reached,
 * and the file's identity) in the memory's meta. An import interrupted by a kill, a crash or
 * Ctrl-C resumes after its last committed batch when run again on the same file: no line twice,
 * none lost. The checkpoint is removed in the transaction that completes the import.
 */
import * as fs from 'node:fs';
import { AgentMemoryError } from '../../errors';
import type { MemoryStore } from '../sqlite/store';
import { checkJsonlLine, decodeJsonlLine, invalidLinesError, type JsonlRecord } from './jsonl-format';
import { jsonlFileLines } from './jsonl-file-lines';
import { clearImportCheckpoint, fileIdentity, type ImportCheckpoint, type VectorMode, writeImportCheckpoint } from './import-checkpoint';
import { existingIdsError, importRecords } from './jsonl';

/** Lines written per transaction by default. */
export const DEFAULT_IMPORT_BATCH_LINES = 5_000;

/** Where a pass stands, for a progress line. */
export interface ImportProgress {
  phase: 'check' | 'write';
  /** Lines read so far (the last line's number). */
  line: number;
  /** Records written so far by this run (the write pass). */
  written: number;
  /** Bytes of the file read so far, and its size. */
  bytes: number;
  totalBytes: number;
  /** Where this pass started (a resumed import starts past 0). */
  startLine: number;
  startBytes: number;
  /** The file's line count, once the check pass has counted it. */
  totalLines?: number;
}

/** Where to start: past the lines of a checkpoint, or at the beginning. */
export interface ImportStart {
  offset: number;
  line: number;
}

/** The check pass's findings: nothing is written unless they allow it. */
export interface JsonlFileCheck {
  file: string;
  /** The file's identity when the check began (fileIdentity), and its size in bytes. */
  identity: string;
  size: number;
  from: ImportStart;
  /** Valid records from `from` on, and one sentence per bad line. */
  valid: number;
  problems: string[];
  /** The number of the file's last line. */
  lines: number;
  /** The ids given in the file (from `from` on). */
  ids: string[];
  /** The embedder and dimension of the first line with a vector, if any. */
  vectors?: { embedderId: string; dimension: number };
  /** The first line whose vector differs from that first one's (it cannot be kept). */
  oddVector?: { id: string | undefined; embedderId: string; dimension: number };
}

/**
 * The check pass over `file` from `from` on: every line's format and caps, ids unique within the
 * file, which vectors it carries. Throws IMPORT (nothing written, no store needed) for a duplicate id,
 * or for bad lines unless `skipInvalid` (a file with no valid line throws even then).
 */
export function checkJsonlFile(file: string, options: { from?: ImportStart; skipInvalid?: boolean; onProgress?: (p: ImportProgress) => void } = {}): JsonlFileCheck {
  const from = options.from ?? { offset: 0, line: 0 };
  const identity = fileIdentity(file);
  const totalBytes = fs.statSync(file).size;
  const seen = new Map<string, number>();
  const problems: string[] = [];
  const check: JsonlFileCheck = { file, identity, size: totalBytes, from, valid: 0, problems, lines: from.line, ids: [] };
  for (const { bytes, lineNo, next } of jsonlFileLines(file, from.offset, from.line)) {
    check.lines = lineNo;
    const record = checkJsonlLine(decodeJsonlLine(bytes), lineNo);
    if (typeof record === 'string') problems.push(record);
    else if (record) {
      check.valid++;
      noteRecord(check, seen, record);
    }
    if (lineNo % 10_000 === 0) options.onProgress?.({ phase: 'check', line: lineNo, written: 0, bytes: next, totalBytes, startLine: from.line, startBytes: from.offset });
  }
  if (problems.length > 0 && (!options.skipInvalid || check.valid === 0)) throw invalidLinesError(problems, check.valid);
  check.ids = [...seen.keys()];
  return check;
}

function noteRecord(check: JsonlFileCheck, seen: Map<string, number>, r: JsonlRecord): void {
  if (r.id !== undefined) {
    const earlier = seen.get(r.id);
    if (earlier !== undefined) throw new AgentMemoryError('IMPORT', `Record ${check.valid} (id '${r.id}'): duplicate id in the file (also record ${earlier}). Nothing was imported.`, { id: r.id });
    seen.set(r.id, check.valid);
  }
  if (!r.embedding || !r.embedderId) return;
  if (!check.vectors) check.vectors = { embedderId: r.embedderId, dimension: r.embedding.length };
  else if (!check.oddVector && (r.embedderId !== check.vectors.embedderId || r.embedding.length !== check.vectors.dimension)) {
    check.oddVector = { id: r.id, embedderId: r.embedderId, dimension: r.embedding.length };
  }
}

export interface WriteJsonlFileOptions {
  reason: string;
  vectors: VectorMode;
  skipInvalid?: boolean;
  /** Lines per transaction (DEFAULT_IMPORT_BATCH_LINES). */
  batchLines?: number;
  /** Records and secrets of the batches committed before (a resumed import). */
  before?: { imported: number; redacted: number };
  onProgress?: (p: ImportProgress) => void;
  /** Asked after each committed batch: true stops there (the checkpoint stays, to resume). */
  shouldStop?: () => boolean;
  /** Runs in the transaction that completes the import (with the checkpoint's removal), e.g. a re-fit. */
  finish?: () => void;
}

export interface WriteJsonlFileResult {
  /** Records written by this run, and secrets redacted in them. */
  imported: number;
  redacted: number;
  /** The last line committed. */
  line: number;
  /** Stopped by shouldStop before the end (the checkpoint names `line`). */
  stopped: boolean;
}

/**
 * The write pass of a checked file: no id may exist in the store already (checked first: nothing
 * written otherwise), then batches of `batchLines` lines, each one transaction with its checkpoint.
 * Yields to the event loop between batches (so a Ctrl-C handler can ask it to stop).
 */
export async function writeJsonlFile(store: MemoryStore, check: JsonlFileCheck, options: WriteJsonlFileOptions): Promise<WriteJsonlFileResult> {
  assertNoneExist(store, check.ids);
  if (options.vectors === 'keep' && check.oddVector) {
    const { id, embedderId, dimension } = check.oddVector;
    const first = check.vectors!;
    throw new AgentMemoryError('IMPORT', `Record '${id}': its vector (${embedderId}, ${dimension} dims) differs from the file's first (${first.embedderId}, ${first.dimension}); vectors of different embedders cannot be mixed. Nothing was imported.`, { id });
  }
  if (options.vectors === 'keep' && check.vectors) store.assertEmbedder(check.vectors.embedderId, check.vectors.dimension);
  const batchLines = options.batchLines ?? DEFAULT_IMPORT_BATCH_LINES;
  const totalBytes = check.size;
  const before = options.before ?? { imported: 0, redacted: 0 };
  const result: WriteJsonlFileResult = { imported: 0, redacted: 0, line: check.from.line, stopped: false };
  let batch: JsonlRecord[] = [];
  let batchStart = check.from.line;
  const commit = (line: number, offset: number): void => {
    const checkpoint: ImportCheckpoint = { file: check.file, identity: check.identity, offset, line, imported: before.imported + result.imported + batch.length, redacted: 0, vectors: options.vectors };
    const { redacted } = importRecords(store, batch, {
      reason: options.reason,
      ignoreEmbeddings: options.vectors !== 'keep',
      inSameTransaction: (secrets) => writeImportCheckpoint(store, { ...checkpoint, redacted: before.redacted + result.redacted + secrets }),
    });
    result.imported += batch.length;
    result.redacted += redacted;
    result.line = line;
    batch = [];
    batchStart = line;
    options.onProgress?.({ phase: 'write', line, written: result.imported, bytes: offset, totalBytes, startLine: check.from.line, startBytes: check.from.offset, totalLines: check.lines });
  };
  let end = { line: check.from.line, offset: check.from.offset };
  for (const { bytes, lineNo, next } of jsonlFileLines(check.file, check.from.offset, check.from.line)) {
    end = { line: lineNo, offset: next };
    const record = checkJsonlLine(decodeJsonlLine(bytes), lineNo);
    if (typeof record === 'string' && !options.skipInvalid) throw changedFileError(check.file, record);
    if (record && typeof record !== 'string') batch.push(record);
    if (lineNo - batchStart >= batchLines) {
      commit(lineNo, next);
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (options.shouldStop?.()) return { ...result, stopped: true };
    }
  }
  if (batch.length > 0) commit(end.line, end.offset);
  store.atomically(() => {
    options.finish?.();
    clearImportCheckpoint(store);
  });
  return result;
}

/** Ids already in the store: IMPORT error naming the first (checked in chunks, before anything is written). */
function assertNoneExist(store: MemoryStore, ids: readonly string[]): void {
  const CHUNK = 10_000;
  for (let i = 0; i < ids.length; i += CHUNK) {
    const existing = store.getMany(ids.slice(i, i + CHUNK));
    if (existing.length > 0) throw existingIdsError(existing.map((r) => r.id));
  }
}

function changedFileError(file: string, problem: string): AgentMemoryError {
  return new AgentMemoryError('IMPORT', `${problem}: ${file} changed while it was imported (the line was valid when checked). The lines before it are imported; fix the file and import it again with --restart into a fresh memory.`, { file });
}
