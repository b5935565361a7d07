import * as fs from 'node:fs';
import { errorMessage } from '../../errors';
import { Logger, nullLogger, tagged } from '../../logger';
import type { Database } from '../sqlite/database';
import { KeywordScorer, TERM_CACHE_BYTES_PER_POSTING, TermCacheStats } from './keyword-scorer';
import { RecordChangeLog } from '../sqlite/record-changes';
import type { IndexedText, MemoryStore } from '../sqlite/store';
import { Doc, SCORER_OPTIONS } from './keyword-documents';
import { ENGINE_FILE_SUFFIX, KeywordEngine, KeywordEngineKind, loadEngine, newEngine } from './keyword-engine';
import { WarmProgress } from './keyword-terms';

/** Default delay before a changed index is written to disk. */
/** Records read per query when the index is rebuilt. */
const REBUILD_PAGE_ROWS = 2_000;

export const DEFAULT_PERSIST_DEBOUNCE_MS = 10_000;
/**
 * Posting-list budget of one query: query terms are taken rarest first until
 * the summed document frequency would pass this. Frequent terms carry little
 * BM25 weight (idf → 0) but dominate the cost, so a query over 100k templated
 * questions stays around a millisecond. Small memories never hit the budget.
 */
export const DEFAULT_MAX_POSTINGS = 5_000;
/**
 * Fewest documents (over all fields) of a term `warmStep` caches: a rarer
 * term costs a few tens of microseconds to search when a query needs it.
 */
export const WARM_MIN_DF = 20;
/** The default engine's index file beside the database. */
export const KEYWORD_FILE_SUFFIX = ENGINE_FILE_SUFFIX.compact;

export interface KeywordHit {
  rid: number;
  /** BM25 score (MiniSearch). */
  score: number;
}

export interface KeywordIndexOptions {
  /**
   * What holds the postings (keyword-engine.ts): 'compact' (default: typed arrays, `<database>.keywords.bin`) or
   * 'minisearch' (MiniSearch itself, `<database>.minisearch.json`: the reference the compact engine is tested against).
   */
  engine?: KeywordEngineKind;
  /** Where to persist; default `<database>` + the engine's suffix (ENGINE_FILE_SUFFIX), in memory only for ':memory:'. `null` disables persistence. */
  file?: string | null;
  logger?: Logger;
  persistDebounceMs?: number;
  maxPostings?: number;
  /** Budget of the cached per-term results, in postings (default DEFAULT_TERM_CACHE_POSTINGS). */
  termCachePostings?: number;
  /** The same budget in bytes (TERM_CACHE_BYTES_PER_POSTING each; a memory budget's share); wins over termCachePostings. */
  termCacheBytes?: number;
  /** Fewest postings of a one-term query answered in one pass (default ONE_TERM_TOP_MIN_POSTINGS; benchmarks compare). */
  oneTermTopMinPostings?: number;
  /**
   * MiniSearch engine: remove a leaving record at once when its indexed text is known (default true); false: discard
   * it and vacuum, as before (the reference the tests compare the fast path with; same results).
   */
  removeLeaving?: boolean;
}

/** How the index was obtained at open. */
export type KeywordIndexOrigin = 'memory' | 'loaded' | 'rebuilt:missing' | 'rebuilt:stale' | 'rebuilt:corrupt';

/**
 * BM25 keyword index (MiniSearch 7.1's BM25+; the postings held by an engine,
 * keyword-engine.ts: compact typed arrays by default, or MiniSearch) over the ACTIVE
 * records (question + code identifiers; document id = record rowid). Before a
 * query it catches up on the records changed since the last one, by this or
 * any other process (the `record_changes` log). It is persisted atomically
 * beside the database with the change seq it reflects, so a reopened index
 * loads the file and catches up on what other processes wrote meanwhile; it
 * is rebuilt when the file is missing, corrupt or older than the log reaches.
 *
 * The engine keeps the live document frequency per term and field, to pick the
 * rarest query terms within a postings budget (TermSelection, keyword-terms.ts:
 * the first stage of a query).
 * Its owner may fill the per-term result cache ahead of queries with
 * `warmStep` (KeywordWarmer runs it in the background).
 *
 * @example
 * const keywords = KeywordIndex.open(store, { logger });
 * keywords.search('how many patients were admitted', 10); // [{ rid, score }]
 * keywords.close(); // writes the index file
 */
