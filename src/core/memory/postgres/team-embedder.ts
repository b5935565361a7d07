/**
 * The team memory's shared embedder: every client (editor, MCP server, CLI) must put
 * questions and records in the same vector space without sharing any state but the
 * space's `meta`. The built-in *unfitted* hashing embedder (`hash-v1-<dim>`) qualifies:
 * deterministic, no model, no fitted statistics. Its dimension is stored in the space's
 * meta (`embedder_id`, `embedder_dim`) by `team-setup --space NAME --dimension N`, or by the
 * first record written with a vector (the store claims it under a lock); every client reads
 * it from there. A space whose meta names another embedder (an endpoint model, a fitted
 * hashing embedder, synthetic bench vectors) is refused with UNSUPPORTED rather than
 * guessed at (docs/team-memory.md, "Shared vectors").
 */
import type { ClientBase } from 'pg';
import { AgentMemoryError } from '../../errors';
import { DEFAULT_HASHING_DIMENSION, HashingEmbedder } from '../../similarity/hashing-embedder';

/** Dimension of a space's shared embedder when nothing is stored yet. */
export const TEAM_DEFAULT_DIMENSION = DEFAULT_HASHING_DIMENSION;
export const EMBEDDER_ID_META = 'embedder_id';
export const EMBEDDER_DIM_META = 'embedder_dim';

/** The shared embedder for what a space's meta names (undefined id: the default, claimed by the first write). */
export function sharedEmbedderFor(space: string, id: string | undefined, dimension: string | undefined): HashingEmbedder {
  if (id === undefined) return new HashingEmbedder({ dimension: TEAM_DEFAULT_DIMENSION });
  const dim = Number(dimension);
  const unfitted = /^hash-v\d+-(\d+)$/.exec(id);
  if (unfitted && Number.isInteger(dim) && Number(unfitted[1]) === dim) {
    const embedder = new HashingEmbedder({ dimension: dim });
    // Another feature version: the stored vectors are not comparable with this client's.
    if (embedder.id !== id) {
      throw new AgentMemoryError(
        'EMBEDDER_MISMATCH',
        `Space '${space}' of the team memory embeds with ${id}, another version of the built-in hashing embedder than this client's ${embedder.id}: use the same Agent Memory version on every client of the space.`,
        { space, stored: id, configured: embedder.id },
      );
    }
    return embedder;
  }
  throw new AgentMemoryError(
    'UNSUPPORTED',
    `Space '${space}' of the team memory names the embedder '${id}' (${dimension ?? '?'} dimensions). Shared vectors support only the built-in unfitted hashing embedder (hash-v1-N) for now: ` +
      'an endpoint model or fitted statistics as the team embedder is not supported yet. Use a space set up with `agent-memory team-setup --space NAME --dimension N`.',
    { space, embedderId: id },
  );
}

/** The space's shared embedder, from its meta (one query); `stored`: the meta names it (else the default, not claimed yet). */
export async function readSharedEmbedder(c: ClientBase, space: string): Promise<{ embedder: HashingEmbedder; stored: boolean }> {
  const r = await c.query<{ key: string; value: string }>('SELECT key, value FROM meta WHERE space = $1 AND key = ANY($2::text[])', [space, [EMBEDDER_ID_META, EMBEDDER_DIM_META]]);
  const meta = new Map(r.rows.map((row) => [row.key, row.value]));
  const id = meta.get(EMBEDDER_ID_META);
  return { embedder: sharedEmbedderFor(space, id, meta.get(EMBEDDER_DIM_META)), stored: id !== undefined };
}

/**
 * Records the hashing embedder of `dimension` as the space's shared embedder (team-setup).
 * Idempotent; a space already naming another embedder or dimension is refused (its vectors would not compare).
 */
export async function setSharedEmbedder(c: ClientBase, space: string, dimension: number): Promise<HashingEmbedder> {
  const embedder = new HashingEmbedder({ dimension });
  await c.query('BEGIN');
  try {
    await c.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`${space}:embedder`]);
    const r = await c.query<{ key: string; value: string }>('SELECT key, value FROM meta WHERE space = $1 AND key = ANY($2::text[])', [space, [EMBEDDER_ID_META, EMBEDDER_DIM_META]]);
    const meta = new Map(r.rows.map((row) => [row.key, row.value]));
    const id = meta.get(EMBEDDER_ID_META);
    if (id !== undefined && id !== embedder.id) {
      throw new AgentMemoryError(
        'EMBEDDER_MISMATCH',
        `Space '${space}' already embeds with ${id} (${meta.get(EMBEDDER_DIM_META) ?? '?'} dimensions); vectors of ${embedder.id} would not compare with its records. Keep that dimension for this space, or set up a new space. Nothing was changed.`,
        { space, stored: id, requested: embedder.id },
      );
    }
    if (id === undefined) {
      await c.query('INSERT INTO meta(space, key, value) VALUES ($1, $2, $3), ($1, $4, $5)', [space, EMBEDDER_ID_META, embedder.id, EMBEDDER_DIM_META, String(dimension)]);
    }
    await c.query('COMMIT');
    return embedder;
  } catch (error) {
    await c.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
