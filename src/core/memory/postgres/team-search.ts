/**
 * Hybrid retrieval on the team server: pgvector cosine distance (HNSW index per embedding
 * dimension, see ensureDenseIndex) and a keyword side, fused in process with the same
 * reciprocal-rank fusion as the personal memory (../fusion.ts). Only active records are
 * retrievable.
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
   * while its first read of the space is not complete). Default: none.
   */
  rerank?: TeamShapes;
}

/** A candidate of one side with its record's columns. */
/** `sim`: the record's own cosine to the query vector (null without one, or for another dimension). */
type CandidateRow = RecordRow & { side: 'd' | 'k'; score: number; pos: string; sim: number | null };
const RECORD_COLUMNS = TEAM_RECORD_COLUMNS.split(',').map((c) => `r.${c.trim()}`).join(', ');

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
/** Most query terms ranked with (a long prompt keeps its rarest ones). */
const MAX_TERMS = 64;
/** Longest query text sent to the server's parser. */
const MAX_QUERY_CHARS = 4000;

/** A lexeme that can be written as a tsquery operand without escaping (letters, digits, underscore). */
const PLAIN_TERM = /^[\p{L}\p{N}_]+$/u;

/** Lower-case word terms of `text` (letters and digits only: nothing of the input reaches the query syntax). */
export function keywordTerms(text: string, max = 32): string[] {
  const terms = text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
  return [...new Set(terms.filter((t) => t.length > 1))].slice(0, max);
}

export interface TermFrequency {
  term: string;
  df: number;
}

/** What the keyword side asks the server: the tsqueries of its candidate parts and the weights it ranks with. */
export interface KeywordPlan {
  /** OR of the rarest terms whose postings together stay within the cap ('' when even the rarest term's do not). */
  rare: string;
  /** When `rare` is '': AND of every term held by at most half of the records (of every term, when none is), cut at COMMON_CANDIDATES. */
  common: string;
  /** When `rare` is '' and the AND has several terms: the rarest term alone (cut at COMMON_CANDIDATES), so a common-words-only query still answers. */
  fallback: string;
  /** Every present term, quoted, with its BM25 IDF. */
  terms: string[];
  idf: number[];
  /** OR of every present term (ts_rank tie-break). */
  all: string;
}

const quote = (term: string): string => `'${term}'`;

/**
 * The candidate parts for terms with their document frequencies among `active` records.
 * Pure: unit-testable without a server.
 */
export function planKeywordSearch(frequencies: TermFrequency[], active: number, cap = KEYWORD_CANDIDATES): KeywordPlan | undefined {
  const present = frequencies
    .filter((f) => f.df > 0 && PLAIN_TERM.test(f.term))
    .sort((a, b) => a.df - b.df || (a.term < b.term ? -1 : 1))
    .slice(0, MAX_TERMS);
  if (present.length === 0) return undefined;
  const rare: TermFrequency[] = [];
  let sum = 0;
  for (const f of present) {
    if (sum + f.df > cap) break;
    rare.push(f);
    sum += f.df;
  }
  const n = Math.max(active, present[present.length - 1].df);
  // In the AND, words in more than half of the records (near stop words, IDF < ln 2) only cost GIN work.
  const selective = present.filter((f) => f.df <= n / 2);
  const all = selective.length > 0 ? selective : present;
  return {
    rare: rare.map((f) => quote(f.term)).join(' | '),
    common: rare.length === 0 ? all.map((f) => quote(f.term)).join(' & ') : '',
    fallback: rare.length === 0 && all.length > 1 ? quote(present[0].term) : '',
    terms: present.map((f) => quote(f.term)),
    idf: present.map((f) => Math.log(1 + (n - f.df + 0.5) / (f.df + 0.5))),
    all: present.map((f) => quote(f.term)).join(' | '),
  };
}

