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
  private readonly slotOf = new Map<number, number>();
  private ridAt: number[] = [];

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

  /** Room for `n` codes in total (one growth instead of many during a bulk load). */
  reserve(n: number): void {
    this.codes = this.kernel.reserve(n, this.blocks);
  }

  /** Adds or replaces the code of `rid` (`code` holds dimension/8 bytes). */
  set(rid: number, code: Uint8Array): void {
    const stride = this.blocks * 16;
    let slot = this.slotOf.get(rid);
    if (slot === undefined) {
      slot = this.ridAt.length;
      this.codes = this.kernel.reserve(slot + 1, this.blocks);
      this.ridAt.push(rid);
      this.slotOf.set(rid, slot);
    }
    const at = slot * stride;
    if (code.length < stride) this.codes.fill(0, at + code.length, at + stride);
    this.codes.set(code.length > stride ? code.subarray(0, stride) : code, at);
  }

  /** `set` from `bytes` code bytes at `offset` of `source` (bulk loads: no view per record). */
  setFrom(rid: number, source: Uint8Array, offset: number, bytes: number): void {
    const stride = this.blocks * 16;
    let slot = this.slotOf.get(rid);
    if (slot === undefined) {
      slot = this.ridAt.length;
      this.codes = this.kernel.reserve(slot + 1, this.blocks);
      this.ridAt.push(rid);
      this.slotOf.set(rid, slot);
    }
    const codes = this.codes;
    const at = slot * stride;
    const n = Math.min(bytes, stride);
    for (let i = 0; i < n; i++) codes[at + i] = source[offset + i];
    for (let i = n; i < stride; i++) codes[at + i] = 0;
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
    }
    this.ridAt.pop();
    this.slotOf.delete(rid);
  }

  clear(): void {
    this.slotOf.clear();
    this.ridAt = [];
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
    // One pass with a bounded max-heap of (distance, slot): the `count` smallest, ties to the lower
    // slot (a later slot at the heap's largest distance never enters), as a full stable sort would pick.
    const heapD = new Int32Array(count);
    const heapS = new Int32Array(count);
    let size = 0;
    for (let i = 0; i < n; i++) {
      const d = dist[i];
      if (size === count) {
        if (d >= heapD[0]) continue;
        siftDown(heapD, heapS, size, d, i);
      } else siftUp(heapD, heapS, size++, d, i);
    }
    const picked = Array.from({ length: size }, (_, j) => ({ d: heapD[j], slot: heapS[j] }));
    picked.sort((a, b) => a.d - b.d || a.slot - b.slot);
    return picked.map((x) => this.ridAt[x.slot]);
  }
}

/** (d, slot) a before b in a max-heap: larger distance first, then larger slot. */
function above(dA: number, sA: number, dB: number, sB: number): boolean {
  return dA > dB || (dA === dB && sA > sB);
}

function siftUp(heapD: Int32Array, heapS: Int32Array, at: number, d: number, slot: number): void {
  let i = at;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (!above(d, slot, heapD[parent], heapS[parent])) break;
    heapD[i] = heapD[parent];
    heapS[i] = heapS[parent];
    i = parent;
  }
  heapD[i] = d;
  heapS[i] = slot;
}

/** Replaces the root (the largest) by (d, slot) and restores the heap. */
function siftDown(heapD: Int32Array, heapS: Int32Array, size: number, d: number, slot: number): void {
  let i = 0;
  for (;;) {
    let child = 2 * i + 1;
    if (child >= size) break;
    if (child + 1 < size && above(heapD[child + 1], heapS[child + 1], heapD[child], heapS[child])) child++;
    if (!above(heapD[child], heapS[child], d, slot)) break;
    heapD[i] = heapD[child];
    heapS[i] = heapS[child];
    i = child;
  }
  heapD[i] = d;
  heapS[i] = slot;
}
