/**
 * Hybrid retrieval on the team server: pgvector cosine distance (HNSW index per embedding
 * dimension, see ensureDenseIndex) and a keyword side, fused in process with the same
 * reciprocal-rank fusion as the personal memory (../fusion.ts). Only active records are
 * retrievable.
 *
 * A pass is one call of the owner's `agent_memory_search` (migration 7, migration-search.ts): one statement,
 * one round trip, the caller's level in the space checked once; the steps below run on the server.
 *
 * The keyword side costs the same however many records match a common word
 * (docs/team-memory.md, "Keyword search at 100k"):
 * 1. the query is split into terms by the server's own parser, and each term's document
 *    frequency in the space is read from `term_stats` (kept exact by triggers, migration 2);
 * 2. candidates are the records holding one of the rarest terms, as many terms as keep the
 *    postings within KEYWORD_CANDIDATES; only the GIN postings of those terms are read;
 * 3. when every term is common (each one's postings over the cap), candidates are the
 *    records holding all of them (words in over half of the records left out of the AND)
 *    and those holding the rarest one, each part cut at COMMON_CANDIDATES rows (a
 *    common-words-only query still answers);
 * 4. candidates are ranked by the summed BM25 IDF of the query terms they hold (ties:
 *    ts_rank, then age).
 * So at most KEYWORD_CANDIDATES rows are read and ranked, never every match.
 *
 * Duplicate-aware, as the personal memory (../search/program-collapse.ts): records with the same
 * normalised program count as one entry on each side before fusion, so copies neither take several
 * ranks nor push other programs down, and each program shown is represented by its best member by
 * mean utility, then the most recent; the others are counted (`identical`). A side that filled its
 * pass with fewer than k distinct programs makes the search look again 4× deeper (up to
 * MAX_SIDE_DEPTH; the dense side then widens pgvector's `hnsw.ef_search` for that transaction only).
 *
 * Re-ranked on request (`options.rerank`, team-shapes.ts): the best RERANK_DEPTH distinct programs are fused
 * and re-ordered as the personal memory re-orders them (../search/rerank.ts), from state the client holds.
 */
import type { ClientBase } from 'pg';
import { fuseRankings, FusedHit, RankedKey } from '../search/fusion';
import { betterRepresentative, programKey } from '../search/program-collapse';
import { rowToRecord, RecordRow } from '../sqlite/record-row';
import type { MemoryRecord } from '../types';
import { TEAM_RECORD_COLUMNS, TeamMemoryStore } from './team-store';
import { vectorLiteral } from './vector-text';
import { RERANK_DEPTH } from '../search/rerank';
import type { TeamShapes } from './team-shapes';

export interface TeamSearchHit extends FusedHit {
  record: MemoryRecord;
  /** Other candidates with the same normalised program that this hit stands for (collapsed searches). */
  identical?: number;
}

export interface TeamSearchOptions {
  /** Collapse records with the same normalised program (default true; false: every record on its own). */
  collapse?: boolean;
  /**
   * Re-rank the collapsed top {@link RERANK_DEPTH} as the personal memory does (team-shapes.ts; the fused order
   * while its first read of the space is not complete, and always without the data's values: TeamShapes.applies).
   * Default: none.
   */
  rerank?: TeamShapes;
}

/** A candidate of one side with its record's columns. */
/** `sim`: the record's own cosine to the query vector (null without one, or for another dimension). */
type CandidateRow = RecordRow & { side: 'a' | 'd' | 'k'; score: number; pos: string; sim: number | null };

/** Candidates each side contributes before fusion (a first pass). */
const SIDE_DEPTH = 32;
/** Deepest pass of a collapsed search whose sides hold few distinct programs. */
export const MAX_SIDE_DEPTH = 512;
/** Most records one part of the keyword side reads (the rare terms' postings, the common terms' intersection, the fallback). */
export const KEYWORD_CANDIDATES = 1000;
/**
 * Rows each part of a common-words-only query reads: its candidates all hold the same terms
 * (equal IDF sums), so a larger cut would only feed the ts_rank tie-break.
 */
