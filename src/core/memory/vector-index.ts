import { AgentMemoryError } from '../errors';
import type { Database } from './database';

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

  constructor(private readonly db: Database) {
    const row = db.prepare("SELECT value FROM meta WHERE key = 'vector_dim'").get() as { value: string } | undefined;
    if (row) this.prepare(Number(row.value));
  }

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
    this.db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS vec_bits USING vec0(embedding bit[${dim}])`);
    this.db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES ('vector_dim', ?)").run(String(dim));
    this.prepare(dim);
  }

  private prepare(dim: number): void {
    this.dim = dim;
    this.stmts = {
      insert: this.db.prepare('INSERT OR REPLACE INTO vec_bits(rowid, embedding) VALUES (?, vec_quantize_binary(?))'),
      remove: this.db.prepare('DELETE FROM vec_bits WHERE rowid = ?'),
      knn: this.db.prepare('SELECT rowid AS rid FROM vec_bits WHERE embedding MATCH vec_quantize_binary(?) AND k = ?'),
    };
  }

  upsert(rid: number, vector: Float32Array): void {
    this.ensure(vector.length);
    this.stmts!.insert.run(BigInt(rid), Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength));
  }

  remove(rid: number): void {
    this.stmts?.remove.run(BigInt(rid));
  }

  /** Drops and re-creates the index (e.g. after re-embedding with another dimension). */
  reset(): void {
    this.db.exec('DROP TABLE IF EXISTS vec_bits');
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
