import type { Statement } from 'better-sqlite3';
import { Logger, nullLogger, tagged } from '../logger';
import { BinaryCodeCache, quantizeBinary } from './binary-code-cache';
import type { Database } from './database';
import { RecordChangeLog } from './record-changes';
import type { MemoryStore } from './store';
import { blobToVector, dot } from './vector-index';

/** One exact dense neighbour. */
export interface DenseHit {
  rid: number;
  /** Exact cosine (dot product of the L2-normalised float vectors). */
  similarity: number;
}

interface ChunkRow {
  size: number;
  validity: Buffer;
  rowids: Buffer;
  vectors: Buffer;
}

/**
 * Dense search over the active records. The binary codes kept durably by
 * sqlite-vec (`vec_bits`) are read at open in bulk, one vec0 chunk (1024
 * codes) at a time, straight into the Hamming kernel's memory; a scan (WASM
 * SIMD kernel) over-fetches candidates, whose float vectors are then read with
 * one `rid IN json_each(?)` query and rescored exactly. Memory: dim/8 bytes per
 * active record (4.8 MB at 100k × 384) instead of the float vectors.
 *
 * Freshness: before a query the index re-reads the records changed since the
 * last one (the `record_changes` log, written by every process through
 * triggers), so writes by this process, the CLI or another window are seen by
 * the next query. A re-embed (or a log that no longer reaches back) reloads.
 *
 * `open(store, { background: true })` reads the chunks across event-loop turns
 * (a few ms each) so an editor host never blocks long; a query arriving before
 * the end finishes the load at once.
 *
 * @example
 * const dense = DenseIndex.open(store);
 * dense.search(queryVector, 4, 128); // [{ rid, similarity }], best first; null when it cannot answer
 */
export class DenseIndex {
  private cache: BinaryCodeCache | null = null;
  private seq = 0;
  private loader: Loader | null = null;
  private readonly log: RecordChangeLog;
  private readonly rescoreStmt;
  private readonly changedStmt;
  private readonly dimStmt;
  private readonly logger: Logger;
  /** Settles when the codes are loaded (at once for a synchronous open). */
  readonly ready: Promise<void>;

  private constructor(private readonly db: Database, logger: Logger, background: boolean) {
    this.logger = tagged(logger, 'dense');
    this.log = new RecordChangeLog(db);
    // `+status`: look the candidates up by rowid, not through the status index (one b-tree search per row instead of two).
    this.rescoreStmt = db.prepare("SELECT rid, embedding FROM records WHERE rid IN (SELECT value FROM json_each(?)) AND +status = 'active'");
    this.changedStmt = db.prepare('SELECT rid, status, embedding FROM records WHERE rid IN (SELECT value FROM json_each(?))');
    this.dimStmt = db.prepare("SELECT value FROM meta WHERE key = 'vector_dim'").pluck();
    this.loader = this.startLoad();
    if (!background) this.finishLoad();
    this.ready = background ? this.loadInBackground() : Promise.resolve();
  }

  static open(store: MemoryStore, options: { logger?: Logger; background?: boolean } = {}): DenseIndex {
    return new DenseIndex(store.connectionForQueries(), options.logger ?? store.log ?? nullLogger, options.background ?? false);
  }

  /** Number of active codes held. */
  get size(): number {
    this.finishLoad();
    return this.cache?.size ?? 0;
  }