/** The term cache budget in postings: from bytes when given, else as given (undefined: the scorer's default). */
function termCacheBudget(options: KeywordIndexOptions): number | undefined {
  return options.termCacheBytes === undefined ? options.termCachePostings : Math.floor(options.termCacheBytes / TERM_CACHE_BYTES_PER_POSTING);
}

/** The MiniSearch file an earlier version wrote beside the database (tens of MB at 100k records): the compact engine does not read it. */
function removeFormerFile(file: string, logger: Logger): void {
  try {
    if (!fs.existsSync(file)) return;
    fs.rmSync(file, { force: true });
    logger.info(`removed the former keyword index file ${file} (the compact index replaces it)`);
  } catch (error) {
    logger.warn(`cannot remove the former keyword index file ${file}: ${errorMessage(error)}`);
  }
}

export class KeywordIndex {
  private engine: KeywordEngine;
  /** Answers queries from the engine's per-term results (see KeywordScorer); told of every change below. */
  private readonly scorer: KeywordScorer;
  private readonly kind: KeywordEngineKind;
  private seq = 0;
  /** Changes applied so far (see `version`). */
  private changes = 0;
  /** How far warming got over the current index (null: not started). */
  private warming: WarmProgress | null = null;
  private dirty = false;
  private timer: NodeJS.Timeout | null = null;
  private readonly log: RecordChangeLog;
  private readonly changedStmt;
  private readonly textStmt;
  private readonly logger: Logger;
  private readonly file: string | null;
  private readonly debounceMs: number;
  private readonly maxPostings: number;
  private readonly removeLeaving: boolean;
  /** Leaving records removed at once (their indexed text known), and discarded, since open (diagnostics, tests). */
  readonly left = { removed: 0, discarded: 0 };
  origin: KeywordIndexOrigin = 'memory';

  private constructor(private readonly db: Database, options: KeywordIndexOptions, logger: Logger) {
    this.logger = tagged(logger, 'keywords');
    this.kind = options.engine ?? 'compact';
    const dbFile = db.memory ? null : db.name;
    this.file = options.file === undefined ? (dbFile ? dbFile + ENGINE_FILE_SUFFIX[this.kind] : null) : options.file;
    this.debounceMs = options.persistDebounceMs ?? DEFAULT_PERSIST_DEBOUNCE_MS;
    this.maxPostings = options.maxPostings ?? DEFAULT_MAX_POSTINGS;
    this.removeLeaving = options.removeLeaving ?? true;
    this.engine = newEngine(this.kind, this.removeLeaving);
    this.scorer = new KeywordScorer(this.engine.scorerIndex, { ...SCORER_OPTIONS, maxCachedPostings: termCacheBudget(options), oneTermTopMinPostings: options.oneTermTopMinPostings });
    this.log = new RecordChangeLog(db);
    this.changedStmt = db.prepare("SELECT rid, id, question, code FROM records WHERE rid IN (SELECT value FROM json_each(?)) AND status = 'active'");
    this.textStmt = db.prepare('SELECT question, code FROM records WHERE rid = ?');
  }

  /** Loads the persisted index and catches it up with the database, or rebuilds it. */
  static open(store: MemoryStore, options: KeywordIndexOptions = {}): KeywordIndex {
    return KeywordIndex.openDatabase(store.connectionForQueries(), options, options.logger ?? store.log ?? nullLogger);
  }

  /** As `open`, on a bare connection (the keyword worker has no store). */
  static openDatabase(db: Database, options: KeywordIndexOptions, logger: Logger = nullLogger): KeywordIndex {
    const index = new KeywordIndex(db, options, logger);
    if (index.kind === 'compact' && !db.memory && options.file === undefined) removeFormerFile(db.name + ENGINE_FILE_SUFFIX.minisearch, index.logger);
    index.origin = index.file ? index.load(index.file) : 'memory';
    if (index.origin !== 'loaded') index.rebuild();
    if (index.file && index.origin !== 'loaded') index.persist();
    return index;
  }

