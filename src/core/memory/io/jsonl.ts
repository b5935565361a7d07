import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { AgentMemoryError } from '../../errors';
import { RedactionTally } from '../../security/redact';
import { checkJsonl, invalidLinesError, JsonlRecord } from './jsonl-format';
import { RECORD_COLUMNS, RecordRow, rowToRecord } from '../sqlite/record-row';
import type { MemoryStore } from '../sqlite/store';
import { MemoryRecord, NewRecordInput, RecordStatus, StatusSchema } from '../types';
import { blobToVector } from '../dense/vector-index';

export { checkJsonl, JSONL_LIMITS, JsonlRecordSchema, parseJsonl, type JsonlCheck, type JsonlRecord } from './jsonl-format';

export interface ExportOptions {
  /** Only records with these statuses (default: all). */
  status?: RecordStatus[];
  /** Include vectors (default true). */
  embeddings?: boolean;
}

/**
 * Writes every record (optionally filtered by status) as one JSON line each,
 * oldest first, through `write`. Returns the number of records written.
 * Lines carry the record's lifecycle (status, statusBeforeDelete, createdAt,
 * updatedAt, provenance), so export → import → export is byte-identical.
 *
 * @example
 * const lines: string[] = [];
 * exportJsonl(store, (line) => lines.push(line), { status: ['active'] });
 */
export function exportJsonl(store: MemoryStore, write: (line: string) => void, options: ExportOptions = {}): number {
  const statuses = z.array(StatusSchema).optional().parse(options.status);
  const withEmbeddings = options.embeddings ?? true;
  const where = statuses && statuses.length > 0 ? 'WHERE status IN (SELECT value FROM json_each(?))' : '';
  const stmt = store.connectionForQueries().prepare(`SELECT ${RECORD_COLUMNS}, status_before_delete, embedding FROM records ${where} ORDER BY rid`);
  const rows = (where ? stmt.iterate(JSON.stringify(statuses)) : stmt.iterate()) as Iterable<RecordRow & { status_before_delete: 'pending' | 'active' | null; embedding: Buffer | null }>;
  let count = 0;
  for (const row of rows) {
    const line = jsonlLine(rowToRecord(row), row.status_before_delete, withEmbeddings && row.embedding ? blobToVector(row.embedding) : null);
    write(JSON.stringify(line) + '\n');
    count++;
  }
  return count;
}

/**
 * One record as its export line (the one shape of both backends: the team memory's export
 * uses it too, so a SQLite file and a team space holding the same records export the same bytes).
 * `embedding`: the record's vector, or null to leave it out.
 */
export function jsonlLine(rec: MemoryRecord, statusBeforeDelete: RecordStatus | null, embedding: Float32Array | null): JsonlRecord {
  const line: JsonlRecord = {
    id: rec.id,
    question: rec.question,
    execution: rec.execution,
    status: rec.status,
    ...(rec.status === 'deleted' && statusBeforeDelete && statusBeforeDelete !== 'deleted' ? { statusBeforeDelete } : {}),
    provenance: rec.provenance,
    createdTask: rec.createdTask,
    createdAt: rec.createdAt,
    updatedAt: rec.updatedAt,
    metadata: rec.metadata,
  };
  if (embedding && rec.embedderId) {
    line.embedding = Array.from(embedding);
    line.embedderId = rec.embedderId;
  }
  return line;
}

/** Duplicate ids within an import file: IMPORT error naming both lines (nothing imported). */
export function assertUniqueIds(records: readonly JsonlRecord[]): void {
  const seen = new Map<string, number>();
  records.forEach((r, i) => {
    if (r.id === undefined) return;
    if (seen.has(r.id)) throw new AgentMemoryError('IMPORT', `Record ${i + 1} (id '${r.id}'): duplicate id in the file (also record ${seen.get(r.id)}). Nothing was imported.`, { id: r.id });
    seen.set(r.id, i + 1);
  });
}

/** Records already present: IMPORT error naming the first (nothing imported). */
export function existingIdsError(ids: readonly string[]): AgentMemoryError {
  return new AgentMemoryError('IMPORT', `${ids.length} record id(s) already exist in this memory (first: '${ids[0]}'). Nothing was imported; import into a fresh memory or remove them first.`, { ids: ids.slice(0, 10) });
}

/** The new-record input of an import line (its lifecycle beyond the status is applied by the importer). */
export function importInput(r: JsonlRecord): NewRecordInput {
  return { id: r.id, question: r.question, execution: r.execution, status: r.status, provenance: r.provenance, createdTask: r.createdTask, createdAt: r.createdAt, metadata: r.metadata };
}

