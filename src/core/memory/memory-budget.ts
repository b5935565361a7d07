/**
 * The memory budget of an open memory (`agentMemory.memoryBudgetMB`, the MCP server's
 * `--memory-budget-mb`, MEMORY_BUDGET_ENV): the one definition of how its bytes are split
 * between the caches a search fills. Everything in a share is a cache of the database file:
 * beyond its share a search reads what it needs from SQLite (same results, a little slower).
 *
 * - vector copies (VectorCopies: float16 while the share holds every record's, else int8):
 *   the dense side's rescoring;
 *   candidates beyond the cap are read exactly from `records.embedding` (dense-rescore.ts);
 * - keyword caches: the keyword side's cached per-term results (KeywordScorer, filled ahead of
 *   queries by KeywordWarmer), handed to it in postings (KEYWORD_CACHE_BYTES_PER_POSTING);
 * - SQLite's page cache (`cache_size`), per connection: the store's and the keyword worker's
 *   (the worker opens its connection with the default budget's share until the keyword side
 *   is handed the budget);
 * - SQLite's memory-mapped I/O (`mmap_size`), per connection: file pages the OS may drop
 *   under pressure instead of anonymous memory.
 *
 * Not in the budget (held whatever its size): the binary codes of the dense candidate scan
 * (dim/8 bytes per active record: 4.8 MB at 100k × 384; every record must be scanned), the
 * keyword index itself, the re-ranking's question shapes, and the runtime.
 *
 * @example
 * const budget = memoryBudget(160);
 * budget.vectorCopyBytes;   // 80 MB: float16 copies of 103k records at 384 dimensions, int8 of 200k (the default, 80: 51k / 100k)
 * budget.sqlitePageCacheKiB; // per connection, for `PRAGMA cache_size = -N`
 */
import { z } from 'zod';
import { AgentMemoryError } from '../errors';
import { TERM_CACHE_BYTES_PER_POSTING } from './keyword/keyword-scorer';
import { VECTOR_COPY_CHOICES, type VectorCopyChoice } from './dense/vector-copy-choice';

/**
 * Default budget (MB), sized so a 100k-record memory stays within 400 MB of steady RSS (issue 37;
 * `npm run bench:coldstart -- --n 100000 --new-only --memory-budget-mb N`, 28 Nov, load 1–1.5: 80 →
 * 388.5 MB, 90 → 397.6, 100 → 403.4, 160 → 442.9) with float16 copies of ~51k records at 384
 * dimensions; hybrid p50 at 100k was then 2.41 ms against 1.92 ms at 160 (`npm run bench:retrieval --
 * --sizes 100000 --keywords worker --memory-budget-mb N`, same window). Since the copies' form is
 * chosen by size (copiesFor), the same 40 MB share holds int8 copies of all 100k: a top-32 dense
 * search reads 14.0 exact vectors from SQLite instead of 58.6 (float16 at 80) and 5.5 (float16 at
 * 160), the same rankings (300 queries, 28 Nov, a loaded machine); steady RSS 399.6 MB int8 against
 * 395.7 float16 at 80, medians of 3 (`npm run bench:coldstart -- --n 100000 --runs 3 --new-only
 * --vector-copies int8|float16`, on the bench:retrieval memory, load 13–17: to be re-run quiet).
 */
export const DEFAULT_MEMORY_BUDGET_MB = 80;
export const MIN_MEMORY_BUDGET_MB = 16;
export const MAX_MEMORY_BUDGET_MB = 65_536;
export const MemoryBudgetMBSchema = z.number().int().min(MIN_MEMORY_BUDGET_MB).max(MAX_MEMORY_BUDGET_MB);

/** The form of the vector copies by default: float16 while the share holds every record's, else int8 (copiesFor). */
export const DEFAULT_VECTOR_COPY_FORM: VectorCopyChoice = 'auto';
export const VectorCopyFormSchema = z.enum(VECTOR_COPY_CHOICES);

/** The environment variable a CLI or MCP process reads when no `--memory-budget-mb` is given. */
export const MEMORY_BUDGET_ENV = 'AGENT_MEMORY_BUDGET_MB';

