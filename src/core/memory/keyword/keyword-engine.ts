/**
 * What holds the keyword postings behind KeywordIndex, one of two engines:
 * - `compact` (the default): CompactPostings, typed arrays, a binary base file
 *   (`<db>.keywords.bin`) read in place and a delta file beside it
 *   (`<db>.keywords.bin.delta`) that each persist appends to;
 * - `minisearch`: MiniSearch itself with its JSON file (`<db>.minisearch.json`):
 *   the reference the compact engine is tested against (same records, scores
 *   and order), and the engine a caller may still choose.
 * Both score with MiniSearch 7.1's BM25+ and the same documents
 * (keyword-documents.ts); KeywordIndex owns catching up, persisting, warming.
 */
import * as fs from 'node:fs';
import { errorMessage } from '../../errors';
import { Logger } from '../../logger';
import { CompactPostings } from './keyword-compact';
import { appendSegment, BaseIdentity, DELTA_MERGE_MIN_BYTES, DELTA_SUFFIX, readDelta } from './keyword-compact-delta';
import { readCompactFile, sameBase, writeCompactFile } from './keyword-compact-file';
import { Doc, MINISEARCH_OPTIONS, newMiniSearch, splitTerms } from './keyword-documents';
import { readIndexFile, writeIndexFile } from './keyword-index-file';
import type { ScorerIndex } from './keyword-scorer';
import { TermFrequencies, TermSelection } from './keyword-terms';
import { hash53 } from '../../text-hash';

export type KeywordEngineKind = 'compact' | 'minisearch';
/** File suffix of each engine's index file (beside the database). */
export const ENGINE_FILE_SUFFIX: Record<KeywordEngineKind, string> = { compact: '.keywords.bin', minisearch: '.minisearch.json' };

export interface EngineHit {
  rid: number;
  score: number;
}

export interface KeywordEngine {
  readonly kind: KeywordEngineKind;
  readonly documentCount: number;
  /** Live document frequencies: query term selection, score bounds, warming. */
  readonly terms: TermSelection;
  /** Discarded postings still settling (MiniSearch's vacuum): answer through `direct`, do not warm. */
  readonly settling: boolean;
  /** What the scorer reads a term's results from. */
  readonly scorerIndex: ScorerIndex;
  has(rid: number): boolean;
  add(docs: Doc[]): void;
  /** A record leaves the index; `now` is its text as the database holds it now (null: gone). */
  leave(rid: number, now: Doc | null): 'removed' | 'discarded';
  /** After a batch of changes (MiniSearch: vacuum; compact: compaction when due). */
  settle(onFailure: (error: unknown) => void): void;
  /** The OR query of `terms` scored whole, without the scorer (MiniSearch's own search, or every posting of the compact index). */
  direct(terms: string[], limit: number): EngineHit[];
  write(file: string, seq: number): void;
}

export type EngineLoad = { origin: 'loaded'; engine: KeywordEngine; seq: number } | { origin: 'rebuilt:missing' | 'rebuilt:corrupt' };

export function newEngine(kind: KeywordEngineKind, removeLeaving = true): KeywordEngine {
  return kind === 'compact' ? new CompactEngine(CompactPostings.empty()) : new MiniSearchEngine(newMiniSearch(), new TermFrequencies(), removeLeaving);
}

export function loadEngine(kind: KeywordEngineKind, file: string, logger: Logger, removeLeaving = true): EngineLoad {
  if (kind === 'compact') {
    const read = readCompactFile(file, logger);
    if (read.origin !== 'loaded') return read;
    const engine = new CompactEngine(CompactPostings.fromState(read.state));
    try {
      return { origin: 'loaded', engine, seq: engine.replayDelta(file, read.base, logger) };
    } catch (error) {
      logger.warn(`keyword index delta ${file}${DELTA_SUFFIX} does not apply (${errorMessage(error)}); rebuilding`);
      fs.rmSync(file + DELTA_SUFFIX, { force: true });
      return { origin: 'rebuilt:corrupt' };
    }
  }
  const read = readIndexFile<Doc>(file, MINISEARCH_OPTIONS, logger);
  return read.origin === 'loaded' ? { origin: 'loaded', engine: new MiniSearchEngine(read.index, new TermFrequencies(read.frequencies), removeLeaving), seq: read.seq } : read;
}

