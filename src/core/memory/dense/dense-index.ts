import { Logger, nullLogger, tagged } from '../../logger';
import { BinaryCodeCache, quantizeBinary } from './binary-code-cache';
import type { Database } from '../sqlite/database';
import { Int8VectorCache } from './int8-vector-cache';
import type { VectorCopies, VectorCopyForm } from './vector-copies';
import { copiesFor, type VectorCopyChoice } from './vector-copy-choice';
import { RecordChangeLog } from '../sqlite/record-changes';
import type { MemoryStore } from '../sqlite/store';
import { CodeLoad, loadCodeChunk, readCodeRows, startCodeLoad } from './dense-code-source';
import { blobToVector, dot } from './vector-index';
import { KnownCosines, knownAt, rescore, Scored } from './dense-rescore';
import { CodeSearch, IvfCodeIndex } from './ivf-code-index';
import { IVF_RETRAIN_GROWTH, IvfOpening, openIvf } from './ivf-persist';

/** From this many active codes on, candidates come from an inverted file over the codes (a few lists) instead of a full scan (at 100k: ~0.13 ms instead of ~0.56, recall@4 unchanged). */
export const IVF_MIN_CODES = 50_000;

/** One dense neighbour. */
export interface DenseHit {
  rid: number;
  /**
   * Cosine (dot product of the L2-normalised float vectors): exact when
   * `exact`, else from the record's copy (int8 or float16, within its error
   * bound), which already decided the hit's place in the ranking.
   */
  similarity: number;
  exact: boolean;
}

/** Rows read per step while the vector copies fill (≈ 1.5 MB of vectors at 384 dimensions: a few ms). */
export const HALF_FILL_ROWS = 1024;

/**
 * Dense search over the active records. The binary codes kept durably by
 * sqlite-vec (`vec_bits`) are read at open in bulk, one vec0 chunk (1024
 * codes) at a time, straight into the Hamming kernel's memory; a scan (WASM
 * SIMD kernel) over-fetches candidates, which are then rescored by cosine.
 * Memory at open: dim/8 bytes per active record (4.8 MB at 100k × 384)
 * instead of the float vectors.
 *
 * Rescoring: once the codes are loaded, copies of the vectors fill in the
 * background (VectorCopies, their form chosen by copiesFor: float16, dim × 2 + 8
 * bytes per record, while the cap holds them all, else int8, dim + 16: 40 MB at
 * 100k × 384; an 'auto' float16 cache that fills up as the memory grows is
 * replaced by int8 copies, refilled; `warmed` settles when full). A candidate with a copy is scored from it,
 * with a rigorous error bound; the exact float vectors are read (one
 * `rid IN json_each(?)` query) only for the candidates without a copy and for
 * those whose bounds leave their order among the top `k` undecided, so the
 * ranking is the exact one (that stage: dense-rescore.ts). Until the copies
 * are full, every candidate is read. The copies are capped (`vectorCopyBytes`,
 * MemoryBudget): the records beyond the cap keep none and are always read.
 *
 * Freshness: before a query the index re-reads the records changed since the
 * last one (the `record_changes` log, written by every process through
 * triggers), so writes by this process, the CLI or another window are seen by
 * the next query. A re-embed (or a log that no longer reaches back) reloads.
 *
 * `open(store, { background: true })` reads the chunks across event-loop turns
 * (a few ms each) so an editor host never blocks long; a query arriving before
 * the codes are read reads the rest at once, and one arriving while the
 * inverted file is laid out is answered by a full scan of the codes (unless a
 * record changed since: then it finishes the open). The vector copies then
 * fill the same way; a query never waits for them.
 *
 * @example
 * const dense = DenseIndex.open(store);
 * dense.search(queryVector, 4, 128); // [{ rid, similarity }], best first; null when it cannot answer
 */
