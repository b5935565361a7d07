/**
 * JSONL export and import of a team space, line for line the format of a SQLite memory's
 * (jsonl.ts: `jsonlLine` is shared), so the same records export the same bytes from either
 * backend and a file moves between them with `export` / `import`.
 *
 * @example
 * await exportTeamJsonl(team, (line) => out.write(line), { status: ['active'] });
 * await importTeamJsonl(team, parseJsonl(fs.readFileSync(file)), { reason: 'import of memory.jsonl' });
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { AgentMemoryError } from '../../errors';
import { RedactionTally } from '../../security/redact';
import { assertUniqueIds, existingIdsError, ExportOptions, importInput, ImportOptions, jsonlLine, type JsonlRecord } from '../io/jsonl';
import { rowToRecord, RecordRow } from '../sqlite/record-row';
import { RecordStatus, StatusSchema } from '../types';
import { TEAM_RECORD_COLUMNS, TeamMemoryStore } from './team-store';
import { parseVector } from './vector-text';
import { INSERT_BATCH } from './team-batch-writes';

const PAGE = 1000;

/** Writes the space's records (oldest first, optionally by status) as export lines; returns how many. */
export async function exportTeamJsonl(team: TeamMemoryStore, write: (line: string) => void, options: ExportOptions = {}): Promise<number> {
  const statuses = z.array(StatusSchema).optional().parse(options.status);
  const withEmbeddings = options.embeddings ?? true;
  // One snapshot for the whole export (pages read in one REPEATABLE READ transaction); not retried once lines were written.
  return team.withClient(
    async (c) => {
      await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      try {
        let after = 0;
        let count = 0;
        for (;;) {
          const page = await c.query<RecordRow & { status_before_delete: RecordStatus | null; embedding: string | null }>(
            `SELECT ${TEAM_RECORD_COLUMNS}, status_before_delete, ${withEmbeddings ? 'embedding::text' : 'NULL'} AS embedding FROM records
             WHERE space = $1 AND rid > $2 ${statuses && statuses.length > 0 ? 'AND status = ANY($4::text[])' : ''} ORDER BY rid LIMIT $3`,
            statuses && statuses.length > 0 ? [team.space, after, PAGE, statuses] : [team.space, after, PAGE],
          );
          for (const row of page.rows) {
            write(JSON.stringify(jsonlLine(rowToRecord(row), row.status_before_delete, row.embedding ? parseVector(row.embedding) : null)) + '\n');
            count++;
          }
          if (page.rows.length < PAGE) return count;
          after = page.rows[page.rows.length - 1].rid;
        }
      } finally {
        await c.query('COMMIT').catch(() => undefined);
      }
    },
    'export records',
  );
}

/**
 * Imports parsed lines into the space in one transaction (all or nothing): ids must be new
 * in the space and unique in the file; vectors must be the space's embedder's (the first
 * vector claims it). Records keep their status, statusBeforeDelete (a deleted record of an
 * older export without it restores to pending), createdAt and updatedAt; each gets an
 * audit entry with trigger `import` (and who imported it); secrets are redacted.
 */
export async function importTeamJsonl(team: TeamMemoryStore, parsed: JsonlRecord[], options: ImportOptions = {}): Promise<{ imported: number; redacted: number }> {
  const records = parsed.map((r) => ({ ...(options.ignoreEmbeddings ? { ...r, embedding: undefined, embedderId: undefined } : r), id: r.id ?? randomUUID() }));
  assertUniqueIds(records);
  const existing = await team.getMany(records.map((r) => r.id));
  if (existing.length > 0) throw existingIdsError(existing.map((r) => r.id));
  const withVectors = records.filter((r) => r.embedding);
  const odd = withVectors.find((r) => r.embedderId !== withVectors[0].embedderId || r.embedding!.length !== withVectors[0].embedding!.length);
  if (odd) {
    const first = withVectors[0];
    throw new AgentMemoryError('IMPORT', `Record '${odd.id}': its vector (${odd.embedderId}, ${odd.embedding!.length} dims) differs from the file's first (${first.embedderId}, ${first.embedding!.length}); vectors of different embedders cannot be mixed. Nothing was imported.`, { id: odd.id });
  }
  const redactions = new RedactionTally();
  await team.transaction(async (c) => {
    // Runs of records with / without vectors, in file order (a re-export lists them in the same order).
    for (let start = 0; start < records.length; ) {
      const vectored = records[start].embedding !== undefined;
      let end = start;
      while (end < records.length && (records[end].embedding !== undefined) === vectored) end++;
      const run = records.slice(start, end);
      const vectors = vectored ? { embeddings: run.map((r) => Float32Array.from(r.embedding!)), embedderId: run[0].embedderId } : {};
      await team.add(run.map(importInput), { trigger: 'import', reason: options.reason ?? 'JSONL import', merge: false, redactions, client: c, ...vectors });
      // In statements of INSERT_BATCH rows, as the inserts: one UPDATE of a whole large file ran past the statement timeout.
      for (let from = 0; from < run.length; from += INSERT_BATCH) {
        const batch = run.slice(from, from + INSERT_BATCH);
        await c.query(
          `UPDATE records r SET status_before_delete = x.before, updated_at = COALESCE(x.updated, r.updated_at)
           FROM unnest($2::text[], $3::text[], $4::text[]) AS x(id, before, updated) WHERE r.space = $1 AND r.id = x.id`,
          [team.space, batch.map((r) => r.id), batch.map((r) => (r.status === 'deleted' ? (r.statusBeforeDelete ?? 'pending') : null)), batch.map((r) => r.updatedAt ?? null)],
        );
      }
      start = end;
    }
  }, 'import records');
  return { imported: records.length, redacted: redactions.count };
}
