import { AgentMemoryError } from '../../errors';
import type { Database } from '../sqlite/database';
import { vectorExtensionOf } from '../sqlite/native-sqlite';

/**
 * `meta` key set while the memory is written without sqlite-vec: `vec_bits` then lags the
 * records, and is rebuilt from `records.embedding` the next time a connection with the
 * extension opens the store (the float vectors are the source of truth).
 */
export const VEC_BITS_STALE_KEY = 'vec_bits_stale';

export interface VectorHit {
  rid: number;
  /** Cosine similarity in [-1, 1] (exact, from the float vectors). */
  similarity: number;
}

/**
 * sqlite-vec index over ACTIVE records only. Two vec0 tables:
 * - `vec_bits` (bit[dim], binary quantisation) for a fast coarse Hamming scan,
 * - exact cosine rescoring of the over-fetched candidates from `records.embedding`.
 * Pending and deleted records are not in the index, so retrieval never sees them.
 *
 * Without sqlite-vec (a platform it has no binary for) the vec0 table cannot be touched: writes
 * only mark it stale (VEC_BITS_STALE_KEY) and DenseIndex reads the codes from the float vectors.
 *
 * @example
 * const index = new VectorIndex(db); index.ensure(384);
 * index.upsert(rid, vector); index.search(query, 4);
 */
export class VectorIndex {
  private dim: number | null = null;
  private stmts: {
    insert: import('better-sqlite3').Statement;
    remove: import('better-sqlite3').Statement;
    knn: import('better-sqlite3').Statement;
  } | null = null;

  /** Whether sqlite-vec is loaded into this connection (false: the in-process fallback). */
  readonly native: boolean;

  constructor(private readonly db: Database) {
    this.native = vectorExtensionOf(db).loaded;
    const row = db.prepare("SELECT value FROM meta WHERE key = 'vector_dim'").get() as { value: string } | undefined;
    if (row) this.prepare(Number(row.value));
    if (this.native && !db.readonly && this.isStale()) this.rebuild();
  }

  /** True while `vec_bits` lags the records (written without sqlite-vec). */
  isStale(): boolean {
    return this.db.prepare('SELECT 1 FROM meta WHERE key = ?').get(VEC_BITS_STALE_KEY) !== undefined;
  }

  /** Re-creates `vec_bits` from the active records' float vectors, in one transaction. */
  private rebuild(): void {
    const dim = this.dim;
    this.db.transaction(() => {
      this.db.exec('DROP TABLE IF EXISTS vec_bits');
      this.dim = null;
      this.stmts = null;
      if (dim !== null) {
        this.ensure(dim);
        const page = this.db.prepare("SELECT rid, embedding FROM records WHERE rid > ? AND status = 'active' AND embedding IS NOT NULL AND length(embedding) = ? ORDER BY rid LIMIT 1024").raw(true);
        for (let rows = page.all(0, dim * 4) as [number, Buffer][]; rows.length > 0; rows = page.all(rows[rows.length - 1][0], dim * 4) as [number, Buffer][]) {
          for (const [rid, embedding] of rows) this.stmts!.insert.run(BigInt(rid), embedding);
        }
      }
      this.db.prepare('DELETE FROM meta WHERE key = ?').run(VEC_BITS_STALE_KEY);
    }).immediate();
  }

  /** Without sqlite-vec: records, in the caller's transaction, that `vec_bits` no longer matches the records. */
  private markStale(): void {
    (this.staleStmt ??= this.db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES (?, '1')")).run(VEC_BITS_STALE_KEY);
  }
  private staleStmt: import('better-sqlite3').Statement | null = null;

  get dimension(): number | null {
    return this.dim;
  }

  /** Creates the vec0 tables for `dim` if absent; throws if they exist with another dimension. */
  ensure(dim: number): void {
    if (!Number.isInteger(dim) || dim <= 0 || dim % 8 !== 0) {
      throw new AgentMemoryError('INVALID_INPUT', `Vector dimension must be a positive multiple of 8, got ${dim}.`);
    }
    if (this.dim === dim) return;
    if (this.dim !== null) {
      throw new AgentMemoryError('EMBEDDER_MISMATCH', `The vector index holds ${this.dim}-dimensional vectors but ${dim} were given. Run "Agent Memory: Re-embed" to rebuild it with the current embedder.`, { stored: this.dim, given: dim });
    }
    if (this.native) this.db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS vec_bits USING vec0(embedding bit[${dim}])`);
    else this.markStale();
    this.db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES ('vector_dim', ?)").run(String(dim));
    this.prepare(dim);
  }

  private prepare(dim: number): void {
    this.dim = dim;
    if (!this.native) return;
    this.stmts = {
      insert: this.db.prepare('INSERT OR REPLACE INTO vec_bits(rowid, embedding) VALUES (?, vec_quantize_binary(?))'),
      remove: this.db.prepare('DELETE FROM vec_bits WHERE rowid = ?'),
      knn: this.db.prepare('SELECT rowid AS rid FROM vec_bits WHERE embedding MATCH vec_quantize_binary(?) AND k = ?'),
    };
  }

  upsert(rid: number, vector: Float32Array): void {
    this.ensure(vector.length);
    if (!this.stmts) return this.markStale();
    this.stmts.insert.run(BigInt(rid), Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength));
  }

  remove(rid: number): void {
    if (this.stmts) this.stmts.remove.run(BigInt(rid));
    else if (this.dim !== null) this.markStale();
  }

  /** Drops and re-creates the index (e.g. after re-embedding with another dimension). */
  reset(): void {
    if (this.native) this.db.exec('DROP TABLE IF EXISTS vec_bits');
    else this.markStale();
    this.db.prepare("DELETE FROM meta WHERE key = 'vector_dim'").run();
    this.dim = null;
    this.stmts = null;
  }

  /**
   * Coarse candidates by sqlite-vec's own `bit[dim]` KNN. Retrieval scans the same codes with the
   * WASM Hamming kernel instead (DenseIndex: ~10× faster at 100k, see bench:retrieval, which
   * measures both side by side); this stays as the reference that reads the durable index directly.
   */
  candidates(query: Float32Array, count: number): number[] {
    if (!this.native) throw new AgentMemoryError('INVALID_STATE', 'sqlite-vec is not loaded on this platform, so its bit KNN cannot run; retrieval uses the in-process kernel (DenseIndex) instead.');
    if (!this.stmts) return [];
    if (query.length !== this.dim) {
      throw new AgentMemoryError('EMBEDDER_MISMATCH', `Query vector has ${query.length} dimensions, the index ${this.dim}. Re-embed the memory or switch back to the embedder it was built with.`);
    }
    const rows = this.stmts.knn.all(Buffer.from(query.buffer, query.byteOffset, query.byteLength), count) as { rid: number | bigint }[];
    return rows.map((r) => Number(r.rid));
  }
}

/** Cosine of two L2-normalised vectors (plain dot product). */
export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

export function vectorToBlob(v: Float32Array): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

export function blobToVector(b: Buffer): Float32Array {
  // Copy: the Buffer may be a view on a pooled ArrayBuffer with arbitrary alignment.
  const copy = new Uint8Array(b.byteLength);
  copy.set(b);
  return new Float32Array(copy.buffer);
}