export class DenseIndex {
  private cache: CodeSearch | null = null;
  private copyCache: VectorCopies | null = null;
  /** Next rid the copies' fill reads from (null: full, or not started). */
  private fillFrom: number | null = null;
  private seq = 0;
  private loader: Loader | null = null;
  private readonly log: RecordChangeLog;
  private readonly rescoreStmt;
  private readonly changedStmt;
  private readonly dimStmt;
  private readonly fillStmt;
  private readonly logger: Logger;
  private disposed = false;
  private filling: Promise<void> | null = null;
  /** A background open's layout of the inverted file, after `ready` (null: none under way). */
  private laying: Promise<void> | null = null;
  private vectorsRead = 0;
  /** Settles when the codes are loaded (at once for a synchronous open). */
  readonly ready: Promise<void>;

  private constructor(
    private readonly db: Database,
    logger: Logger,
    private readonly background: boolean,
    private readonly ivfMinCodes: number,
    private readonly copies: boolean,
    /** Cap of the vector copies (MemoryBudget.vectorCopyBytes; none: every active record). */
    private readonly vectorCopyBytes: number | undefined,
    private readonly copyChoice: VectorCopyChoice,
  ) {
    this.logger = tagged(logger, 'dense');
    this.log = new RecordChangeLog(db);
    // `+status`: look the candidates up by rowid, not through the status index (one b-tree search per row instead of two).
    this.rescoreStmt = db.prepare("SELECT rid, embedding FROM records WHERE rid IN (SELECT value FROM json_each(?)) AND +status = 'active'");
    this.changedStmt = db.prepare('SELECT rid, status, embedding FROM records WHERE rid IN (SELECT value FROM json_each(?))');
    this.dimStmt = db.prepare("SELECT value FROM meta WHERE key = 'vector_dim'").pluck();
    this.fillStmt = db.prepare("SELECT rid, embedding FROM records WHERE rid >= ? AND status = 'active' ORDER BY rid LIMIT ?");
    this.loader = this.startLoad();
    if (!background) this.finishLoad();
    this.ready = background ? this.loadInBackground() : Promise.resolve();
  }

  /** Settles when the vector copies are full too (rescoring then reads almost no vectors from SQLite); a reload refills them. */
  get warmed(): Promise<void> {
    return this.ready.then(() => this.laying ?? undefined).then(() => this.filling ?? undefined);
  }

  /**
   * `ivfMinCodes`: active codes from which candidates come from the inverted file (default
   * IVF_MIN_CODES; Infinity: always a full scan). `halfCopies: false`: no vector copies (rescoring
   * reads every candidate's vector; benchmarks of the candidate stage). `vectorCopyBytes`: cap of the
   * copies (MemoryBudget.vectorCopyBytes; none: every active record); `copyForm`: their form
   * (MemoryBudget.vectorCopyForm; default 'auto': see copiesFor).
   */
  static open(
    store: MemoryStore,
    options: { logger?: Logger; background?: boolean; ivfMinCodes?: number; halfCopies?: boolean; vectorCopyBytes?: number; copyForm?: VectorCopyChoice } = {},
  ): DenseIndex {
    return new DenseIndex(
      store.connectionForQueries(),
      options.logger ?? store.log ?? nullLogger,
      options.background ?? false,
      options.ivfMinCodes ?? IVF_MIN_CODES,
      options.halfCopies ?? true,
      options.vectorCopyBytes,
      options.copyForm ?? 'auto',
    );
  }

  /** Whether a background open is still under way (reading the codes or laying the inverted file out). */
  get opening(): boolean {
    return this.loader !== null;
  }

  /** The inverted file in use (null: a full scan of the codes). */
  get invertedFile(): IvfCodeIndex | null {
    this.finishLoad();
    return this.cache instanceof IvfCodeIndex ? this.cache : null;
  }

  /** Number of active codes held. */
  get size(): number {
    const opening = this.openingScan();
    if (opening) return opening.size;
    this.finishLoad();
    return this.cache?.size ?? 0;
  }

  get dimension(): number | null {
    return this.cache?.dimension ?? this.loader?.cache?.dimension ?? null;
  }