export interface ImportOptions {
  reason?: string;
  /** Drop vectors from the file (the caller re-embeds). */
  ignoreEmbeddings?: boolean;
  /** Runs inside the import's transaction once the records are written, given the secrets redacted (a file import's checkpoint). */
  inSameTransaction?: (redacted: number) => void;
}

export interface JsonlImportOptions extends ImportOptions {
  /** Import the valid lines and skip the bad ones (listed in `skipped`); default: any bad line imports nothing. */
  skipInvalid?: boolean;
}

/**
 * Imports a JSONL export into the store in one transaction: every line is
 * validated first (an invalid line, invalid UTF-8, a bad id or an oversized
 * field is reported with its number and field and nothing is written), ids
 * must be new, and vectors must come from the store's embedder. Records keep
 * their status, statusBeforeDelete (a deleted record from an older export
 * without it restores to pending: never past the human gate), createdAt and
 * updatedAt. Each record gets an audit entry with trigger `import`; secrets
 * in the text are redacted and counted in `redacted`.
 *
 * With `skipInvalid` the valid lines are imported (still one transaction, after the same
 * checks) and the bad ones are returned in `skipped`, each naming its line; a file with no
 * valid line still imports nothing and throws.
 *
 * @example
 * const { imported, redacted } = importJsonl(store, fs.readFileSync('memory.jsonl'), { reason: 'restore backup' });
 */
export function importJsonl(store: MemoryStore, input: string | Uint8Array, options: JsonlImportOptions = {}): { imported: number; redacted: number; skipped: string[] } {
  const { records, problems } = checkJsonl(input);
  if (problems.length > 0 && !options.skipInvalid) throw invalidLinesError(problems, records.length);
  if (records.length === 0 && problems.length > 0) throw invalidLinesError(problems, 0);
  return { ...importRecords(store, records, options), skipped: problems };
}

/** importJsonl for lines already parsed by parseJsonl (callers that validate before opening a store). */
export function importRecords(store: MemoryStore, parsed: JsonlRecord[], options: ImportOptions = {}): { imported: number; redacted: number } {
  // Ids are given here when the line has none (as the store would), so the write needs no read-back.
  const records = parsed.map((r) => ({ ...r, id: r.id ?? randomUUID(), ...(options.ignoreEmbeddings ? { embedding: undefined, embedderId: undefined } : {}) }));
  assertUniqueIds(records);
  const existing = store.getMany(records.flatMap((r) => (r.id === undefined ? [] : [r.id])));
  if (existing.length > 0) throw existingIdsError(existing.map((r) => r.id));
  const withVectors = records.filter((r) => r.embedding);
  let embedderId: string | undefined;
  if (withVectors.length > 0) {
    embedderId = withVectors[0].embedderId!;
    const dim = withVectors[0].embedding!.length;
    const odd = withVectors.find((r) => r.embedderId !== embedderId || r.embedding!.length !== dim);
    if (odd) throw new AgentMemoryError('IMPORT', `Record '${odd.id}': its vector (${odd.embedderId}, ${odd.embedding!.length} dims) differs from the file's first (${embedderId}, ${dim}); vectors of different embedders cannot be mixed. Nothing was imported.`, { id: odd.id });
    store.assertEmbedder(embedderId, dim);
  }
  const toInput = importInput;
  const redactions = new RedactionTally();
  const context = { trigger: 'import' as const, reason: options.reason ?? 'JSONL import', returnRecords: false, redactions };
  const lifecycle = store.connectionForQueries().prepare('UPDATE records SET status_before_delete = ?, updated_at = COALESCE(?, updated_at) WHERE id = ?');
  const write = store.connectionForQueries().transaction(() => {
    // Runs of records with / without vectors, in file order (so a re-export lists them in the same order).
    for (let start = 0; start < records.length; ) {
      const vectored = records[start].embedding !== undefined;
      let end = start;
      while (end < records.length && (records[end].embedding !== undefined) === vectored) end++;
      const run = records.slice(start, end);
      store.add(run.map(toInput), vectored ? { ...context, embeddings: run.map((r) => Float32Array.from(r.embedding!)), embedderId } : context);
      for (const r of run) lifecycle.run(r.status === 'deleted' ? r.statusBeforeDelete ?? 'pending' : null, r.updatedAt ?? null, r.id);
      start = end;
    }
    options.inSameTransaction?.(redactions.count);
  });
  write.immediate();
  return { imported: records.length, redacted: redactions.count };
}
