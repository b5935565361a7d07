import { z } from 'zod';
import { AgentMemoryError } from '../errors';
import { RECORD_COLUMNS, RecordRow, rowToRecord } from './record-row';
import type { MemoryStore } from './store';
import { ExecutionSchema, NewRecordInput, ProvenanceSchema, RecordStatus, StatusSchema } from './types';
import { blobToVector } from './vector-index';

/**
 * One memory record per JSONL line: every stored field of the record
 * (utility statistics are derived from the retrieval log and not carried).
 */
export const JsonlRecordSchema = z
  .object({
    /** Optional on import: a fresh id is generated when absent. */
    id: z.string().min(1).max(200).optional(),
    question: z.string().trim().min(1, 'question must not be empty').max(20000),
    execution: ExecutionSchema,
    status: StatusSchema,
    provenance: ProvenanceSchema,
    createdTask: z.number().int().min(0),
    createdAt: z.string().datetime({ offset: true }),
    metadata: z.record(z.string(), z.unknown()).default({}),
    /** The record's vector, as plain numbers (float32 values survive JSON exactly). */
    embedding: z.array(z.number().finite()).min(1).optional(),
    embedderId: z.string().min(1).optional(),
  })
  .refine((r) => (r.embedding === undefined) === (r.embedderId === undefined), {
    message: 'embedding and embedderId must be given together',
    path: ['embedderId'],
  });
export type JsonlRecord = z.infer<typeof JsonlRecordSchema>;

export interface ExportOptions {
  /** Only records with these statuses (default: all). */
  status?: RecordStatus[];
  /** Include vectors (default true). */
  embeddings?: boolean;
}

/**
 * Writes every record (optionally filtered by status) as one JSON line each,
 * oldest first, through `write`. Returns the number of records written.
 *
 * @example
 * const lines: string[] = [];
 * exportJsonl(store, (line) => lines.push(line), { status: ['active'] });
 */
export function exportJsonl(store: MemoryStore, write: (line: string) => void, options: ExportOptions = {}): number {
  const statuses = z.array(StatusSchema).optional().parse(options.status);
  const withEmbeddings = options.embeddings ?? true;
  const where = statuses && statuses.length > 0 ? 'WHERE status IN (SELECT value FROM json_each(?))' : '';
  const stmt = store.connectionForQueries().prepare(`SELECT ${RECORD_COLUMNS}, embedding FROM records ${where} ORDER BY rid`);
  const rows = (where ? stmt.iterate(JSON.stringify(statuses)) : stmt.iterate()) as Iterable<RecordRow & { embedding: Buffer | null }>;
  let count = 0;
  for (const row of rows) {
    const rec = rowToRecord(row);
    const line: JsonlRecord = {
      id: rec.id,
      question: rec.question,
      execution: rec.execution,
      status: rec.status,
      provenance: rec.provenance,
      createdTask: rec.createdTask,
      createdAt: rec.createdAt,
      metadata: rec.metadata,
    };
    if (withEmbeddings && row.embedding && rec.embedderId) {
      line.embedding = Array.from(blobToVector(row.embedding));
      line.embedderId = rec.embedderId;
    }
    write(JSON.stringify(line) + '\n');
    count++;
  }
  return count;
}

/** Parses and validates a whole JSONL text; throws IMPORT naming the first bad line and field. */
export function parseJsonl(text: string): JsonlRecord[] {
  const out: JsonlRecord[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, index) => {
    const line = raw.trim();
    if (!line) return;
    const lineNo = index + 1;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new AgentMemoryError('IMPORT', `Line ${lineNo}: not valid JSON (${error instanceof Error ? error.message : String(error)}). Nothing was imported.`, { line: lineNo });
    }
    const result = JsonlRecordSchema.safeParse(value);
    if (!result.success) {
      const issue = result.error.issues[0];
      const field = issue.path.join('.') || '(record)';
      throw new AgentMemoryError('IMPORT', `Line ${lineNo}: field '${field}': ${issue.message}. Nothing was imported; fix the line and import again.`, { line: lineNo, field });
    }
    out.push(result.data);
  });
  return out;
}

/**
 * Imports a JSONL export into the store in one transaction: every line is
 * validated first (an invalid line is reported with its number and field and
 * nothing is written), ids must be new, and vectors must come from the store's
 * embedder. Each record gets an audit entry with trigger `import`.
 *
 * @example
 * const { imported } = importJsonl(store, fs.readFileSync('memory.jsonl', 'utf8'), { reason: 'restore backup' });
 */
export function importJsonl(store: MemoryStore, text: string, options: { reason?: string; /** Drop vectors from the file (the caller re-embeds). */ ignoreEmbeddings?: boolean } = {}): { imported: number } {
  const records = parseJsonl(text).map((r) => (options.ignoreEmbeddings ? { ...r, embedding: undefined, embedderId: undefined } : r));
  const lineOf = (i: number) => i + 1;
  const seen = new Map<string, number>();
  records.forEach((r, i) => {
    if (r.id === undefined) return;
    if (seen.has(r.id)) throw new AgentMemoryError('IMPORT', `Record ${lineOf(i)} (id '${r.id}'): duplicate id in the file (also record ${seen.get(r.id)}). Nothing was imported.`, { id: r.id });
    seen.set(r.id, lineOf(i));
  });
  const existing = store.getMany(records.flatMap((r) => (r.id === undefined ? [] : [r.id])));
  if (existing.length > 0) {
    throw new AgentMemoryError('IMPORT', `${existing.length} record id(s) already exist in this memory (first: '${existing[0].id}'). Nothing was imported; import into a fresh memory or remove them first.`, { ids: existing.slice(0, 10).map((r) => r.id) });
  }
  const withVectors = records.filter((r) => r.embedding);
  const without = records.filter((r) => !r.embedding);
  let embedderId: string | undefined;
  if (withVectors.length > 0) {
    embedderId = withVectors[0].embedderId!;
    const dim = withVectors[0].embedding!.length;
    const odd = withVectors.find((r) => r.embedderId !== embedderId || r.embedding!.length !== dim);
    if (odd) throw new AgentMemoryError('IMPORT', `Record '${odd.id}': its vector (${odd.embedderId}, ${odd.embedding!.length} dims) differs from the file's first (${embedderId}, ${dim}); vectors of different embedders cannot be mixed. Nothing was imported.`, { id: odd.id });
    store.assertEmbedder(embedderId, dim);
  }
  const toInput = (r: JsonlRecord): NewRecordInput => ({
    id: r.id,
    question: r.question,
    execution: r.execution,
    status: r.status,
    provenance: r.provenance,
    createdTask: r.createdTask,
    createdAt: r.createdAt,
    metadata: r.metadata,
  });
  const context = { trigger: 'import' as const, reason: options.reason ?? 'JSONL import', returnRecords: false };
  const write = store.connectionForQueries().transaction(() => {
    if (without.length > 0) store.add(without.map(toInput), context);
    if (withVectors.length > 0) {
      store.add(withVectors.map(toInput), { ...context, embeddings: withVectors.map((r) => Float32Array.from(r.embedding!)), embedderId });
    }
  });
  write.immediate();
  return { imported: records.length };
}
