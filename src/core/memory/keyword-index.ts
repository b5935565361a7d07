import MiniSearch from 'minisearch';
import { errorMessage } from '../errors';
import { Disposable } from '../events';
import { Logger, nullLogger, tagged } from '../logger';
import type { IndexedText, MemoryStore } from './store';
import { readIndexFile, writeIndexFile } from './keyword-index-file';
import { stem, tokenizeForKeywords } from './text-processing';

/** Default delay before a changed index is written to disk. */
export const DEFAULT_PERSIST_DEBOUNCE_MS = 10_000;
/**
 * Posting-list budget of one query: query terms are taken rarest first until
 * the summed document frequency would pass this. Frequent terms carry little
 * BM25 weight (idf → 0) but dominate the cost, so a query over 100k templated
 * questions stays around a millisecond. Small memories never hit the budget.
 */
export const DEFAULT_MAX_POSTINGS = 5_000;
/** BM25 parameters (MiniSearch's defaults). */
const BM25 = { k: 1.2, b: 0.7, d: 0.5 };
const FIELD_BOOST: Record<string, number> = { question: 1, code: 0.5 };
export const KEYWORD_FILE_SUFFIX = '.minisearch.json';

export interface KeywordHit {
  rid: number;
  /** BM25 score (MiniSearch). */
  score: number;
}

export interface KeywordIndexOptions {
  /** Where to persist; default `<database>.minisearch.json`, in memory only for ':memory:'. `null` disables persistence. */
  file?: string | null;
  logger?: Logger;
  persistDebounceMs?: number;
  maxPostings?: number;
}

/** How the index was obtained at open. */
export type KeywordIndexOrigin = 'memory' | 'loaded' | 'rebuilt:missing' | 'rebuilt:stale' | 'rebuilt:corrupt';

interface Doc {
  id: number;
  question: string;
  code: string;
}

/** Identifier words of code (snake_case and camelCase split, stemmed like question words). */
export function codeTerms(code: string): string[] {
  const out = new Set<string>();
  for (const ident of code.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []) {
    for (const part of ident.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase().split('_')) {
      if (part.length >= 2 && !/^\d/.test(part)) out.add(stem(part));
    }
  }
  return [...out];
}

function tokenize(text: string, field?: string): string[] {
  return field === 'code' ? codeTerms(text) : tokenizeForKeywords(text);
}

const identity = (term: string): string => term;

const MINISEARCH_OPTIONS = {
  fields: ['question', 'code'],
  idField: 'id',
  storeFields: [],
  tokenize,
  processTerm: identity,
  searchOptions: { boost: FIELD_BOOST, prefix: false, fuzzy: false, combineWith: 'OR' as const },
};

function newMiniSearch(): MiniSearch<Doc> {
  return new MiniSearch<Doc>(MINISEARCH_OPTIONS);
}

/**
 * The parts of MiniSearch 7's index the fast scorer reads (pinned dependency;
 * `usesKnownInternals` checks the shape and the scorer falls back to the
 * public `search` if it ever changes).
 */
interface MiniSearchInternals {
  _index: { get(term: string): Map<number, Map<number, number>> | undefined };
  _documentIds: Map<number, unknown>;
  _fieldLength: Map<number, number[]>;
  _avgFieldLength: number[];
  _documentCount: number;
  _fieldIds: Record<string, number>;
  _nextId: number;
}

function internalsOf(ms: MiniSearch<Doc>): MiniSearchInternals | null {
  const m = ms as unknown as Partial<MiniSearchInternals>;
  const ok =
    typeof m._index?.get === 'function' &&
    m._documentIds instanceof Map &&
    m._fieldLength instanceof Map &&
    Array.isArray(m._avgFieldLength) &&
    typeof m._documentCount === 'number' &&
    typeof m._nextId === 'number' &&
    m._fieldIds !== undefined &&
    typeof m._fieldIds.question === 'number';
  return ok ? (m as MiniSearchInternals) : null;
}

/**
 * BM25 keyword index (MiniSearch) over the ACTIVE records (question + code
 * identifiers; document id = record rowid). Kept in sync through the store's
 * derived-index hooks (activations are applied lazily, in one batch, before
 * the next query or flush), persisted atomically beside the database with the
 * store's change id and active count, and rebuilt from the database when the
 * file is missing, stale or corrupt.
 *
 * @example
 * const keywords = KeywordIndex.open(store, { logger });
 * keywords.search('how many patients were admitted', 10); // [{ rid, score }]
 * keywords.close(); // writes the index file
 */
export class KeywordIndex {
  private ms = newMiniSearch();
  private scores = new Float64Array(0);
  private matched = new Uint8Array(0);
  private stamp = new Uint32Array(0);
  private generation = 0;
  /** Field lengths by MiniSearch short id (typed copies of `_fieldLength`, filled up to `lengthsFilled`). */
  private lengths: [Uint16Array, Uint16Array] = [new Uint16Array(0), new Uint16Array(0)];
  private lengthsFilled = 0;
  private readonly pending = new Map<number, IndexedText>();
  private syncedChangeId: number;
  private dirty = false;
  private timer: NodeJS.Timeout | null = null;
  private readonly subscriptions: Disposable[] = [];
  private readonly logger: Logger;
  private readonly file: string | null;
  private readonly debounceMs: number;
  private readonly maxPostings: number;
  origin: KeywordIndexOrigin = 'memory';