/** Document frequencies of the query's terms in the space (the server's parser, so terms match the stored tsvector) and the active count. */
async function termFrequencies(c: ClientBase, space: string, query: string): Promise<{ frequencies: TermFrequency[]; active: number }> {
  const r = await c.query<{ term: string; df: number }>(
    `SELECT t.term, coalesce(s.df, 0)::float8 AS df
       FROM unnest(tsvector_to_array(to_tsvector('simple', $2))) t(term)
       LEFT JOIN term_stats s ON s.space = $1 AND s.term = t.term
     UNION ALL SELECT '', coalesce((SELECT df FROM term_stats WHERE space = $1 AND term = ''), 0)::float8`,
    [space, query.slice(0, MAX_QUERY_CHARS)],
  );
  const active = Number(r.rows.find((row) => row.term === '')?.df ?? 0);
  return { frequencies: r.rows.filter((row) => row.term !== '').map((row) => ({ term: row.term, df: Number(row.df) })), active };
}

/**
 * The one statement of a search: dense top-k and keyword top-k, UNION ALL. Neither side
 * lets the planner use the (space, status, …) btree, which it prefers when the table has no
 * statistics yet (right after a bulk load) and which then reads every row of the space:
 * the keyword side filters `space || ''`, the dense side filters the space after the HNSW scan.
 * Except where reading every row of the space is what is wanted: the keyword side of a space of at most
 * SMALL_SPACE_ROWS records, and the dense side of the crowded pass (`spaceInScan`).
 */
function searchStatement(dim: number, withDense: boolean, plan: KeywordPlan | undefined, depth = SIDE_DEPTH, spaceInScan = false, smallSpace = false): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const p = (value: unknown): string => {
    params.push(value);
    return `$${params.length}`;
  };
  const space = p(undefined); // filled by the caller
  const parts: string[] = [];
  let sim = 'NULL::float8';
  if (withDense) {
    const v = p(undefined);
    sim = `CASE WHEN r.embedding_dim = ${dim} THEN 1 - (r.embedding::vector(${dim}) <=> ${v}::vector) END`;
    const cast = `embedding::vector(${dim})`;
    // The space is filtered after the HNSW scan, as pgvector does anyway (an HNSW scan yields hnsw.ef_search = 40
    // candidates, then filters): written so, no estimate of the space filter can talk the planner out of the index.
    // `spaceInScan` (a pass with pgvector's iterative scans: see `candidates`): the space is filtered in the scan,
    // so other spaces' nearer records cannot take every one of its candidates. Written plainly, so the planner
    // weighs the space's share of the records: a large space is read through the HNSW index (scanning on until
    // it has `depth` rows of the space), a small one through the (space, status, …) btree and an exact sort.
    const inScan = spaceInScan ? ` AND space = ${space}` : '';
    parts.push(`(SELECT 'd' AS side, rid, score, row_number() OVER (ORDER BY score DESC, rid) AS pos FROM (
        SELECT space, rid, 1 - (${cast} <=> ${v}::vector) AS score FROM records
        WHERE status = 'active' AND embedding_dim = ${dim}${inScan} ORDER BY ${cast} <=> ${v}::vector LIMIT ${spaceInScan ? depth : hnswCandidates(depth)}) n
      WHERE space = ${space} ORDER BY score DESC, rid LIMIT ${depth})`);
  }
  if (plan) {
    // The GIN index holds the postings of every space: a word rare in this space but common in another would have
    // it read (and drop) the other space's rows. A small space is read whole instead, through its btree: `space = $1`
    // written plainly (at most SMALL_SPACE_ROWS rows whatever the other spaces hold). A larger one keeps the GIN path.
    const candidates = [
      [plan.rare, KEYWORD_CANDIDATES],
      [plan.common, COMMON_CANDIDATES],
      [plan.fallback, COMMON_CANDIDATES],
    ]
      .filter(([q]) => q !== '')
      // Through the owner's function (migration 5): under row-level security a member's '@@' could not use the GIN index.
      .map(([q, limit]) => `(SELECT rid, tsv FROM agent_memory_keyword_candidates(${space}, ${p(q)}::tsquery, ${limit}, ${smallSpace}))`);
    const terms = p(plan.terms);
    const idf = p(plan.idf);
    const all = p(plan.all);
    parts.push(`(SELECT 'k' AS side, rid, score, row_number() OVER (ORDER BY score DESC, tie DESC, rid) AS pos FROM (
        SELECT c.rid, (SELECT coalesce(sum(w.idf), 0) FROM unnest(${terms}::text[], ${idf}::float8[]) w(term, idf) WHERE c.tsv @@ w.term::tsquery) AS score,
               ts_rank(c.tsv, ${all}::tsquery) AS tie
        FROM (SELECT DISTINCT ON (rid) rid, tsv FROM (${candidates.join(' UNION ALL ')}) u) c) k
      ORDER BY score DESC, tie DESC, rid LIMIT ${depth})`);
  }
  // The candidates' records come with them: fusion picks among them without another round trip.
  const sql = parts.length === 0 ? '' : `SELECT s.side, s.score, s.pos, ${sim} AS sim, ${RECORD_COLUMNS} FROM (${parts.join(' UNION ALL ')}) s JOIN records r ON r.rid = s.rid WHERE NOT r.stale`;
  return { sql, params };
}

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
    const { frequencies, active } = await termFrequencies(c, team.space, query);
    const plan = planKeywordSearch(frequencies, active);
    const statement = searchStatement(dim, dim > 0, plan, depth, spaceInScan && dim > 0, active <= SMALL_SPACE_ROWS);
    if (statement.sql === '') return { rows: [], active };
    statement.params[0] = team.space;
    if (dim > 0) statement.params[1] = vectorLiteral(vector!);
    if (deep && dim > 0) {
      const iterative = spaceInScan && (await hasIterativeScans(team, c));
      await c.query(
        `SELECT set_config('hnsw.ef_search', $1, true)${iterative ? ", set_config('hnsw.iterative_scan', 'relaxed_order', true)" : ''}`,
        [String(Math.min(1000, hnswCandidates(depth)))],
      );
    }
    return { rows: (await c.query<CandidateRow>(statement.sql, statement.params)).rows, active };
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
  // A re-ranked search fuses the best RERANK_DEPTH and re-orders them (as hybrid-search.ts does).
  const want = options.rerank ? Math.max(k, RERANK_DEPTH) : k;
  // The re-ranking's catch-up runs beside the search's own read (prepare never rejects).
  const prepared = options.rerank?.prepare();
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
    const ordered = options.rerank && (await prepared) ? options.rerank.order(query, hits) : hits;
    return ordered.slice(0, k).map((c) => c.hit);
  }
}

