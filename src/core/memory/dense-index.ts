import { AgentMemoryError } from '../errors';
import { Disposable } from '../events';
import { Logger, nullLogger, tagged } from '../logger';
import { BinaryCodeCache, quantizeBinary } from './binary-code-cache';
import type { MemoryStore } from './store';
import { blobToVector } from './vector-index';

/** One exact dense neighbour. */
export interface DenseHit {
  rid: number;
  /** Exact cosine (dot product of the L2-normalised float vectors). */
  similarity: number;
}

/**
 * Dense search over the active records. An in-memory cache holds the binary
 * codes kept durably by sqlite-vec (`vec_bits`, read from it at open) and the
 * float vectors (from `records.embedding`): a Hamming scan (WASM SIMD kernel)
 * over-fetches candidates, which are rescored exactly with the floats. The
 * cache follows the store through its derived-index hooks (new activations
 * are applied lazily before the next query) and reloads when another process
 * changed the database or the memory was re-embedded. Memory: dim×4 + dim/8
 * bytes per active record (about 155 MB at 100k × 384).
 *
 * @example
 * const dense = DenseIndex.open(store);
 * dense.search(queryVector, 4, 1024); // [{ rid, similarity }], best first
 */
export class DenseIndex {
  private cache: BinaryCodeCache | null = null;
  private readonly pending = new Set<number>();
  private syncedChangeId = -1;
  private readonly subscriptions: Disposable[] = [];
  private readonly logger: Logger;

  private constructor(private readonly store: MemoryStore, logger: Logger) {
    this.logger = tagged(logger, 'dense');
  }

  static open(store: MemoryStore, options: { logger?: Logger } = {}): DenseIndex {
    const index = new DenseIndex(store, options.logger ?? store.log ?? nullLogger);
    index.reload();
    index.subscriptions.push(
      store.addDerivedIndex({
        activated: (records) => {
          for (const r of records) index.pending.add(r.rid);
        },
        deactivated: (rids) => {
          for (const rid of rids) {
            index.pending.delete(rid);
            index.cache?.delete(rid);
          }
        },
      }),
      store.onDidChange((event) => {
        if (event.kind === 'reembedded' || event.kind === 'reset') index.reload();
        else index.syncedChangeId = store.changeId;
      }),
    );
    return index;
  }

  /** Number of active vectors (including ones queued). */
  get size(): number {
    return (this.cache?.size ?? 0) + this.pending.size;
  }

  get dimension(): number | null {
    return this.store.vectors.dimension;
  }

  /** Which Hamming kernel is in use ('wasm-simd' or 'js'). */
  get kernelKind(): string | null {
    return this.cache?.kernelKind ?? null;
  }

  /** Up to `count` active rids nearest to `vector` by Hamming distance of the sign codes. */
  candidates(vector: Float32Array, count: number): number[] {
    const cache = this.ready(vector);
    return cache ? cache.nearest(quantizeBinary(vector), count) : [];
  }

  /** The `k` best of `candidates` coarse candidates, by exact cosine. */
  search(vector: Float32Array, k: number, candidates: number): DenseHit[] {
    const cache = this.ready(vector);
    if (!cache) return [];
    const hits: DenseHit[] = [];
    for (const rid of cache.nearest(quantizeBinary(vector), Math.max(k, candidates))) {
      const similarity = cache.cosine(rid, vector);
      if (similarity === null) continue;
      if (hits.length === k && similarity <= hits[k - 1].similarity) continue;
      let i = hits.length < k ? hits.length : k - 1;
      if (hits.length < k) hits.push({ rid, similarity });
      while (i > 0 && hits[i - 1].similarity < similarity) {
        hits[i] = hits[i - 1];
        i--;
      }
      hits[i] = { rid, similarity };
    }
    return hits;
  }

  /** Exact cosine with an active record's cached vector (null when it has none). */
  cosine(rid: number, vector: Float32Array): number | null {
    return this.ready(vector)?.cosine(rid, vector) ?? null;
  }

  private ready(vector: Float32Array): BinaryCodeCache | null {
    this.ensureFresh();
    this.drain();
    if (!this.cache) return null;
    if (vector.length !== this.cache.dimension) {
      throw new AgentMemoryError('EMBEDDER_MISMATCH', `Query vector has ${vector.length} dimensions, the memory ${this.cache.dimension}. Re-embed the memory (agent-memory re-embed) or switch back to the embedder it was built with.`);
    }
    return this.cache;
  }

  /** Re-reads every code from sqlite-vec. */
  reload(): void {
    this.pending.clear();
    this.syncedChangeId = this.store.changeId;
    const dim = this.store.vectors.dimension;
    if (dim === null) {
      this.cache = null;
      return;
    }
    const cache = new BinaryCodeCache(dim);
    const codes = new Map<number, Buffer>();
    for (const row of this.store.connectionForQueries().prepare('SELECT rowid AS rid, embedding FROM vec_bits').iterate() as Iterable<{ rid: number | bigint; embedding: Buffer }>) {
      codes.set(Number(row.rid), row.embedding);
    }
    const floats = this.store.connectionForQueries().prepare("SELECT rid, embedding FROM records WHERE status = 'active' AND embedding IS NOT NULL").iterate() as Iterable<{ rid: number; embedding: Buffer }>;
    for (const row of floats) {
      const code = codes.get(row.rid);
      if (code) cache.set(row.rid, code, blobToVector(row.embedding));
    }
    this.cache = cache;
    this.logger.debug(`loaded ${cache.size} binary codes (${cache.kernelKind} kernel)`);
  }

  dispose(): void {
    for (const s of this.subscriptions.splice(0)) s.dispose();
  }

  private ensureFresh(): void {
    const current = this.store.changeId;
    if (current === this.syncedChangeId) return;
    this.logger.info(`database changed outside this process (change ${this.syncedChangeId} → ${current}); reloading codes`);
    this.reload();
  }

  private drain(): void {
    if (this.pending.size === 0) return;
    const rids = [...this.pending];
    this.pending.clear();
    const dim = this.store.vectors.dimension;
    if (dim === null) return;
    if (!this.cache || this.cache.dimension !== dim) this.cache = new BinaryCodeCache(dim);
    const rows = this.store.connectionForQueries()
      .prepare("SELECT rid, embedding FROM records WHERE rid IN (SELECT value FROM json_each(?)) AND status = 'active' AND embedding IS NOT NULL")
      .all(JSON.stringify(rids)) as { rid: number; embedding: Buffer }[];
    for (const row of rows) {
      const vector = blobToVector(row.embedding);
      this.cache.set(row.rid, quantizeBinary(vector), vector);
    }
  }
}
