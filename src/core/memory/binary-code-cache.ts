import { AgentMemoryError } from '../errors';
import { createHammingKernel, HammingKernel, MAX_HAMMING_BLOCKS } from './hamming-kernel';

/**
 * Sign-bit code of a vector, bit `i` = `v[i] > 0`, least significant bit first
 * in each byte: the same layout as sqlite-vec's `vec_quantize_binary`, so codes
 * read from a `bit[dim]` column and codes computed here compare directly.
 */
export function quantizeBinary(vector: Float32Array): Uint8Array {
  const out = new Uint8Array(Math.ceil(vector.length / 8));
  for (let i = 0; i < vector.length; i++) if (vector[i] > 0) out[i >>> 3] |= 1 << (i & 7);
  return out;
}

/**
 * In-memory copy of the active vectors, keyed by record rowid: binary codes
 * (scanned with the Hamming kernel) and, optionally, the float vectors for
 * exact rescoring. It is a cache: sqlite-vec's `vec_bits` table and
 * `records.embedding` stay the durable data it is loaded from.
 *
 * @example
 * const cache = new BinaryCodeCache(384);
 * cache.set(rid, quantizeBinary(vector), vector);
 * cache.nearest(quantizeBinary(query), 64);  // rids, closest first
 * cache.cosine(rid, query);                  // exact dot product, or null without floats
 */
export class BinaryCodeCache {
  readonly blocks: number;
  private readonly kernel: HammingKernel;
  private codes: Uint8Array;
  private readonly slotOf = new Map<number, number>();
  private ridAt: number[] = [];
  private floats = new Float32Array(0);
  private readonly hasFloat: boolean[] = [];

  constructor(readonly dimension: number, options: { kernel?: HammingKernel } = {}) {
    this.blocks = Math.ceil(dimension / 128);
    if (this.blocks < 1 || this.blocks > MAX_HAMMING_BLOCKS) {
      throw new AgentMemoryError('INVALID_INPUT', `Binary codes support 1 to ${MAX_HAMMING_BLOCKS * 128} dimensions, got ${dimension}.`);
    }
    this.kernel = options.kernel ?? createHammingKernel();
    this.codes = this.kernel.reserve(1024, this.blocks);
  }

  get size(): number {
    return this.ridAt.length;
  }

  get kernelKind(): string {
    return this.kernel.kind;
  }

  has(rid: number): boolean {
    return this.slotOf.has(rid);
  }

  /** Adds or replaces the code of `rid` (`code` holds dimension/8 bytes) and, when given, its float vector. */
  set(rid: number, code: Uint8Array, vector?: Float32Array): void {
    const stride = this.blocks * 16;
    let slot = this.slotOf.get(rid);
    if (slot === undefined) {
      slot = this.ridAt.length;
      this.codes = this.kernel.reserve(slot + 1, this.blocks);
      this.ridAt.push(rid);
      this.slotOf.set(rid, slot);
    }
    const at = slot * stride;
    this.codes.fill(0, at, at + stride);
    this.codes.set(code.subarray(0, Math.min(code.length, stride)), at);
    const dim = this.dimension;
    if (vector && vector.length === dim) {
      if (this.floats.length < (slot + 1) * dim) {
        const next = new Float32Array(Math.max((slot + 1) * dim, Math.ceil(this.floats.length * 1.5), 1024 * dim));
        next.set(this.floats);
        this.floats = next;
      }
      this.floats.set(vector, slot * dim);
      this.hasFloat[slot] = true;
    } else {
      this.hasFloat[slot] = false;
    }
  }

  /** Exact dot product of `query` with the cached float vector of `rid`; null when not cached. */
  cosine(rid: number, query: Float32Array): number | null {
    const slot = this.slotOf.get(rid);
    if (slot === undefined || !this.hasFloat[slot]) return null;
    const f = this.floats;
    const dim = this.dimension;
    let s = 0;
    for (let d = 0, o = slot * dim; d < dim; d++, o++) s += query[d] * f[o];
    return s;
  }

  delete(rid: number): void {
    const slot = this.slotOf.get(rid);
    if (slot === undefined) return;
    const last = this.ridAt.length - 1;
    const stride = this.blocks * 16;
    if (slot !== last) {
      this.codes.copyWithin(slot * stride, last * stride, (last + 1) * stride);
      const moved = this.ridAt[last];
      this.ridAt[slot] = moved;
      this.slotOf.set(moved, slot);
      const dim = this.dimension;
      if (this.hasFloat[last]) this.floats.copyWithin(slot * dim, last * dim, (last + 1) * dim);
      this.hasFloat[slot] = this.hasFloat[last];
    }
    this.ridAt.pop();
    this.hasFloat.pop();
    this.slotOf.delete(rid);
  }

  clear(): void {
    this.slotOf.clear();
    this.ridAt = [];
    this.hasFloat.length = 0;
  }

  /** The `count` rids with the smallest Hamming distance to `queryCode`, closest first. */
  nearest(queryCode: Uint8Array, count: number): number[] {
    const n = this.ridAt.length;
    if (n === 0 || count <= 0) return [];
    const q = this.kernel.query;
    q.fill(0);
    q.set(queryCode.subarray(0, Math.min(queryCode.length, q.length)));
    const dist = this.kernel.scan(n, this.blocks);
    if (count >= n) return [...this.ridAt].map((rid, i) => ({ rid, d: dist[i] })).sort((a, b) => a.d - b.d).map((x) => x.rid);
    // Counting selection: a histogram of distances gives the cut-off in two linear passes.
    const hist = new Uint32Array(this.blocks * 128 + 1);
    for (let i = 0; i < n; i++) hist[dist[i]]++;
    let cut = 0;
    for (let total = 0; cut < hist.length; cut++) {
      total += hist[cut];
      if (total >= count) break;
    }
    const picked: { rid: number; d: number }[] = [];
    let atCut = count - (cut > 0 ? cumulative(hist, cut - 1) : 0);
    for (let i = 0; i < n; i++) {
      const d = dist[i];
      if (d < cut) picked.push({ rid: this.ridAt[i], d });
      else if (d === cut && atCut > 0) {
        picked.push({ rid: this.ridAt[i], d });
        atCut--;
      }
    }
    return picked.sort((a, b) => a.d - b.d).map((x) => x.rid);
  }
}

function cumulative(hist: Uint32Array, upTo: number): number {
  let s = 0;
  for (let i = 0; i <= upTo; i++) s += hist[i];
  return s;
}