  private constructor(private readonly store: MemoryStore, options: KeywordIndexOptions) {
    this.logger = tagged(options.logger ?? store.log ?? nullLogger, 'keywords');
    const dbFile = store.db.memory ? null : store.db.name;
    this.file = options.file === undefined ? (dbFile ? dbFile + KEYWORD_FILE_SUFFIX : null) : options.file;
    this.debounceMs = options.persistDebounceMs ?? DEFAULT_PERSIST_DEBOUNCE_MS;
    this.maxPostings = options.maxPostings ?? DEFAULT_MAX_POSTINGS;
    this.syncedChangeId = store.changeId;
  }

  /** Loads the persisted index (checked against the database) or rebuilds it, and subscribes to changes. */
  static open(store: MemoryStore, options: KeywordIndexOptions = {}): KeywordIndex {
    const index = new KeywordIndex(store, options);
    index.origin = index.file ? index.load(index.file) : 'memory';
    if (index.origin !== 'loaded') index.rebuild();
    if (index.file && index.origin !== 'loaded') index.persist();
    index.subscriptions.push(
      store.addDerivedIndex({ activated: (records) => index.activated(records), deactivated: (rids) => index.deactivated(rids) }),
      store.onDidChange(() => index.changed()),
    );
    return index;
  }

  /** Number of indexed (active) records, including ones queued for indexing. */
  get size(): number {
    return this.ms.documentCount + this.pending.size;
  }

  get persistFile(): string | null {
    return this.file;
  }

  /**
   * Best `limit` active records for `text` by BM25 (no fuzzy or prefix
   * matching), scored exactly like MiniSearch's OR search (sum over terms and
   * boosted fields, times the number of query terms matched) but over typed
   * arrays, with the query terms taken rarest first within the postings budget.
   */
  search(text: string, limit: number): KeywordHit[] {
    this.ensureFresh();
    this.drain();
    const terms = this.selectTerms(text);
    if (terms.length === 0 || limit <= 0) return [];
    const internals = internalsOf(this.ms);
    if (!internals) return this.publicSearch(terms, limit);
    return this.fastSearch(internals, terms, limit);
  }

  /** Number of postings (documents per field) of an index term. */
  documentFrequency(term: string): number {
    this.drain();
    const data = internalsOf(this.ms)?._index.get(term);
    if (!data) return 0;
    let n = 0;
    for (const postings of data.values()) n += postings.size;
    return n;
  }

