import type { Statement } from 'better-sqlite3';
import type { Logger } from '../../logger';
import { BinaryCodeCache, quantizeBinary } from './binary-code-cache';
import type { Database } from '../sqlite/database';
import { vectorExtensionOf } from '../sqlite/native-sqlite';
import { blobToVector, VEC_BITS_STALE_KEY } from './vector-index';

/**
 * Where DenseIndex gets the binary codes at open: from sqlite-vec's `vec_bits` chunks when the
 * extension is loaded and the table is current, else (no sqlite-vec on this platform, or the
 * memory was written without it) from the records' float vectors, quantised in-process.
 */
export function codesInSqliteVec(db: Database): boolean {
  return vectorExtensionOf(db).loaded && db.prepare('SELECT 1 FROM meta WHERE key = ?').get(VEC_BITS_STALE_KEY) === undefined;
}

/** Fills `cache` with the sign codes of the active records' float vectors (the codes vec_quantize_binary stores). */
export function readCodesFromVectors(db: Database, cache: BinaryCodeCache): void {
  cache.clear();
  const bytes = cache.dimension * 4;
  const rows = db.prepare("SELECT rid, embedding FROM records WHERE status = 'active' AND embedding IS NOT NULL").raw(true).iterate() as Iterable<[number, Buffer]>;
  for (const [rid, embedding] of rows) {
    if (embedding.byteLength === bytes) cache.set(rid, quantizeBinary(blobToVector(embedding)));
  }
}

interface ChunkRow {
  size: number;
  validity: Buffer;
  rowids: Buffer;
  vectors: Buffer;
}

/** The codes being read at open: sqlite-vec's chunks one at a time (`next` of `chunkIds`) into `cache`. */
export interface CodeLoad {
  cache: BinaryCodeCache | null;
  chunkIds: number[];
  chunkStmt: Statement | null;
  next: number;
}

/**
 * Begins reading the codes into `cache` (null: the memory holds no vectors): chunk by chunk from sqlite-vec
 * (loadCodeChunk), or at once from the float vectors without it, or row by row when its chunk tables are
 * not as expected.
 */
export function startCodeLoad(db: Database, cache: BinaryCodeCache | null, logger: Logger): CodeLoad {
  const load: CodeLoad = { cache, chunkIds: [], chunkStmt: null, next: 0 };
  if (cache && !codesInSqliteVec(db)) {
    // No sqlite-vec (or its table lags the records): the codes come from the float vectors.
    readCodesFromVectors(db, cache);
  } else if (cache) {
    try {
      load.chunkIds = db.prepare('SELECT chunk_id FROM vec_bits_chunks ORDER BY chunk_id').pluck().all() as number[];
      load.chunkStmt = db.prepare(
        'SELECT c.size AS size, c.validity AS validity, c.rowids AS rowids, v.vectors AS vectors FROM vec_bits_chunks c JOIN vec_bits_vector_chunks00 v ON v.rowid = c.chunk_id WHERE c.chunk_id = ?',
      );
      cache.reserve(load.chunkIds.length * 1024);
    } catch (error) {
      logger.warn(`cannot read vec_bits chunks (${String(error)}); reading the codes row by row`);
      load.chunkIds = [];
      readCodeRows(db, cache);
    }
  }
  return load;
}

/** Reads one vec0 chunk into the cache; false when done. */
export function loadCodeChunk(load: CodeLoad): boolean {
  const cache = load.cache;
  if (!cache || !load.chunkStmt || load.next >= load.chunkIds.length) return false;
  const chunk = load.chunkStmt.get(load.chunkIds[load.next++]) as ChunkRow | undefined;
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
export function readCodeRows(db: Database, cache: BinaryCodeCache): void {
  cache.clear();
  for (const [rid, code] of db.prepare('SELECT rowid, embedding FROM vec_bits').raw(true).iterate() as Iterable<[number | bigint, Buffer]>) {
    cache.set(Number(rid), code);
  }
}