export const COMMON_CANDIDATES = 250;
/** A space with at most this many active records is read whole by the keyword side (its btree), not through the shared GIN index. */
export const SMALL_SPACE_ROWS = 5000;
/** Nearest neighbours the dense side takes from the HNSW index before keeping the space's (pgvector's default hnsw.ef_search). */
const HNSW_CANDIDATES = 40;
/** Longest query text sent to the server's parser. */
const MAX_QUERY_CHARS = 4000;

/** Lower-case word terms of `text` (letters and digits only: nothing of the input reaches the query syntax). */
export function keywordTerms(text: string, max = 32): string[] {
  const terms = text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
  return [...new Set(terms.filter((t) => t.length > 1))].slice(0, max);
}

/** The limits the server's search function takes (migration 7's p_limits). */
const LIMITS = [KEYWORD_CANDIDATES, COMMON_CANDIDATES, SMALL_SPACE_ROWS];

/** The arguments of `agent_memory_search` / `agent_memory_search_plan` for one pass (migration-search.ts). */
function searchArguments(space: string, query: string, vector: Float32Array | null, depth: number, spaceInScan: boolean): unknown[] {
  return [space, query.slice(0, MAX_QUERY_CHARS), vector ? vectorLiteral(vector) : null, vector?.length ?? 0, depth, hnswCandidates(depth), spaceInScan && vector !== null, LIMITS];
}

/**
 * One pass in one statement and one round trip: the owner's `agent_memory_search` (migration 7) checks the caller's
 * level in the space, reads the query terms' document frequencies, plans the keyword parts and returns the space's
 * active count (side 'a') and both sides' candidates with their records. Prepared once per connection.
 */
const SEARCH_STATEMENT = {
  name: 'agent_memory_search_v7',
  text: `SELECT s.side, s.score, s.pos, s.sim, ${TEAM_RECORD_COLUMNS.split(',').map((c) => `(s.rec).${c.trim()}`).join(', ')}
    FROM agent_memory_search($1, $2, $3::vector, $4, $5, $6, $7, $8::int[]) s`,
};

/** Nearest neighbours the dense side takes from the HNSW index for a pass of `depth` (pgvector's ef_search at the first). */
function hnswCandidates(depth: number): number {
  return depth <= SIDE_DEPTH ? HNSW_CANDIDATES : depth + HNSW_CANDIDATES - SIDE_DEPTH;
}

/** Whether the server's pgvector has iterative index scans (0.8 and later), per store. */
const iterativeScans = new WeakMap<TeamMemoryStore, boolean>();

async function hasIterativeScans(team: TeamMemoryStore, c: ClientBase): Promise<boolean> {
  let known = iterativeScans.get(team);
  if (known === undefined) {
    const r = await c.query<{ v: string | null }>("SELECT extversion AS v FROM pg_extension WHERE extname = 'vector'");
    const [major, minor] = (r.rows[0]?.v ?? '0.0').split('.').map(Number);
    known = major > 0 || minor >= 8;
    iterativeScans.set(team, known);
  }
  return known;
}

/** Per store and dimension: whether another space holds active vectors of it, and when that was read. */
const otherSpaces = new WeakMap<TeamMemoryStore, Map<number, { at: number; yes: boolean }>>();
/** How long that answer is kept (a space created meanwhile is seen after at most this long). */
const OTHER_SPACES_TTL_MS = 60_000;