  /** The copies' form, the records with a copy, the bytes the copies hold, and the most records the cap allows. */
  get vectorCopies(): { form: VectorCopyForm | null; records: number; bytes: number; capacity: number } {
    return { form: this.copyCache?.form ?? null, records: this.copyCache?.size ?? 0, bytes: this.copyCache?.bytes ?? 0, capacity: this.copyCache?.capacity ?? 0 };
  }

  /** Bytes the binary codes hold (with the room reserved for more). */
  get codeBytes(): number {
    return this.cache?.bytes ?? 0;
  }

  /** Float vectors rescoring has read from the database since open (diagnostics, tests). */
  get rescoreReads(): number {
    return this.vectorsRead;
  }

  /** Which Hamming kernel is in use ('wasm-simd' or 'js'). */
  get kernelKind(): string | null {
    return this.cache?.kernelKind ?? null;
  }

  /** Up to `count` active rids nearest to `vector` by Hamming distance of the sign codes (null when it cannot answer). */
  candidates(vector: Float32Array, count: number): number[] | null {
    const cache = this.fresh(vector);
    return cache ? cache.nearest(quantizeBinary(vector), count) : null;
  }

  /**
   * The `k` best of `candidates` coarse candidates, by cosine (the exact
   * ranking; see DenseHit.exact for the values); null when the dense side
   * cannot answer (no vectors, or the query comes from an embedder of another
   * dimension). `known`: the exact cosines of this vector read by an earlier search of the
   * same query (KnownCosines; dropped if records changed since): used instead of reading them again, and added to.
   */
  search(vector: Float32Array, k: number, candidates: number, known?: KnownCosines): DenseHit[] | null {
    const rids = this.candidates(vector, Math.max(k, candidates));
    if (!rids) return null;
    if (rids.length === 0) return [];
    return rescore(vector, rids, k, this.copyCache, (ask, into) => this.readExact(vector, ask, into), knownAt(known, this.seq));
  }

  /** Appends the exact cosines of the active records among `rids` (one query). */
  private readExact(vector: Float32Array, rids: number[], into: Scored[]): void {
    if (rids.length === 0) return;
    this.vectorsRead += rids.length;
    const rows = this.rescoreStmt.all(JSON.stringify(rids)) as { rid: number; embedding: Buffer | null }[];
    for (const row of rows) {
      if (!row.embedding || row.embedding.byteLength !== vector.byteLength) continue;
      into.push({ rid: row.rid, score: dotBlob(vector, row.embedding), bound: 0, group: -1 });
    }
  }

  /** Re-reads every code from sqlite-vec (synchronously). */
  reload(): void {
    this.loader = this.startLoad();
    this.finishLoad();
  }

  dispose(): void {
    this.loader = null;
    this.disposed = true;
    this.copyCache = null;
    this.fillFrom = null;
  }

  private fresh(vector: Float32Array): CodeSearch | null {
    const opening = this.openingScan();
    if (opening) return vector.length === opening.dimension ? opening : null;
    this.finishLoad();
    this.catchUp();
    const cache = this.cache;
    if (!cache || vector.length !== cache.dimension) return null;
    return cache;
  }

  /**
   * While a background open lays the inverted file out, the codes themselves (scanned whole: a full scan's
   * candidates, as below IVF_MIN_CODES), so the first searches do not wait for the layout (about 150 ms at
   * 100k codes, seconds at 1M). The codes still unread are read first. Null, and the open is finished now
   * as before, when there is no layout to wait for or a record changed since the codes were read (the scan
   * would miss it; the layout takes the codes as they were read, so they are not changed under it).
   */
  private openingScan(): BinaryCodeCache | null {
    const loader = this.loader;
    if (!this.background || !loader?.cache) return null;
    try {
      while (loadCodeChunk(loader));
    } catch {
      return null;
    }
    if (loader.cache.size < this.ivfMinCodes) return null;
    const changes = this.log.since(loader.seq);
    return 'reload' in changes || changes.rids.length > 0 ? null : loader.cache;
  }

