import { createHash } from 'node:crypto';
import type { Statement } from 'better-sqlite3';
import type { Database } from './database';
import { blobToVector, vectorToBlob } from '../dense/vector-index';

/** SHA-256 of a text (the cache key beside the embedder id; the text itself is never stored). */
export function contentHash(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * Persistent cache of endpoint embeddings in the memory database (table
 * `embedding_cache`, migration 8): one vector per (embedder id, SHA-256 of the
 * text). An endpoint is asked once per text and model: re-embedding unchanged
 * records, a re-embed resumed after a cancel or a failure, and repeated
 * questions read the vector here.
 *
 * @example
 * const cache = new EmbeddingCache(db);
 * cache.put('openai:text-embedding-3-small', [['how many patients?', vector]]);
 * cache.get('openai:text-embedding-3-small', ['how many patients?']); // [vector]
 */
export class EmbeddingCache {
  private readonly getStmt: Statement;
  private readonly putStmt: Statement;
  private readonly countStmt: Statement;

  constructor(private readonly db: Database) {
    this.getStmt = db.prepare('SELECT vector FROM embedding_cache WHERE embedder_id = ? AND text_hash = ?').pluck();
    this.putStmt = db.prepare('INSERT OR REPLACE INTO embedding_cache(embedder_id, text_hash, vector) VALUES (?, ?, ?)');
    this.countStmt = db.prepare('SELECT COUNT(*) FROM embedding_cache WHERE embedder_id = ?').pluck();
  }

  /** The cached vector of each text (undefined where none). */
  get(embedderId: string, texts: readonly string[]): (Float32Array | undefined)[] {
    return texts.map((text) => {
      const blob = this.getStmt.get(embedderId, contentHash(text)) as Buffer | undefined;
      return blob ? blobToVector(blob) : undefined;
    });
  }

  /** Stores the vectors (one transaction). */
  put(embedderId: string, entries: readonly (readonly [string, Float32Array])[]): void {
    if (entries.length === 0) return;
    this.db.transaction(() => {
      for (const [text, vector] of entries) this.putStmt.run(embedderId, contentHash(text), vectorToBlob(vector));
    })();
  }

  /** Number of vectors cached for `embedderId`. */
  size(embedderId: string): number {
    return Number(this.countStmt.get(embedderId));
  }
}