  /** Number of indexed (active) records. */
  get size(): number {
    this.catchUp();
    return this.engine.documentCount;
  }

  get persistFile(): string | null {
    return this.file;
  }

  /** The engine holding the postings. */
  get engineKind(): KeywordEngineKind {
    return this.kind;
  }

  /**
   * Best `limit` active records for `text` by BM25 (MiniSearch's OR search: no
   * fuzzy or prefix matching, field boosts), with the query terms taken rarest
   * first within the postings budget.
   */
  search(text: string, limit: number): KeywordHit[] {
    const terms = this.queryTerms(text, limit);
    if (terms.length === 0) return [];
    // Discarded postings not yet vacuumed make MiniSearch's own scores drift from call to call: answer as it does then.
    if (this.engine.settling) return this.engine.direct(terms, limit);
    return this.scorer.search(terms, limit, this.engine.terms.perField);
  }

  /**
   * `search` with the query scored whole, without the scorer: through one MiniSearch `search` call (MiniSearch
   * engine) or every posting of the query's terms (compact engine). The reference the scorer reproduces (tests, benchmarks).
   */
  searchDirect(text: string, limit: number): KeywordHit[] {
    const terms = this.queryTerms(text, limit);
    return terms.length === 0 ? [] : this.engine.direct(terms, limit);
  }

  /** Caught up with the database, the query's index terms (none when `limit` asks for nothing). */
  private queryTerms(text: string, limit: number): string[] {
    this.catchUp();
    return limit <= 0 ? [] : this.engine.terms.select(text, this.maxPostings);
  }

  /**
   * Number of changes applied to the index so far (records caught up on, a
   * rebuild, a load); each drops the cached term results and restarts
   * warming. Read as is: it does not catch up.
   */
  get version(): number {
    return this.changes;
  }

  /** Sizes of the scorer's term cache (as is: no catch-up). */
  get cacheStats(): TermCacheStats {
    return this.scorer.cacheStats;
  }

  /**
   * One step, of about `sliceMs`, of filling the scorer's cache in the
   * background: caught up with the database, it lists the terms a query can
   * select (WARM_MIN_DF to `maxPostings` documents over all fields), then
   * caches their full results, the most frequent (the costliest to search)
   * first, skipping terms already cached and leaving out those that would
   * overflow the cache budget. The step ends at the first piece of a term
   * (KeywordScorer.warm) done after `sliceMs`, and does at least one. True
   * while more is left; a change of the index starts over. Queries answer
   * the same whether or not their terms were warmed.
   */
  warmStep(sliceMs: number): boolean {
    const deadline = performance.now() + sliceMs;
    this.catchUp();
    // Discarded postings still settling (see MiniSearchEngine.settle) make MiniSearch's scores drift: warm once they are gone.
    if (this.engine.settling) return true;
    const terms = this.engine.terms;
    const w = (this.warming ??= terms.startWarming());
    if (w.keys && !terms.listWarmTerms(w, { minDf: WARM_MIN_DF, maxDf: this.maxPostings, budget: this.scorer.cacheBudget }, deadline)) return true;
    while (w.next < w.list.length) {
      if (!this.scorer.warm(w.list[w.next], terms.perField, deadline)) return true;
      w.next++;
      if (performance.now() >= deadline) break;
    }
    return w.next < w.list.length;
  }

  /** Number of postings (documents per field) of an index term. */
  documentFrequency(term: string): number {
    this.catchUp();
    return this.engine.terms.total(term);
  }

  /** Writes the file now when it changed. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.dirty && this.file) this.persist();
    this.dirty = false;
  }

  /** Flushes pending writes. */
  close(): void {
    this.flush();
  }

  /** Rebuilds the whole index from the active records in the database. */
  rebuild(): void {
    const started = Date.now();
    this.replaceEngine(newEngine(this.kind, this.removeLeaving));
    this.seq = this.log.head();
    // In pieces: each read is a short native call, so a worker building the index can be stopped between them at once.
    const page = this.db.prepare("SELECT rid, id, question, code FROM records WHERE status = 'active' AND rid > ? ORDER BY rid LIMIT ?");
    for (let after = 0; ; ) {
      const rows = page.all(after, REBUILD_PAGE_ROWS) as IndexedText[];
      if (rows.length === 0) break;
      this.addDocs(rows);
      this.engine.settle(() => undefined);
      after = rows[rows.length - 1].rid;
    }
    this.dirty = true;
    this.logger.info(`rebuilt keyword index: ${this.engine.documentCount} active records in ${Date.now() - started} ms`);
  }

