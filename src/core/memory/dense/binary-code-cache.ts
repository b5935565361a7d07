import { AgentMemoryError } from '../../errors';
import { createHammingKernel, HammingKernel, MAX_HAMMING_BLOCKS } from './hamming-kernel';
import { RidSlots } from './rid-slots';

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
 * In-memory copy of the active records' binary codes, keyed by record rowid,
 * held directly in the Hamming kernel's memory (one `blocks * 16`-byte slot per
 * record, no per-record objects besides the rid maps). It is a cache:
 * sqlite-vec's `vec_bits` table stays the durable data it is loaded from. Exact
 * rescoring reads the float vectors of the few candidates from the database.
 *
 * @example
 * const cache = new BinaryCodeCache(384);
 * cache.set(rid, quantizeBinary(vector));
 * cache.nearest(quantizeBinary(query), 64);  // rids, closest first
 */
export class BinaryCodeCache {
  readonly blocks: number;
  private readonly kernel: HammingKernel;
  private codes: Uint8Array;
  private readonly slots = new RidSlots();

  constructor(readonly dimension: number, options: { kernel?: HammingKernel } = {}) {
    this.blocks = Math.ceil(dimension / 128);
    if (this.blocks < 1 || this.blocks > MAX_HAMMING_BLOCKS) {
      throw new AgentMemoryError('INVALID_INPUT', `Binary codes support 1 to ${MAX_HAMMING_BLOCKS * 128} dimensions, got ${dimension}.`);
    }
    this.kernel = options.kernel ?? createHammingKernel();
    this.codes = this.kernel.reserve(1024, this.blocks);
  }

  get size(): number {
    return this.slots.size;
  }

  /**
   * Bytes the codes hold in the kernel's memory (with the room reserved for more). Not capped:
   * the candidate scan reads every active record's code (dim/8 bytes: 4.8 MB at 100k × 384).
   */
  get bytes(): number {
    return this.codes.byteLength;
  }

  get kernelKind(): string {
    return this.kernel.kind;
  }

  has(rid: number): boolean {
    return this.slots.has(rid);
  }

  /** The codes (rows of `blocks * 16` bytes) and their rids, in slot order: views valid until the next change. */
  entries(): { codes: Uint8Array; rids: readonly number[] } {
    return { codes: this.codes, rids: this.slots.rids };
  }

  /** Room for `n` codes in total (one growth instead of many during a bulk load). */
  reserve(n: number): void {
    this.codes = this.kernel.reserve(n, this.blocks);
  }

  /** Adds or replaces the code of `rid` (`code` holds dimension/8 bytes). */
  set(rid: number, code: Uint8Array): void {
    const stride = this.blocks * 16;
    const slot = this.slotFor(rid);
    const at = slot * stride;
    if (code.length < stride) this.codes.fill(0, at + code.length, at + stride);
    this.codes.set(code.length > stride ? code.subarray(0, stride) : code, at);
  }

  /** `set` from `bytes` code bytes at `offset` of `source` (bulk loads: no view per record). */
  setFrom(rid: number, source: Uint8Array, offset: number, bytes: number): void {
    const stride = this.blocks * 16;
    const slot = this.slotFor(rid);
    const codes = this.codes;
    const at = slot * stride;
    const n = Math.min(bytes, stride);
    for (let i = 0; i < n; i++) codes[at + i] = source[offset + i];
    for (let i = n; i < stride; i++) codes[at + i] = 0;
  }

  delete(rid: number): void {
    const move = this.slots.release(rid);
    const stride = this.blocks * 16;
    if (move && move.from !== move.to) this.codes.copyWithin(move.to * stride, move.from * stride, (move.from + 1) * stride);
  }

  clear(): void {
    this.slots.clear();
  }

  /** The slot of `rid` (a new one at the end, with room for its code, when it has none). */
  private slotFor(rid: number): number {
    const slot = this.slots.acquire(rid);
    this.codes = this.kernel.reserve(this.slots.size, this.blocks);
    return slot;
  }
  /** The `count` rids with the smallest Hamming distance to `queryCode`, closest first. */
  nearest(queryCode: Uint8Array, count: number): number[] {
    const n = this.slots.size;
    if (n === 0 || count <= 0) return [];
    const q = this.kernel.query;
    q.fill(0);
    q.set(queryCode.subarray(0, Math.min(queryCode.length, q.length)));
    const dist = this.kernel.scan(n, this.blocks);
    if (count >= n) return this.slots.rids.map((rid, i) => ({ rid, d: dist[i] })).sort((a, b) => a.d - b.d).map((x) => x.rid);
    // Selection by a cutoff distance: a histogram of every SAMPLE_STRIDE-th distance estimates the distance
    // below which about twice `count` codes lie; one pass collects every code up to it and, when that is
    // at least `count`, those contain the `count` nearest (a full histogram decides otherwise). Ties at the
    // cutoff go to the lower slots, as a full stable sort would pick.
    const maxDistance = this.blocks * 128;
    let near = collectUpTo(dist, n, cutoffDistance(dist, n, (2 * count) / SAMPLE_STRIDE, SAMPLE_STRIDE, maxDistance));
    if (near.length < count) near = collectUpTo(dist, n, cutoffDistance(dist, n, count, 1, maxDistance));
    const picked = Array.from(near, (slot) => ({ d: dist[slot], slot }));
    picked.sort((a, b) => a.d - b.d || a.slot - b.slot);
    return picked.slice(0, count).map((x) => this.slots.rid(x.slot));
  }
}

/** One distance in this many feeds the cutoff estimate. */
const SAMPLE_STRIDE = 16;

/**
 * The smallest distance at or below which at least `want` of the distances
 * counted lie, counting every `stride`-th of the first `n` (1: all of them,
 * the exact cutoff for `want`; SAMPLE_STRIDE: an estimate from a sample).
 */
function cutoffDistance(dist: Uint16Array, n: number, want: number, stride: number, maxDistance: number): number {
  const hist = new Uint32Array(maxDistance + 1);
  for (let i = 0; i < n; i += stride) hist[dist[i]]++;
  let cutoff = 0;
  for (let seen = hist[0]; seen < want && cutoff < maxDistance; ) seen += hist[++cutoff];
  return cutoff;
}

/** The slots whose distance is at most `cutoff`, in slot order. */
function collectUpTo(dist: Uint16Array, n: number, cutoff: number): number[] {
  const slots: number[] = [];
  for (let i = 0; i < n; i++) if (dist[i] <= cutoff) slots.push(i);
  return slots;
}