  get dimension(): number | null {
    return this.cache?.dimension ?? null;
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
   * The `k` best of `candidates` coarse candidates, by exact cosine; null when
   * the dense side cannot answer (no vectors, or the query comes from an
   * embedder of another dimension).
   */
  search(vector: Float32Array, k: number, candidates: number): DenseHit[] | null {
    const rids = this.candidates(vector, Math.max(k, candidates));
    if (!rids) return null;
    if (rids.length === 0) return [];
    const rows = this.rescoreStmt.all(JSON.stringify(rids)) as { rid: number; embedding: Buffer | null }[];
    const hits: DenseHit[] = [];
    for (const row of rows) {
      if (!row.embedding || row.embedding.byteLength !== vector.byteLength) continue;
      hits.push({ rid: row.rid, similarity: dotBlob(vector, row.embedding) });
    }
    hits.sort((a, b) => b.similarity - a.similarity || a.rid - b.rid);
    return hits.slice(0, k);
  }

  /** Re-reads every code from sqlite-vec (synchronously). */
  reload(): void {
    this.loader = this.startLoad();
    this.finishLoad();
  }

  dispose(): void {
    this.loader = null;
  }

  private fresh(vector: Float32Array): BinaryCodeCache | null {
    this.finishLoad();
    this.catchUp();
    const cache = this.cache;
    if (!cache || vector.length !== cache.dimension) return null;
    return cache;
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
    for (const row of rows) {
      if (row.status !== 'active' || !row.embedding || row.embedding.byteLength !== cache.dimension * 4) continue;
      cache.set(row.rid, quantizeBinary(blobToVector(row.embedding)));
      live.add(row.rid);
    }
    for (const rid of changes.rids) if (!live.has(rid)) cache.delete(rid);
  }

  private storedDimension(): number | null {
    const value = this.dimStmt.get() as string | undefined;
    return value === undefined ? null : Number(value);
  }

  private startLoad(): Loader {
    const seq = this.log.head();
    const dim = this.storedDimension();
    const cache = dim === null ? null : new BinaryCodeCache(dim);
    let chunkIds: number[] = [];
    let chunkStmt: Statement | null = null;
    if (cache) {
      try {
        chunkIds = this.db.prepare('SELECT chunk_id FROM vec_bits_chunks ORDER BY chunk_id').pluck().all() as number[];
        chunkStmt = this.db.prepare(
          'SELECT c.size AS size, c.validity AS validity, c.rowids AS rowids, v.vectors AS vectors FROM vec_bits_chunks c JOIN vec_bits_vector_chunks00 v ON v.rowid = c.chunk_id WHERE c.chunk_id = ?',
        );
        cache.reserve(chunkIds.length * 1024);
      } catch (error) {
        this.logger.warn(`cannot read vec_bits chunks (${String(error)}); reading the codes row by row`);
        chunkIds = [];
        this.readRows(cache);
      }
    }
    return { seq, cache, chunkIds, chunkStmt, next: 0, started: Date.now() };
  }

  /** Reads one vec0 chunk into the cache; false when done. */
  private loadStep(loader: Loader): boolean {
    const cache = loader.cache;
    if (!cache || !loader.chunkStmt || loader.next >= loader.chunkIds.length) return false;
    const chunk = loader.chunkStmt.get(loader.chunkIds[loader.next++]) as ChunkRow | undefined;
    if (!chunk) return true;
    const bytes = cache.dimension / 8;
    if (chunk.vectors.length < chunk.size * bytes || chunk.rowids.length < chunk.size * 8 || chunk.validity.length * 8 < chunk.size) {
      throw new Error(`vec_bits chunk of unexpected shape (${chunk.size} slots, ${chunk.vectors.length} code bytes)`);
    }
    const rowids = new DataView(chunk.rowids.buffer, chunk.rowids.byteOffset, chunk.rowids.byteLength);
    for (let i = 0; i < chunk.size; i++) {
      if ((chunk.validity[i >>> 3] & (1 << (i & 7))) === 0) continue;
      cache.setFrom(Number(rowids.getBigInt64(i * 8, true)), chunk.vectors, i * bytes, bytes);
    }
    return true;
  }

  /** Fallback when the vec0 chunk tables are not as expected: one row at a time through the virtual table. */
  private readRows(cache: BinaryCodeCache): void {
    cache.clear();
    for (const [rid, code] of this.db.prepare('SELECT rowid, embedding FROM vec_bits').raw(true).iterate() as Iterable<[number | bigint, Buffer]>) {
      cache.set(Number(rid), code);
    }
  }

  private finishLoad(): void {
    const loader = this.loader;
    if (!loader) return;
    try {
      while (this.loadStep(loader));
    } catch (error) {
      this.logger.warn(`${String(error)}; reading the codes row by row`);
      if (loader.cache) this.readRows(loader.cache);
    }
    this.complete(loader);
  }

  private complete(loader: Loader): void {
    this.loader = null;
    this.cache = loader.cache;
    this.seq = loader.seq;
    this.catchUp();
    this.logger.debug(`loaded ${this.cache?.size ?? 0} binary codes in ${Date.now() - loader.started} ms (${this.cache?.kernelKind ?? 'no'} kernel)`);
  }

  private async loadInBackground(): Promise<void> {
    for (;;) {
      const loader = this.loader;
      if (!loader) return;
      try {
        if (!this.loadStep(loader)) {
          this.complete(loader);
          return;
        }
      } catch {
        this.finishLoad();
        return;
      }
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
}

interface Loader {
  seq: number;
  cache: BinaryCodeCache | null;
  chunkIds: number[];
  chunkStmt: Statement | null;
  next: number;
  started: number;
}

/** Dot product of a query vector and a float32 BLOB (no copy when aligned). */
export function dotBlob(q: Float32Array, blob: Buffer): number {
  if (blob.byteOffset % 4 === 0) return dot(q, new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength / 4));
  const copy = new Uint8Array(blob.byteLength);
  copy.set(blob);
  return dot(q, new Float32Array(copy.buffer));
}
