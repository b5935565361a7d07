import { AgentMemoryError } from '../errors';
import { Disposable } from '../events';
import { Logger, nullLogger, tagged } from '../logger';
import { BinaryCodeCache, quantizeBinary } from './binary-code-cache';
import type { MemoryStore } from './store';
import { blobToVector } from './vector-index';

/**
 * Coarse dense candidates for the active records: an in-memory cache of the
 * binary codes held durably by sqlite-vec (`vec_bits`, loaded from it at open),
 * scanned by Hamming distance with a WASM SIMD kernel. The cache follows the
 * store through its derived-index hooks (new activations are applied lazily
 * before the next query) and reloads when another process changed the database
 * or the memory was re-embedded. Exact rescoring happens in HybridSearch.
 *
 * @example
 * const dense = DenseIndex.open(store);
 * dense.candidates(queryVector, 64); // rids, best Hamming first
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
    this.ensureFresh();
    this.drain();
    if (!this.cache) return [];
    if (vector.length !== this.cache.dimension) {
      throw new AgentMemoryError('EMBEDDER_MISMATCH', `Query vector has ${vector.length} dimensions, the memory ${this.cache.dimension}. Re-embed the memory (agent-memory re-embed) or switch back to the embedder it was built with.`);
    }
    return this.cache.nearest(quantizeBinary(vector), count);
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
    const rows = this.store.db.prepare('SELECT rowid AS rid, embedding FROM vec_bits').iterate() as Iterable<{ rid: number | bigint; embedding: Buffer }>;
    for (const row of rows) cache.set(Number(row.rid), row.embedding);
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
    const rows = this.store.db
      .prepare("SELECT rid, embedding FROM records WHERE rid IN (SELECT value FROM json_each(?)) AND status = 'active' AND embedding IS NOT NULL")
      .all(JSON.stringify(rids)) as { rid: number; embedding: Buffer }[];
    for (const row of rows) this.cache.set(row.rid, quantizeBinary(blobToVector(row.embedding)));
  }
}
