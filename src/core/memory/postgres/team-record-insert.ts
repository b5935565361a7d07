/**
 * Many records into a team space in few statements (team-store.ts `add` without merging: imports,
 * evaluations, seeding). One INSERT per batch of {@link INSERT_BATCH} rows, not one per record: the
 * keyword statistics' trigger (migration 2) runs once per statement and aggregates its rows, where one
 * statement per record made it update the same `term_stats` rows (every common word) once per record
 * inside one transaction, each update slower than the last: 3,800 records took 22.4 s, against 2.7 s
 * with that trigger off (ad-hoc measurement on a throwaway cluster). Audit rows go in one statement
 * per batch too.
 */
import type { PoolClient } from 'pg';
import { AgentMemoryError } from '../../errors';

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
    await c.query(
      `INSERT INTO audit (space, at, operation, record_id, trigger, reason, evidence, actor_user, actor_client)
       SELECT $1, $2, $3, x.id, $4, $5, x.evidence, $6, $7 FROM unnest($8::text[], $9::text[]) WITH ORDINALITY AS x(id, evidence, ord) ORDER BY x.ord`,
      [space, new Date().toISOString(), audit.operation, audit.trigger, audit.reason, audit.user, audit.client, batch.map((r) => r.id), batch.map((r) => JSON.stringify(r.evidence))],
    );
  }
}