  private catchUp(): void {
    const changes = this.log.since(this.seq);
    if ('reload' in changes) {
      this.logger.info(`many records changed since the codes were read (change ${this.seq} → ${changes.head}); reloading`);
      this.reload();
      return;
    }
    if (changes.rids.length === 0) return;
    const dim = this.storedDimension();
    if (dim !== (this.cache?.dimension ?? null)) {
      this.reload();
      return;
    }
    this.seq = changes.head;
    const cache = this.cache;
    if (!cache) return;
    const rows = this.changedStmt.all(JSON.stringify(changes.rids)) as { rid: number; status: string; embedding: Buffer | null }[];
    const live = new Set<number>();
    let missed = false;
    for (const row of rows) {
      if (row.status !== 'active' || !row.embedding || row.embedding.byteLength !== cache.dimension * 4) continue;
      const vector = blobToVector(row.embedding);
      cache.set(row.rid, quantizeBinary(vector));
      if (this.copyCache?.set(row.rid, vector) === false) missed = true;
      live.add(row.rid);
    }
    for (const rid of changes.rids) {
      if (live.has(rid)) continue;
      cache.delete(rid);
      this.copyCache?.delete(rid);
    }
    if (missed && this.copyChoice === 'auto' && this.copyCache?.form === 'float16' && this.copyCache.full) this.refillAsInt8();
    if (cache instanceof BinaryCodeCache && cache.size >= this.ivfMinCodes) this.cache = openIvf(this.db, cache, this.seq, this.log, this.logger);
    else if (cache instanceof IvfCodeIndex && cache.size > cache.trainedSize * IVF_RETRAIN_GROWTH) this.reload();
  }

  /** The memory outgrew the float16 copies 'auto' chose: int8 copies (half the bytes) replace them, filled from the first rid. */
  private refillAsInt8(): void {
    const full = this.copyCache;
    if (!full) return;
    this.logger.info(`the float16 vector copies are full (${full.size} records); refilling them as int8 copies`);
    this.copyCache = new Int8VectorCache(full.dimension, { maxBytes: this.vectorCopyBytes });
    this.copyCache.reserve(this.cache?.size ?? 0);
    this.fillFrom = 0;
    this.startFill();
  }

  private storedDimension(): number | null {
    const value = this.dimStmt.get() as string | undefined;
    return value === undefined ? null : Number(value);
  }

  private startLoad(): Loader {
    const seq = this.log.head();
    const dim = this.storedDimension();
    return { seq, ...startCodeLoad(this.db, dim === null ? null : new BinaryCodeCache(dim), this.logger), started: Date.now() };
  }

  private finishLoad(): void {
    const loader = this.loader;
    if (!loader) return;
    try {
      while (loadCodeChunk(loader));
    } catch (error) {
      this.logger.warn(`${String(error)}; reading the codes row by row`);
      if (loader.cache) readCodeRows(this.db, loader.cache);
    }
    this.complete(loader);
  }

  private complete(loader: Loader): void {
    this.loader = null;
    this.seq = loader.seq;
    const flat = loader.cache;
    this.cache = flat && flat.size >= this.ivfMinCodes ? (loader.ivf ?? new IvfOpening(this.db, flat, loader.seq, this.log, this.logger)).finish() : flat;
    // Fresh copies fill from the start (the records' vectors as they are now; later changes come through catchUp).
    this.copyCache = loader.cache && this.copies ? copiesFor(this.copyChoice, loader.cache.dimension, this.vectorCopyBytes, loader.cache.size) : null;
    this.copyCache?.reserve(loader.cache?.size ?? 0);
    this.fillFrom = this.copyCache ? 0 : null;
    this.catchUp();
    this.startFill();
    this.logger.debug(`loaded ${this.cache?.size ?? 0} binary codes in ${Date.now() - loader.started} ms (${this.cache?.kernelKind ?? 'no'} kernel)`);
  }

