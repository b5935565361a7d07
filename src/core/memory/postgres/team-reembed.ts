/**
 * Re-embedding a team space onto its shared embedder (`agent-memory re-embed --db postgres://…`):
 * every record of the space gets the vector of the built-in unfitted hashing embedder
 * (team-embedder.ts) of its redacted question, and the space's meta names that embedder, all in
 * one transaction under the space's embedder lock. Until it commits every client keeps the old
 * vectors; after, every client computes the same query vectors. This is how a space migrated from
 * a personal memory (a fitted embedder, which no client can share) becomes searchable on both sides.
 */
import { lockSpaceAudit } from './team-batch-writes';
import { EMBEDDER_DIM_META, EMBEDDER_ID_META, TEAM_DEFAULT_DIMENSION } from './team-embedder';
import type { TeamMemoryStore } from './team-store';
import { vectorLiteral } from './vector-text';
import { HashingEmbedder } from '../../similarity/hashing-embedder';

/** Rows updated per statement. */
const BATCH = 500;

export interface TeamReembedResult {
  count: number;
  embedderId: string;
  dimension: number;
  /** The embedder the space named before (undefined: none). */
  previous: string | undefined;
}

/** `dimension`: the shared embedder's (default: the space's current hashing dimension, else 384). */
export async function reembedTeamSpace(team: TeamMemoryStore, options: { dimension?: number; onProgress?(done: number, total: number): void } = {}): Promise<TeamReembedResult> {
  return team.transaction(async (c) => {
    // A reviewer's (the server refuses an agent's update of the vectors); the audit lock before any row lock.
    await team.requireLevel('reviewer', 're-embed the team space', c);
    await lockSpaceAudit(c, team.space);
    await c.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`${team.space}:embedder`]);
    const meta = new Map(
      (await c.query<{ key: string; value: string }>('SELECT key, value FROM meta WHERE space = $1 AND key = ANY($2::text[])', [team.space, [EMBEDDER_ID_META, EMBEDDER_DIM_META]])).rows.map((r) => [r.key, r.value]),
    );
    const previous = meta.get(EMBEDDER_ID_META);
    const current = /^hash-v\d+-(\d+)$/.exec(previous ?? '');
    const dimension = options.dimension ?? (current ? Number(current[1]) : TEAM_DEFAULT_DIMENSION);
    const embedder = new HashingEmbedder({ dimension });
    const rows = (await c.query<{ rid: string; question: string }>('SELECT rid, question FROM records WHERE space = $1 ORDER BY rid FOR UPDATE', [team.space])).rows;
    for (let i = 0; i < rows.length; i += BATCH) {
      const batch = rows.slice(i, i + BATCH);
      await c.query(
        `UPDATE records r SET embedding = v.embedding::vector, embedder_id = $2, embedding_dim = $3
         FROM unnest($4::bigint[], $5::text[]) AS v(rid, embedding) WHERE r.space = $1 AND r.rid = v.rid`,
        [team.space, embedder.id, dimension, batch.map((r) => r.rid), batch.map((r) => vectorLiteral(embedder.embedSync(r.question)))],
      );
      options.onProgress?.(Math.min(i + BATCH, rows.length), rows.length);
    }
    await c.query(
      `INSERT INTO meta (space, key, value) VALUES ($1, $2, $3), ($1, $4, $5)
       ON CONFLICT (space, key) DO UPDATE SET value = EXCLUDED.value`,
      [team.space, EMBEDDER_ID_META, embedder.id, EMBEDDER_DIM_META, String(dimension)],
    );
    await team.writeAudit(c, 're-embed', null, 'user', `re-embedded ${rows.length} record(s) of space '${team.space}' with the shared ${embedder.id}${previous && previous !== embedder.id ? ` (was ${previous})` : ''}`, { count: rows.length, embedderId: embedder.id, previous: previous ?? null });
    return { count: rows.length, embedderId: embedder.id, dimension, previous };
  }, 're-embed the team space');
}