/** Where the files of a compact engine stand: the base it loaded or wrote, its delta's chain end and size. */
interface Written {
  base: BaseIdentity;
  chain: number;
  deltaBytes: number;
  /** The index's compactions when the base was written or loaded: another one makes a new base, to be written whole. */
  compactions: number;
}

/**
 * The compact index as an engine: its own frequencies, tombstones, compaction. Persisted as a base file
 * (keyword-compact-file.ts) and a delta file beside it (keyword-compact-delta.ts): a persist appends what
 * changed since the last one, and writes a new base only after a compaction, or when the delta passed
 * DELTA_MERGE_MIN_BYTES and a quarter of the base (the merge), or when another process wrote the files.
 */
class CompactEngine extends TermSelection implements KeywordEngine {
  readonly kind = 'compact';
  readonly settling = false;
  readonly perField: (term: string) => number[];
  private written: Written | null = null;
  /** Persists that appended a segment, and that wrote a whole base (tests, diagnostics). */
  readonly writes = { appended: 0, based: 0 };

  constructor(private readonly postings: CompactPostings) {
    super();
    this.perField = (term) => postings.perField(term);
  }

  get terms(): TermSelection {
    return this;
  }

  get documentCount(): number {
    return this.postings.documentCount;
  }

  get scorerIndex(): ScorerIndex {
    const p = this.postings;
    return { get documentCount() { return p.documentCount; }, documentIds: () => p.documentIds(), readTerm: p.readTerm, topOfTerm: p.topOfTerm };
  }

  has(rid: number): boolean {
    return this.postings.has(rid);
  }

  add(docs: Doc[]): void {
    for (const doc of docs) this.postings.add(doc);
  }

  leave(rid: number, now: Doc | null): 'removed' | 'discarded' {
    const known = this.postings.knows(rid, now);
    this.postings.remove(rid, now);
    return known ? 'removed' : 'discarded';
  }

  settle(): void {
    this.postings.maybeCompact();
  }

  direct(terms: string[], limit: number): EngineHit[] {
    return scoreWhole(this.postings, terms, limit);
  }

  write(file: string, seq: number): void {
    const p = this.postings;
    const w = this.written;
    const segment = w && w.compactions === p.compactions ? p.segment() : null;
    if (w && segment && w.deltaBytes <= Math.max(DELTA_MERGE_MIN_BYTES, w.base.bytes / 4) && sameBase(file, w.base)) {
      const appended = appendSegment(file + DELTA_SUFFIX, w.base, w.chain, w.deltaBytes, { seq, ...segment });
      if (appended) {
        p.markWritten();
        w.chain = appended.chain;
        w.deltaBytes = appended.bytes;
        this.writes.appended++;
        return;
      }
    }
    const base = writeCompactFile(file, seq, p.state());
    fs.rmSync(file + DELTA_SUFFIX, { force: true });
    p.markWritten();
    this.written = { base, chain: base.checksum, deltaBytes: 0, compactions: p.compactions };
    this.writes.based++;
  }

  /**
   * Replays the delta file of the base just loaded (`base`): its chain of segments, each extending the state
   * the previous one left; a foreign delta is removed, a broken tail cut. The seq the index then reflects.
   */
  replayDelta(file: string, base: BaseIdentity, logger: Logger): number {
    const deltaFile = file + DELTA_SUFFIX;
    this.written = { base, chain: base.checksum, deltaBytes: 0, compactions: this.postings.compactions };
    const read = readDelta(deltaFile, base);
    if (read.origin === 'none') return base.seq;
    if (read.origin === 'foreign') {
      logger.info(`removed the keyword index delta ${deltaFile}: ${read.reason}`);
      fs.rmSync(deltaFile, { force: true });
      return base.seq;
    }
    let seq = base.seq;
    let end = read.headerBytes;
    let applied = 0;
    for (const { segment, end: after, chain } of read.segments) {
      if (!this.postings.extendedBy(segment) || segment.seq < seq) break;
      this.postings.applySegment(segment);
      seq = segment.seq;
      end = after;
      this.written.chain = chain;
      applied++;
    }
    this.written.deltaBytes = end;
    if (end < read.fileBytes) {
      logger.info(`keyword index delta ${deltaFile}: ${applied} of its segments extend the index, ${read.fileBytes - end} bytes after them cut (an interrupted write)`);
      fs.truncateSync(deltaFile, end);
    }
    logger.debug(`keyword index delta ${deltaFile}: ${applied} segments replayed (change ${base.seq} → ${seq})`);
    return seq;
  }

