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
