/**
 * Many rows of a team space in few statements: records (team-store.ts `add` without merging: imports,
 * evaluations, seeding) and audit entries (every bulk action). One INSERT per batch of {@link INSERT_BATCH} rows, not one per record: the
 * keyword statistics' trigger (migration 2) runs once per statement and aggregates its rows, where one
 * statement per record made it update the same `term_stats` rows (every common word) once per record
 * inside one transaction, each update slower than the last: 3,800 records took 22.4 s, against 2.7 s
 * with that trigger off (ad-hoc measurement on a throwaway cluster). Audit rows go in one statement
 * per batch too.
 */
import type { PoolClient } from 'pg';
import { AgentMemoryError } from '../../errors';
import { redactJson, redactText } from '../../security/redact';

/** Rows per INSERT statement. */
export const INSERT_BATCH = 1000;

/** One record's columns, as `add` computed them (JSON columns as text, the vector as pgvector text or null). */
export interface InsertRow {
  id: string;
  question: string;
  code: string;
  language: string;
  answer: string;
  outcome: string;
  outputExcerpt: string;
  demonstrationIds: string;
  inputSimilarity: number | null;
  outputSimilarity: number | null;
  status: string;
  provenance: string;
  createdTask: number;
  createdAt: string;
  embedding: string | null;
  embedderId: string | null;
  embeddingDim: number | null;
  metadata: string;
  dedupKey: string;
  /** The audit entry's evidence. */
  evidence: Record<string, unknown>;
}

export interface InsertAudit {
  operation: string;
  trigger: string;
  reason: string;
  user: string;
  client: string;
}

const COLUMNS: [keyof InsertRow, string, string][] = [
  ['id', 'id', 'text'], ['question', 'question', 'text'], ['code', 'code', 'text'], ['language', 'language', 'text'], ['answer', 'answer', 'text'],
  ['outcome', 'outcome', 'text'], ['outputExcerpt', 'output_excerpt', 'text'], ['demonstrationIds', 'demonstration_ids', 'text'],
  ['inputSimilarity', 'input_similarity', 'float8'], ['outputSimilarity', 'output_similarity', 'float8'], ['status', 'status', 'text'],
  ['provenance', 'provenance', 'text'], ['createdTask', 'created_task', 'int8'], ['createdAt', 'created_at', 'text'], ['embedding', 'embedding', 'text'],
  ['embedderId', 'embedder_id', 'text'], ['embeddingDim', 'embedding_dim', 'int4'], ['metadata', 'metadata', 'text'], ['dedupKey', 'dedup_key', 'text'],
];

const INSERT_SQL = `INSERT INTO records (space, updated_at, ${COLUMNS.map(([, column]) => column).join(', ')})
  SELECT $1, $2, ${COLUMNS.map(([, column]) => (column === 'embedding' ? 'x.embedding::vector' : `x.${column}`)).join(', ')}
  FROM unnest(${COLUMNS.map(([, , type], i) => `$${i + 3}::${type}[]`).join(', ')}) WITH ORDINALITY AS x(${COLUMNS.map(([, column]) => column).join(', ')}, ord)
  ORDER BY x.ord
  ON CONFLICT (space, id) DO NOTHING RETURNING id`;

/**
 * Inserts `rows` (in order) with their audit entries, inside the caller's transaction. An id that exists in
 * the space, or twice in `rows`, fails with INVALID_INPUT naming it and its position (`first` + its index
 * + 1, as `add` counts), and the caller's transaction rolls back: nothing is written.
 */
export async function insertRecords(c: PoolClient, space: string, now: string, rows: readonly InsertRow[], audit: InsertAudit, first = 0): Promise<void> {
  for (let start = 0; start < rows.length; start += INSERT_BATCH) {
    const batch = rows.slice(start, start + INSERT_BATCH);
    const inserted = await c.query<{ id: string }>(INSERT_SQL, [space, now, ...COLUMNS.map(([key]) => batch.map((r) => r[key]))]);
    if (inserted.rowCount !== batch.length) {
      const got = new Set(inserted.rows.map((r) => r.id));
      const seen = new Set<string>();
      const at = batch.findIndex((r) => {
        const twice = seen.has(r.id);
        seen.add(r.id);
        return twice || !got.has(r.id);
      });
      const id = batch[Math.max(0, at)].id;
      throw new AgentMemoryError('INVALID_INPUT', `Record ${first + start + at + 1}: a record with id '${id}' already exists in space '${space}'. Nothing was written.`, { id });
    }
    await insertAudit(c, space, audit, batch.map((r) => ({ operation: audit.operation, recordId: r.id, trigger: audit.trigger, reason: audit.reason, evidence: r.evidence })));
  }
}

/** One audit entry (the actor is the connection's). */
export interface AuditRow {
  operation: string;
  recordId: string | null;
  trigger: string;
  reason: string;
  evidence: Record<string, unknown>;
}

/** Audit entries in one statement per INSERT_BATCH, in order, inside the caller's transaction. */
export async function insertAudit(c: PoolClient, space: string, actor: { user: string; client: string }, rows: readonly AuditRow[]): Promise<void> {
  const at = new Date().toISOString();
  for (let start = 0; start < rows.length; start += INSERT_BATCH) {
    const batch = rows.slice(start, start + INSERT_BATCH);
    await c.query(
      `INSERT INTO audit (space, at, operation, record_id, trigger, reason, evidence, actor_user, actor_client)
       SELECT $1, $2, x.operation, x.record_id, x.trigger, x.reason, x.evidence, $3, $4
       FROM unnest($5::text[], $6::text[], $7::text[], $8::text[], $9::text[]) WITH ORDINALITY AS x(operation, record_id, trigger, reason, evidence, ord) ORDER BY x.ord`,
      // Reasons, evidence and the client's self-given name are free text: redacted like every stored text.
      [space, at, actor.user, redactText(actor.client), batch.map((r) => r.operation), batch.map((r) => r.recordId), batch.map((r) => r.trigger), batch.map((r) => redactText(r.reason)), batch.map((r) => JSON.stringify(redactJson(r.evidence).value))],
    );
  }
}

/**
 * The space's audit lock (migration 5's audit trigger takes it too): an audited writer takes it first, before any row
 * lock, so the audit chain's one-writer-per-space order never inverts with the records' or statistics' row locks.
 */
export async function lockSpaceAudit(c: PoolClient, space: string): Promise<void> {
  await c.query("SELECT pg_advisory_xact_lock(hashtextextended('agent_memory_audit:' || $1, 0))", [space]);
}