/** The statement `searchTeam` runs for `query` (for EXPLAIN in tests and the design note). */
export async function explainSearch(c: ClientBase, space: string, query: string, vector: Float32Array | null, analyze = false, spaceInScan = false): Promise<string[]> {
  const dim = vector?.length ?? 0;
  const { frequencies, active } = await termFrequencies(c, space, query);
  const statement = searchStatement(dim, dim > 0, planKeywordSearch(frequencies, active), SIDE_DEPTH, spaceInScan, active <= SMALL_SPACE_ROWS);
  statement.params[0] = space;
  if (dim > 0) statement.params[1] = vectorLiteral(vector!);
  const r = await c.query<{ 'QUERY PLAN': string }>(`EXPLAIN (${analyze ? 'ANALYZE, ' : ''}COSTS OFF) ${statement.sql}`, statement.params);
  // The keyword candidates run inside the owner's function (migration 5): their plans follow the statement's.
  const inner: string[] = [];
  for (const call of statement.sql.matchAll(/agent_memory_keyword_candidates\(\$1, \$(\d+)::tsquery, (\d+), (true|false)\)/g)) {
    const plan = await c.query<{ p: string }>('SELECT agent_memory_keyword_plan($1, $2::tsquery, $3, $4, $5) AS p', [space, statement.params[Number(call[1]) - 1], Number(call[2]), call[3] === 'true', analyze]);
    inner.push(`Keyword candidates (agent_memory_keyword_candidates):`, ...plan.rows.map((row) => `  ${row.p}`));
  }
  return [...r.rows.map((row) => row['QUERY PLAN']), ...inner];
}