/** SQLite connections of an open memory that searches: the store's and the keyword worker's. */
export const SQLITE_CONNECTIONS = 2;

/** Bytes of one cached keyword posting (defined by the keyword scorer, which holds them). */
export const KEYWORD_CACHE_BYTES_PER_POSTING = TERM_CACHE_BYTES_PER_POSTING;

/** The fraction of the budget each share takes (sums to 1). */
export const BUDGET_SHARES = {
  vectorCopies: 0.5,
  keywordCaches: 0.2,
  /** Split evenly between the SQLITE_CONNECTIONS connections. */
  sqlitePageCache: 0.15,
  /** Split evenly between the SQLITE_CONNECTIONS connections. */
  sqliteMmap: 0.15,
} as const;

export interface MemoryBudget {
  /** The whole budget, in MB (10^6 bytes) as configured. */
  readonly megabytes: number;
  /** Cap of the vector copies, in bytes. */
  readonly vectorCopyBytes: number;
  /** The form of the vector copies (DEFAULT_VECTOR_COPY_FORM unless asked; 'auto': see copiesFor). */
  readonly vectorCopyForm: VectorCopyChoice;
  /** Cap of the keyword side's caches, in bytes. */
  readonly keywordCacheBytes: number;
  /** SQLite page cache of each connection, in KiB (`PRAGMA cache_size = -N`). */
  readonly sqlitePageCacheKiB: number;
  /** SQLite memory-mapped I/O of each connection, in bytes (`PRAGMA mmap_size = N`). */
  readonly sqliteMmapBytes: number;
}

/**
 * The split of a budget of `megabytes` MB (default DEFAULT_MEMORY_BUDGET_MB). Throws INVALID_INPUT
 * naming the bounds for a budget outside MIN_MEMORY_BUDGET_MB … MAX_MEMORY_BUDGET_MB.
 */
export function memoryBudget(megabytes: number = DEFAULT_MEMORY_BUDGET_MB, vectorCopyForm: VectorCopyChoice = DEFAULT_VECTOR_COPY_FORM): MemoryBudget {
  const mb = checkedMegabytes(megabytes, `${megabytes} MB`);
  const bytes = mb * 1e6;
  return {
    megabytes: mb,
    vectorCopyBytes: Math.floor(bytes * BUDGET_SHARES.vectorCopies),
    vectorCopyForm,
    keywordCacheBytes: Math.floor(bytes * BUDGET_SHARES.keywordCaches),
    sqlitePageCacheKiB: Math.floor((bytes * BUDGET_SHARES.sqlitePageCache) / SQLITE_CONNECTIONS / 1024),
    sqliteMmapBytes: Math.floor((bytes * BUDGET_SHARES.sqliteMmap) / SQLITE_CONNECTIONS),
  };
}

/** The keyword caches' share as the keyword side's budget in postings (KeywordIndexOptions.termCachePostings). */
export function keywordCachePostings(budget: MemoryBudget): number {
  return Math.floor(budget.keywordCacheBytes / KEYWORD_CACHE_BYTES_PER_POSTING);
}

/**
 * The budget a CLI or MCP process uses: `flag` MB when given, else MEMORY_BUDGET_ENV when set,
 * else the default. A value that is not a whole number of MB within the bounds throws INVALID_INPUT
 * naming where it came from.
 */
export function budgetFromCommandLine(flag: number | undefined, env: NodeJS.ProcessEnv = process.env): MemoryBudget {
  if (flag !== undefined) return memoryBudget(checkedMegabytes(flag, `--memory-budget-mb ${flag}`));
  const raw = env[MEMORY_BUDGET_ENV];
  if (raw === undefined || raw.trim() === '') return memoryBudget();
  return memoryBudget(checkedMegabytes(Number(raw), `${MEMORY_BUDGET_ENV}=${raw}`));
}

function checkedMegabytes(value: number, what: string): number {
  const parsed = MemoryBudgetMBSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new AgentMemoryError(
    'INVALID_INPUT',
    `${what} is not a memory budget: give a whole number of MB from ${MIN_MEMORY_BUDGET_MB} to ${MAX_MEMORY_BUDGET_MB} (default ${DEFAULT_MEMORY_BUDGET_MB}).`,
  );
}