async function otherSpacesHaveVectors(team: TeamMemoryStore, dim: number): Promise<boolean> {
  const byDim = otherSpaces.get(team) ?? new Map<number, { at: number; yes: boolean }>();
  otherSpaces.set(team, byDim);
  const known = byDim.get(dim);
  if (known && Date.now() - known.at < OTHER_SPACES_TTL_MS) return known.yes;
  // The spaces by a loose index scan of the (space, …) btree (one probe per space), then one probe each.
  const r = await team.withClient(
    (c) => c.query<{ yes: boolean }>(
      `WITH RECURSIVE s(space) AS (
         (SELECT space FROM records ORDER BY space LIMIT 1)
         UNION ALL
         SELECT (SELECT space FROM records WHERE space > s.space ORDER BY space LIMIT 1) FROM s WHERE s.space IS NOT NULL)
       SELECT EXISTS (SELECT 1 FROM s WHERE s.space IS NOT NULL AND s.space <> $1
         AND EXISTS (SELECT 1 FROM records r WHERE r.space = s.space AND r.status = 'active' AND r.embedding_dim = $2)) AS yes`,
      [team.space, dim],
    ),
    'search the team memory',
    { retryBroken: true },
  );
  const yes = r.rows[0]?.yes === true;
  byDim.set(dim, { at: Date.now(), yes });
  return yes;
}

/** A pass's candidates and the space's active record count. */
interface Pass {
  rows: CandidateRow[];
  active: number;
}

/**
 * One pass: each side's candidates, `depth` deep, with their records. A deeper pass runs in its own read
 * transaction with hnsw.ef_search widened; `spaceInScan` also turns on pgvector's iterative scans (0.8+) and
 * filters the space inside the dense scan (see searchStatement).
 */
async function candidates(team: TeamMemoryStore, query: string, vector: Float32Array | null, depth: number, spaceInScan: boolean): Promise<Pass> {
  const dim = vector?.length ?? 0;
  const deep = depth > SIDE_DEPTH || spaceInScan;
  const run = async (c: ClientBase): Promise<Pass> => {
    if (deep && dim > 0) {
      const iterative = spaceInScan && (await hasIterativeScans(team, c));
      await c.query(
        `SELECT set_config('hnsw.ef_search', $1, true)${iterative ? ", set_config('hnsw.iterative_scan', 'relaxed_order', true)" : ''}`,
        [String(Math.min(1000, hnswCandidates(depth)))],
      );
    }
    const r = await c.query<CandidateRow>({ ...SEARCH_STATEMENT, values: searchArguments(team.space, query, vector, depth, spaceInScan) });
    const active = Number(r.rows.find((row) => row.side === 'a')?.score ?? 0);
    return { rows: r.rows.filter((row) => row.side !== 'a'), active };
  };
  const pass = deep ? await team.transaction(run, 'search the team memory') : await team.withClient(run, 'search the team memory', { retryBroken: true });
  pass.rows.sort((a, b) => (a.side < b.side ? -1 : a.side > b.side ? 1 : Number(a.pos) - Number(b.pos)));
  return pass;
}

/** Best by mean utility, then the most recent: the personal memory's rule (program-collapse.ts), on rows. */
function betterMember(a: CandidateRow, b: CandidateRow): boolean {
  const view = (r: CandidateRow) => ({ rid: Number(r.rid), utilitySum: Number(r.utility_sum), utilityCount: Number(r.utility_count), createdTask: Number(r.created_task) });
  return betterRepresentative(view(a), view(b));
}

/**
 * Best-first records for `query` (and its vector, when the memory has vectors); records marked stale by a
 * revalidation are skipped. Collapsed by program unless `options.collapse` is false (see the file comment).
 */