  /** Reads the next HALF_FILL_ROWS active vectors into the vector copies; false when every record has one or the cap is reached. */
  private fillStep(): boolean {
    const held = this.copyCache;
    const from = this.fillFrom;
    if (!held || from === null) return false;
    if (held.full) {
      this.fillFrom = null;
      return false;
    }
    const rows = this.fillStmt.all(from, HALF_FILL_ROWS) as { rid: number; embedding: Buffer | null }[];
    for (const row of rows) {
      if (row.embedding && row.embedding.byteLength === held.dimension * 4) held.set(row.rid, blobToVector(row.embedding));
    }
    this.fillFrom = rows.length < HALF_FILL_ROWS ? null : rows[rows.length - 1].rid + 1;
    return this.fillFrom !== null;
  }

  /** Fills the copies: at once for a synchronous index, else across event-loop turns (one run at a time; a reload restarts it from the first rid). */
  private startFill(): void {
    if (!this.background) {
      while (this.fillStep());
      return;
    }
    this.filling ??= this.fillInBackground().finally(() => {
      this.filling = null;
    });
  }

  private async fillInBackground(): Promise<void> {
    const started = Date.now();
    try {
      do await new Promise<void>((resolve) => setImmediate(resolve));
      while (!this.disposed && this.fillStep());
    } catch (error) {
      // Rescoring reads the vectors from SQLite without the copies: slower, same results.
      this.logger.warn(`could not fill the vector copies (${String(error)}); rescoring reads the vectors from the database`);
      this.copyCache = null;
      this.fillFrom = null;
      return;
    }
    if (!this.disposed) this.logger.debug(`${this.copyCache?.form ?? 'no'} copies of ${this.copyCache?.size ?? 0} vectors in ${Date.now() - started} ms (${((this.copyCache?.bytes ?? 0) / 1e6).toFixed(1)} MB)`);
  }

  /** Once the codes are read: one step of the inverted file's open (a few ms); false when there is none to open or it is laid out. */
  private ivfStep(loader: Loader): boolean {
    const flat = loader.cache;
    if (!flat || flat.size < this.ivfMinCodes) return false;
    if (!loader.ivf) {
      loader.ivf = new IvfOpening(this.db, flat, loader.seq, this.log, this.logger);
      return true;
    }
    return loader.ivf.step();
  }

  /** Reads the codes across event-loop turns; settles once all are read (a search then needs no more of the open): the
   * inverted file is laid out after, in turns of its own (`laying`, part of `warmed`; a search meanwhile: openingScan). */
  private async loadInBackground(): Promise<void> {
    for (;;) {
      const loader = this.loader;
      if (!loader) return;
      try {
        if (!loadCodeChunk(loader)) {
          this.laying = this.layOutInBackground(loader);
          return;
        }
      } catch {
        this.finishLoad();
        return;
      }
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  /** The inverted file's layout across event-loop turns, then the rest of the open (complete). */
  private async layOutInBackground(loader: Loader): Promise<void> {
    if (!loader.cache || loader.cache.size < this.ivfMinCodes) {
      this.complete(loader);
      return;
    }
    for (;;) {
      // First a turn: `ready` settles before the layout's first step (training a quantiser takes ~0.5 s at 100k).
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (this.loader !== loader) return;
      try {
        if (!this.ivfStep(loader)) {
          this.complete(loader);
          return;
        }
      } catch {
        this.finishLoad();
        return;
      }
    }
  }
}

interface Loader extends CodeLoad {
  seq: number;
  started: number;
  /** The inverted file's open in steps (background loads of IVF_MIN_CODES codes and more). */
  ivf?: IvfOpening;
}

/** Dot product of a query vector and a float32 BLOB (no copy when aligned). */
export function dotBlob(q: Float32Array, blob: Buffer): number {
  if (blob.byteOffset % 4 === 0) return dot(q, new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength / 4));
  const copy = new Uint8Array(blob.byteLength);
  copy.set(blob);
  return dot(q, new Float32Array(copy.buffer));
}