  protected termList(): Iterator<string> {
    return this.postings.termList();
  }
}

/**
 * Every posting of the query's terms, combined as MiniSearch's OR search does:
 * (sum of the per-term scores in query-term order) × terms matched, ties in
 * first matching term, then field, then document order. Written apart from
 * the scorer (no pruning, no cache): the reference `searchDirect` gives.
 */
function scoreWhole(postings: CompactPostings, terms: string[], limit: number): EngineHit[] {
  const ordinal = new Map<number, number>();
  let n = 0;
  for (const rid of postings.documentIds()) ordinal.set(rid, n++);
  const acc = new Map<number, { sum: number; matched: number; first: number }>();
  terms.forEach((term, t) => {
    const r = postings.readTerm(term, ordinal);
    if (!r) return;
    for (let j = 0; j < r.ords.length; j++) {
      const a = acc.get(r.ords[j]);
      if (a) {
        a.sum += r.scores[j];
        a.matched++;
      } else acc.set(r.ords[j], { sum: r.scores[j], matched: 1, first: t * 256 + r.field[j] });
    }
  });
  const rids = [...ordinal.keys()];
  return [...acc]
    .map(([o, a]) => ({ o, first: a.first, score: a.sum * a.matched }))
    .sort((x, y) => y.score - x.score || x.first - y.first || x.o - y.o)
    .slice(0, limit)
    .map((h) => ({ rid: rids[h.o], score: h.score }));
}

/** The identity of a document's indexed text (see MiniSearchEngine.indexedText). */
function textHash(doc: Doc): number {
  return hash53(`${doc.question}\u0000${doc.code}`);
}

/** MiniSearch, through its public API (and keyword-postings.ts's reader), with the frequencies kept beside it. */
class MiniSearchEngine implements KeywordEngine {
  readonly kind = 'minisearch';
  /**
   * A hash of the text each document was indexed with, for the documents this engine indexed (not those
   * of a loaded file): a record that leaves with that text still in the database is removed at once
   * (MiniSearch `remove`); any other is discarded and the index vacuumed (a walk of every term).
   */
  private readonly indexedText = new Map<number, number>();

  constructor(
    private readonly ms: ReturnType<typeof newMiniSearch>,
    readonly terms: TermFrequencies,
    private readonly removeLeaving: boolean,
  ) {}

  get documentCount(): number {
    return this.ms.documentCount;
  }

  get settling(): boolean {
    return this.ms.dirtCount > 0;
  }

  get scorerIndex(): ScorerIndex {
    return this.ms;
  }

  has(rid: number): boolean {
    return this.ms.has(rid);
  }

  add(docs: Doc[]): void {
    for (const doc of docs) {
      this.terms.count(doc, 1);
      this.indexedText.set(doc.id, textHash(doc));
    }
    this.ms.addAll(docs);
  }

  leave(rid: number, now: Doc | null): 'removed' | 'discarded' {
    this.terms.count(now, -1);
    const indexed = this.indexedText.get(rid);
    this.indexedText.delete(rid);
    if (this.removeLeaving && now && indexed !== undefined && indexed === textHash(now)) {
      this.ms.remove(now);
      return 'removed';
    }
    this.ms.discard(rid);
    return 'discarded';
  }

  /**
   * Drops the postings of discarded documents: with a batch larger than the
   * term count MiniSearch's `vacuum` walks the whole index before it first
   * yields, so nothing can interleave with it and `dirtCount` is 0 on return
   * (unless a previous vacuum is still settling: it then runs at the next
   * microtask, and searches answer through MiniSearch directly meanwhile).
   */
  settle(onFailure: (error: unknown) => void): void {
    if (this.ms.dirtCount === 0) return;
    this.ms.vacuum({ batchSize: Number.MAX_SAFE_INTEGER }).catch(onFailure);
  }

  direct(terms: string[], limit: number): EngineHit[] {
    // The terms are already index terms: split only (the field tokenizers would stem them again).
    const results = this.ms.search(terms.join(' '), { tokenize: splitTerms });
    return results.slice(0, limit).map((r) => ({ rid: r.id as number, score: r.score }));
  }

  write(file: string, seq: number): void {
    writeIndexFile(file, { seq, documentCount: this.ms.documentCount }, this.terms.map, this.ms);
  }
}