export async function searchTeam(team: TeamMemoryStore, query: string, vector: Float32Array | null, k: number, options: TeamSearchOptions = {}): Promise<TeamSearchHit[]> {
  const collapse = options.collapse ?? true;
  // Re-ranking applies only with the data's values (TeamShapes.applies): else this is the fused search, exactly.
  const rerank = options.rerank?.applies ? options.rerank : undefined;
  // A re-ranked search fuses the best RERANK_DEPTH and re-orders them (as hybrid-search.ts does).
  const want = rerank ? Math.max(k, RERANK_DEPTH) : k;
  // The re-ranking's catch-up runs beside the search's own read (prepare never rejects).
  const prepared = rerank?.prepare();
  const keyOf = collapse ? (r: CandidateRow): string => programKey(r.code, r.language) : (r: CandidateRow): string => r.id;
  let spaceInScan = false;
  for (let depth = SIDE_DEPTH; ; ) {
    const { rows, active } = await candidates(team, query, vector, depth, spaceInScan);
    const dense: RankedKey[] = [];
    const keyword: RankedKey[] = [];
    // Per program (or record): its members, each once.
    const members = new Map<string, Map<string, CandidateRow>>();
    for (const r of rows) {
      const key = keyOf(r);
      // fuseRankings keeps each key's best entry per side: a program takes one rank per side.
      (r.side === 'd' ? dense : keyword).push({ key, score: Number(r.score) });
      const group = members.get(key) ?? new Map<string, CandidateRow>();
      group.set(r.id, r);
      members.set(key, group);
    }
    // A side that filled its pass with fewer than k distinct programs may hold more deeper down (copies took its ranks).
    const short = (side: RankedKey[]): boolean => side.length >= depth && new Set(side.map((h) => h.key)).size < want;
    if (collapse && (short(dense) || short(keyword)) && depth < MAX_SIDE_DEPTH) {
      depth = Math.min(MAX_SIDE_DEPTH, depth * 4);
      continue;
    }
    // Fewer dense candidates than the space can give while other spaces hold vectors of this dimension: their
    // nearer records took the shared index's candidates. Once more, as deep, with the space filtered inside the
    // scan. (One space alone can also come short, by dead index entries of updated rows: no second pass then.)
    if (vector && !spaceInScan && dense.length < Math.min(k, active) && (await otherSpacesHaveVectors(team, vector.length))) {
      spaceInScan = true;
      continue;
    }
    const fused = fuseRankings(dense, keyword, { limit: want });
    const hits = fused.map((h) => {
      const group = [...members.get(h.key)!.values()];
      const representative = group.reduce((best, r) => (betterMember(r, best) ? r : best));
      const hit: TeamSearchHit = { ...h, key: representative.id, record: rowToRecord(representative) };
      // The program was a dense candidate: the representative's own cosine (a copy's question may differ from the best-ranked one's).
      if (h.denseScore !== undefined && representative.sim !== null) hit.denseScore = Number(representative.sim);
      if (group.length > 1) hit.identical = group.length - 1;
      return { rid: Number(representative.rid), score: h.score, question: representative.question, code: representative.code, hit };
    });
    const ordered = rerank && (await prepared) ? rerank.order(query, hits) : hits;
    return ordered.slice(0, k).map((c) => c.hit);
  }
}

/**
 * The best `k` hits that `keep` accepts (records that worked, a language): searched 4·k deep, then 4× deeper
 * while fewer than k are kept and the search could give more (at most {@link MAX_SIDE_DEPTH} deep) — so a
 * space whose nearest records all failed still returns the ones that worked, as the personal retriever does.
 */
export async function searchTeamKept(team: TeamMemoryStore, query: string, vector: Float32Array | null, k: number, keep: (hit: TeamSearchHit) => boolean, options: TeamSearchOptions = {}): Promise<TeamSearchHit[]> {
  if (k <= 0) return [];
  for (let fetch = Math.min(MAX_SIDE_DEPTH, k * 4); ; fetch = Math.min(MAX_SIDE_DEPTH, fetch * 4)) {
    const hits = await searchTeam(team, query, vector, fetch, options);
    const kept = hits.filter(keep);
    if (kept.length >= k || hits.length < fetch || fetch >= MAX_SIDE_DEPTH) return kept.slice(0, k);
  }
}

/** The plan of the statement `searchTeam`'s first pass runs for `query` (`spaceInScan`: the crowded pass), for EXPLAIN in tests and the design note. */
export async function explainSearch(c: ClientBase, space: string, query: string, vector: Float32Array | null, analyze = false, spaceInScan = false): Promise<string[]> {
  const r = await c.query<{ p: string }>('SELECT agent_memory_search_plan($1, $2, $3::vector, $4, $5, $6, $7, $8::int[], $9) AS p', [...searchArguments(space, query, vector, SIDE_DEPTH, spaceInScan), analyze]);
  return r.rows.map((row) => row.p);
}
