/**
 * Hybrid retrieval on the team server, in one round trip: pgvector cosine distance
 * (HNSW index per embedding dimension, see ensureDenseIndex) and a `tsvector` keyword
 * match (OR of the query's terms, ts_rank), fused in process with the same reciprocal-rank
 * fusion as the personal memory (../fusion.ts). Only active records are retrievable.
 */
import { fuseRankings, FusedHit, RankedKey } from '../fusion';
import type { MemoryRecord } from '../types';
import type { TeamMemoryStore } from './team-store';
import { vectorLiteral } from './vector-text';

export interface TeamSearchHit extends FusedHit {
  record: MemoryRecord;
}

/** Candidates each side contributes before fusion. */
const SIDE_DEPTH = 32;

/** Lower-case word terms of `text` for a tsquery (letters and digits only: nothing of the input reaches the query syntax). */
export function keywordTerms(text: string, max = 32): string[] {
  const terms = text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
  return [...new Set(terms.filter((t) => t.length > 1))].slice(0, max);
}

/** Best-first records for `query` (and its vector, when the memory has vectors). */
export async function searchTeam(team: TeamMemoryStore, query: string, vector: Float32Array | null, k: number): Promise<TeamSearchHit[]> {
  const terms = keywordTerms(query);
  const tsquery = terms.map((t) => `'${t}'`).join(' | ');
  const dim = vector?.length ?? 0;
  const rows = await team.withClient(
    (c) =>
      c.query<{ side: 'd' | 'k'; id: string; score: number }>(
        `WITH d AS (
           SELECT id, 1 - (embedding::vector(${dim || 1}) <=> $2::vector) AS score FROM records
           WHERE $2::text IS NOT NULL AND space = $1 AND status = 'active' AND embedding_dim = ${dim || 1}
           ORDER BY embedding::vector(${dim || 1}) <=> $2::vector LIMIT $4),
         k AS (
           SELECT id, ts_rank(tsv, q) AS score FROM records, to_tsquery('simple', $3) q
           WHERE $3 <> '' AND space = $1 AND status = 'active' AND tsv @@ q
           ORDER BY score DESC, rid LIMIT $4)
         SELECT 'd' AS side, id, score FROM d UNION ALL SELECT 'k', id, score FROM k`,
        [team.space, vector && dim > 0 ? vectorLiteral(vector) : null, tsquery, SIDE_DEPTH],
      ),
    'search the team memory',
    { retryBroken: true },
  );
  const dense: RankedKey[] = [];
  const keyword: RankedKey[] = [];
  for (const r of rows.rows) (r.side === 'd' ? dense : keyword).push({ key: r.id, score: Number(r.score) });
  const fused = fuseRankings(dense, keyword, { limit: k });
  const records = new Map((await team.getMany(fused.map((h) => h.key))).map((r) => [r.id, r]));
  return fused.flatMap((h) => (records.has(h.key) ? [{ ...h, record: records.get(h.key)! }] : []));
}