  /** Applies queued changes and writes the file when it changed. */
  flush(): void {
    this.drain();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.dirty && this.file) this.persist();
    this.dirty = false;
  }

  /** Flushes and unsubscribes from the store. */
  close(): void {
    this.flush();
    for (const s of this.subscriptions.splice(0)) s.dispose();
  }

  /** Rebuilds the whole index from the active records in the database. */
  rebuild(): void {
    const started = Date.now();
    this.ms = newMiniSearch();
    this.lengthsFilled = 0;
    this.pending.clear();
    this.syncedChangeId = this.store.changeId;
    this.addDocs(this.store.activeTexts());
    this.dirty = true;
    this.logger.info(`rebuilt keyword index: ${this.ms.documentCount} active records in ${Date.now() - started} ms`);
  }

  // ---------------------------------------------------------------- internals

  private selectTerms(text: string): string[] {
    const unique = [...new Set(tokenizeForKeywords(text))];
    const withDf = unique.map((t) => ({ t, df: this.documentFrequency(t) })).filter((x) => x.df > 0);
    withDf.sort((a, b) => a.df - b.df);
    const out: string[] = [];
    let used = 0;
    for (const { t, df } of withDf) {
      if (out.length > 0 && used + df > this.maxPostings) break;
      out.push(t);
      used += df;
    }
    return out;
  }

  /** Copies field lengths of documents added since the last query into typed arrays. */
  private fillLengths(ix: MiniSearchInternals): void {
    if (this.lengthsFilled > ix._nextId) this.lengthsFilled = 0; // a new MiniSearch instance
    if (this.lengthsFilled === ix._nextId) return;
    if (this.lengths[0].length < ix._nextId) {
      const size = Math.max(ix._nextId, this.lengths[0].length * 2, 1024);
      this.lengths = this.lengths.map((old) => {
        const next = new Uint16Array(size);
        next.set(old);
        return next;
      }) as [Uint16Array, Uint16Array];
    }
    const q = ix._fieldIds.question;
    const c = ix._fieldIds.code;
    for (let doc = this.lengthsFilled; doc < ix._nextId; doc++) {
      const lens = ix._fieldLength.get(doc);
      if (!lens) continue;
      this.lengths[q][doc] = Math.min(65535, lens[q] ?? 0);
      this.lengths[c][doc] = Math.min(65535, lens[c] ?? 0);
    }
    this.lengthsFilled = ix._nextId;
  }

  private publicSearch(terms: string[], limit: number): KeywordHit[] {
    const results = this.ms.search(terms.join(' '), { tokenize: (q) => q.split(' '), processTerm: identity });
    return results.slice(0, limit).map((r) => ({ rid: r.id as number, score: r.score }));
  }

  private fastSearch(ix: MiniSearchInternals, terms: string[], limit: number): KeywordHit[] {
    if (this.scores.length < ix._nextId) {
      this.scores = new Float64Array(Math.max(ix._nextId, this.scores.length * 2, 1024));
      this.matched = new Uint8Array(this.scores.length);
      this.stamp = new Uint32Array(this.scores.length);
      this.generation = 0;
    }
    this.fillLengths(ix);
    const scores = this.scores;
    const matched = this.matched;
    const touched: number[] = [];
    const n = ix._documentCount;
    const checkDiscarded = this.ms.dirtCount > 0;
    for (const term of terms) {
      const data = ix._index.get(term);
      if (!data) continue;
      const stamp = this.stamp;
      const generation = ++this.generation;
      for (const [field, boost] of Object.entries(FIELD_BOOST)) {
        const fieldId = ix._fieldIds[field];
        const postings = data.get(fieldId);
        if (!postings) continue;
        const df = postings.size;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        const avg = ix._avgFieldLength[fieldId];
        const lengths = this.lengths[fieldId];
        const kb = BM25.k * (1 - BM25.b);
        const kbAvg = (BM25.k * BM25.b) / avg;
        const weight = boost * idf;
        for (const [doc, tf] of postings) {
          if (checkDiscarded && !ix._documentIds.has(doc)) continue;
          const s = weight * (BM25.d + (tf * (BM25.k + 1)) / (tf + kb + kbAvg * lengths[doc]));
          if (matched[doc] === 0) touched.push(doc);
          if (stamp[doc] !== generation) {
            stamp[doc] = generation;
            matched[doc]++;
          }
          scores[doc] += s;
        }
      }
    }
    // Bounded insertion selection of the best `limit`, then reset the scratch arrays.
    const best: { doc: number; score: number }[] = [];
    for (const doc of touched) {
      const score = scores[doc] * matched[doc];
      scores[doc] = 0;
      matched[doc] = 0;
      if (best.length === limit && score <= best[limit - 1].score) continue;
      let i = best.length < limit ? best.length : limit - 1;
      if (best.length < limit) best.push({ doc, score });
      while (i > 0 && best[i - 1].score < score) {
        best[i] = best[i - 1];
        i--;
      }
      best[i] = { doc, score };
    }
    return best.map((b) => ({ rid: ix._documentIds.get(b.doc) as number, score: b.score }));
  }

  /** Another process changed the database since we last synced: rebuild. */
  private ensureFresh(): void {
    const current = this.store.changeId;
    if (current === this.syncedChangeId) return;
    this.logger.info(`database changed outside this index (change ${this.syncedChangeId} → ${current}); rebuilding`);
    this.rebuild();
  }

  private activated(records: IndexedText[]): void {
    for (const r of records) this.pending.set(r.rid, r);
  }

  private deactivated(rids: number[]): void {
    const indexed = rids.filter((rid) => !this.pending.delete(rid) && this.ms.has(rid));
    if (indexed.length > 0) this.ms.discardAll(indexed);
  }

  private changed(): void {
    this.syncedChangeId = this.store.changeId;
    this.dirty = true;
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

  private drain(): void {
    if (this.pending.size === 0) return;
    const records = [...this.pending.values()];
    this.pending.clear();
    this.addDocs(records.filter((r) => !this.ms.has(r.rid)));
  }

  private addDocs(records: IndexedText[]): void {
    this.ms.addAll(records.map((r) => ({ id: r.rid, question: r.question, code: r.code })));
  }

  private load(file: string): KeywordIndexOrigin {
    const changeId = this.store.changeId;
    const read = readIndexFile<Doc>(file, { changeId, activeCount: this.store.counts().active }, MINISEARCH_OPTIONS, this.logger);
    if (read.origin === 'loaded') {
      this.ms = read.index;
      this.lengthsFilled = 0;
      this.syncedChangeId = changeId;
    }
    return read.origin;
  }

  private persist(): void {
    if (!this.file) return;
    try {
      writeIndexFile(this.file, { changeId: this.syncedChangeId, activeCount: this.ms.documentCount }, this.ms);
    } catch (error) {
      // The file is a cache of the database: failing to write it (disk full) loses nothing; the next open rebuilds.
      this.logger.warn(`could not write the keyword index file ${this.file} (${errorMessage(error)}); it will be rebuilt at the next open`);
    }
    this.dirty = false;
  }
}