  // ---------------------------------------------------------------- internals

  /** A new or loaded engine: the scorer reads it from now on. */
  private replaceEngine(engine: KeywordEngine): void {
    this.engine = engine;
    this.scorer.reset(engine.scorerIndex);
    this.changed();
  }

  /** The index changed: cached results are stale (the scorer drops them), warming starts over. */
  private changed(): void {
    this.changes++;
    this.warming = null;
  }

  /** Applies the changes other connections (and this one) committed since the last query. */
  private catchUp(): void {
    const changes = this.log.since(this.seq);
    if ('reload' in changes) {
      this.logger.info(`the change log no longer reaches change ${this.seq}; rebuilding`);
      this.rebuild();
      this.schedulePersist();
      return;
    }
    if (changes.rids.length === 0) return;
    this.seq = changes.head;
    this.apply(changes.rids);
    this.schedulePersist();
  }

  private apply(rids: number[]): void {
    const gone = rids.filter((rid) => this.engine.has(rid));
    // In order, each one removed (its indexed text known) or discarded: the same field-length updates either way.
    for (const rid of gone) this.left[this.engine.leave(rid, this.textOf(rid))]++;
    this.scorer.discarded(gone);
    this.addDocs(this.changedStmt.all(JSON.stringify(rids)) as IndexedText[]);
    this.settle();
    this.changed();
    this.dirty = true;
  }

  /** Lets the engine settle a batch of changes (MiniSearch: vacuum; compact: compaction when due); rebuilds if that fails. */
  private settle(): void {
    this.engine.settle((error: unknown) => {
      this.logger.warn(`keyword index vacuum failed: ${errorMessage(error)}; rebuilding`);
      this.rebuild();
    });
  }

  /** The indexed text of a record as it still is in the database (for frequency bookkeeping). */
  private textOf(rid: number): Doc | null {
    const row = this.textStmt.get(rid) as { question: string; code: string } | undefined;
    return row ? { id: rid, question: row.question, code: row.code } : null;
  }

  private schedulePersist(): void {
    if (!this.file || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      try {
        this.flush();
      } catch (error) {
        this.logger.warn(`could not persist the keyword index: ${errorMessage(error)}`);
      }
    }, this.debounceMs);
    this.timer.unref();
  }

  private addDocs(records: IndexedText[]): void {
    const docs = records.map((r) => ({ id: r.rid, question: r.question, code: r.code }));
    this.engine.add(docs);
    this.scorer.added(docs.map((d) => d.id));
  }

  private load(file: string): KeywordIndexOrigin {
    const read = loadEngine(this.kind, file, this.logger, this.removeLeaving);
    if (read.origin !== 'loaded') return read.origin;
    const changes = this.log.since(read.seq);
    if (read.seq > this.log.head() || 'reload' in changes) {
      this.logger.info(`keyword index ${file} is stale (change ${read.seq}, the database is at ${changes.head} and its log does not reach back); rebuilding`);
      return 'rebuilt:stale';
    }
    this.replaceEngine(read.engine);
    this.settle();
    this.seq = read.seq;
    if (changes.rids.length > 0) {
      this.logger.info(`keyword index ${file} is behind (change ${read.seq} → ${changes.head}); catching up on ${changes.rids.length} records`);
      this.seq = changes.head;
      this.apply(changes.rids);
    }
    return 'loaded';
  }

  private persist(): void {
    if (!this.file) return;
    try {
      this.engine.write(this.file, this.seq);
    } catch (error) {
      // The file is a cache of the database: failing to write it (disk full) loses nothing; the next open rebuilds.
      this.logger.warn(`could not write the keyword index file ${this.file} (${errorMessage(error)}); it will be rebuilt at the next open`);
    }
    this.dirty = false;
  }
}
