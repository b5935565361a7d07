import { createHammingKernel, HammingKernel } from './hamming-kernel';
import { CentroidScan } from './ivf-train';
import { RidTable } from '../rid-table';

/** What DenseIndex asks of its codes: BinaryCodeCache (a full scan) or IvfCodeIndex (a few lists). */
export interface CodeSearch {
  readonly dimension: number;
  readonly size: number;
  readonly kernelKind: string;
  has(rid: number): boolean;
  set(rid: number, code: Uint8Array): void;
  delete(rid: number): void;
  nearest(queryCode: Uint8Array, count: number): number[];
  /** Bytes the codes (and the structure over them) hold in memory. */
  readonly bytes: number;
}

/**
 * Share of the codes a query scans at least (the nearest lists first), and codes scanned at least per candidate
 * asked: 96 × 128 candidates = 12,288 codes, a quarter of them at 50k and an eighth at 100k (recall@4 against the
 * exact float scan as the full scan's there; 64 per candidate kept 96 % of the full scan's candidates at 100k and
 * lost one top-4 hit in 800), 1/32 from 400k on.
 */
export const IVF_PROBE_FRACTION = 1 / 32;
export const IVF_MIN_SCAN_PER_CANDIDATE = 96;
/** Codes placed per step of an open across event-loop turns (a few ms each). */
export const IVF_BUILD_CHUNK = 32_768;
/** A code assigned to its nearest centroid costs this many placed codes of a step. */
export const IVF_ASSIGN_COST = 64;

/** An inverted file laid out in steps (see {@link IvfCodeIndex.builder}). */
export interface IvfBuilder {
  readonly index: IvfCodeIndex;
  /** Does the next chunk of work; false once the index is complete. */
  step(): boolean;
}

/**
 * An inverted file over the binary codes: each code sits in the list of its
 * nearest binary centroid (ivf-train.ts), the lists laid out one after the
 * other in the Hamming kernel's memory with some room at the end of each. A
 * query scans the centroids, then the nearest lists until it has compared
 * IVF_PROBE_FRACTION of the codes (and IVF_MIN_SCAN_PER_CANDIDATE per
 * candidate asked), and returns the nearest codes among those: the full scan
 * of a million codes becomes one of ~1,000 centroids and ~3 % of the codes.
 *
 * A new code goes to the end of its list, or, when that list is full, to an
 * overflow area every query scans; when the overflow fills, the lists are
 * laid out again with room for their overflow. A deleted code's slot takes
 * its list's last code. The centroids are not retrained here (DenseIndex
 * trains anew when the memory has grown well past the trained size).
 *
 * @example
 * const ivf = IvfCodeIndex.build(384, centroids, codes, rids, lists);
 * ivf.nearest(quantizeBinary(query), 128);  // rids, closest first (approximate)
 */
export class IvfCodeIndex implements CodeSearch {
  readonly blocks: number;
  private readonly stride: number;
  private readonly quantiser: CentroidScan;
  private readonly kernel: HammingKernel;
  private codes: Uint8Array = new Uint8Array(0);
  /** Per list (the last one is the overflow): first slot, codes held, slots reserved. */
  private start = new Int32Array(0);
  private len = new Int32Array(0);
  private cap = new Int32Array(0);
  private ridAt = new Float64Array(0);
  private listAt = new Int32Array(0);
  /** Slot of each rid held (rid-indexed: no Map of a million entries to build at open). */
  private readonly slotOf = new RidTable();
  probeFraction = IVF_PROBE_FRACTION;

  /** Bytes the codes, the centroids and the lists hold (with the room reserved at the end of each list). */
  get bytes(): number {
    return this.codes.byteLength + this.centroids.byteLength + this.start.byteLength + this.len.byteLength + this.cap.byteLength + this.ridAt.byteLength + this.listAt.byteLength;
  }

  private constructor(readonly dimension: number, readonly centroids: Uint8Array, readonly trainedSize: number) {
    this.blocks = Math.ceil(dimension / 128);
    this.stride = this.blocks * 16;
    this.quantiser = new CentroidScan(centroids, this.blocks);
    this.kernel = createHammingKernel();
  }

  /**
   * The index over `rids` and their codes (rows of `blocks * 16` bytes in
   * `codes`), each code in list `lists[i]` (null, or an entry outside the
   * lists: its nearest centroid).
   */
  static build(dimension: number, centroids: Uint8Array, codes: Uint8Array, rids: readonly number[], lists: Int32Array | null, trainedSize = rids.length): IvfCodeIndex {
    const builder = IvfCodeIndex.builder(dimension, centroids, codes, rids, lists, trainedSize);
    while (builder.step());
    return builder.index;
  }

  /**
   * {@link build} in steps of about `chunk` codes each (an open across event-loop turns): `step()` until
   * it answers false, then `index` is complete. `codes` and `rids` must not change in between.
   */
  static builder(dimension: number, centroids: Uint8Array, codes: Uint8Array, rids: readonly number[], lists: Int32Array | null, trainedSize = rids.length, chunk = IVF_BUILD_CHUNK): IvfBuilder {
    const index = new IvfCodeIndex(dimension, centroids, trainedSize);
    const n = rids.length;
    const assigned = lists ?? new Int32Array(n).fill(-1);
    let i = 0;
    let place: ((begin: number, end: number) => void) | null = null;
    const step = (): boolean => {
      if (!place) {
        // A code without a list scans every centroid: it counts as IVF_ASSIGN_COST codes of the chunk.
        for (let budget = chunk; i < n && budget > 0; i++) {
          if (assigned[i] >= 0 && assigned[i] < index.lists) {
            budget--;
            continue;
          }
          assigned[i] = index.quantiser.nearest(codes.subarray(i * index.stride, (i + 1) * index.stride));
          budget -= IVF_ASSIGN_COST;
        }
        if (i === n) {
          place = index.startLayOut(n, assigned, rids, codes, null);
          i = 0;
        }
        return true;
      }
      const end = Math.min(n, i + chunk);
      place(i, end);
      i = end;
      return i < n;
    };
    return { index, step };
  }

  get size(): number {
    return this.slotOf.size;
  }

  get lists(): number {
    return this.quantiser.count;
  }

  get kernelKind(): string {
    return this.kernel.kind;
  }

  has(rid: number): boolean {
    return this.slotOf.get(rid) >= 0;
  }

  /** The rids held and the list of each (for persisting the assignment). */
  assignment(): { rids: Float64Array; lists: Int32Array } {
    const rids = new Float64Array(this.size);
    const lists = new Int32Array(this.size);
    let i = 0;
    for (const slot of this.heldSlots()) {
      rids[i] = this.ridAt[slot];
      const list = this.listAt[slot];
      // An overflow code belongs to its nearest list.
      lists[i++] = list === this.quantiser.count ? this.quantiser.nearest(this.codeAt(slot)) : list;
    }
    return { rids, lists };
  }

  set(rid: number, code: Uint8Array): void {
    const list = this.quantiser.nearest(code);
    const held = this.slotOf.get(rid);
    if (held >= 0) {
      if (this.listAt[held] === list) return this.writeCode(held, code);
      this.delete(rid);
    }
    const overflow = this.quantiser.count;
    let target = this.len[list] < this.cap[list] ? list : overflow;
    if (target === overflow && this.len[overflow] >= this.cap[overflow]) {
      this.relayOut();
      target = this.len[list] < this.cap[list] ? list : overflow;
    }
    const slot = this.start[target] + this.len[target]++;
    this.writeCode(slot, code);
    this.ridAt[slot] = rid;
    this.listAt[slot] = target;
    this.slotOf.set(rid, slot);
  }

  delete(rid: number): void {
    const slot = this.slotOf.get(rid);
    if (slot < 0) return;
    const list = this.listAt[slot];
    const last = this.start[list] + --this.len[list];
    if (last !== slot) {
      this.codes.copyWithin(slot * this.stride, last * this.stride, (last + 1) * this.stride);
      this.ridAt[slot] = this.ridAt[last];
      this.slotOf.set(this.ridAt[slot], slot);
    }
    this.slotOf.delete(rid);
  }

  /** The `count` rids nearest to `queryCode` among the probed lists (and the overflow), closest first. */
  nearest(queryCode: Uint8Array, count: number): number[] {
    const n = this.size;
    if (n === 0 || count <= 0) return [];
    const maxDistance = this.blocks * 128;
    const order = this.listsByDistance(queryCode, maxDistance);
    const q = this.kernel.query;
    q.fill(0);
    q.set(queryCode.subarray(0, Math.min(queryCode.length, q.length)));
    const want = Math.min(n, Math.max(count * IVF_MIN_SCAN_PER_CANDIDATE, Math.ceil(n * this.probeFraction)));
    const probed = [this.quantiser.count];
    let covered = this.len[this.quantiser.count];
    for (let i = 0; i < order.length && covered < want; i++) {
      probed.push(order[i]);
      covered += this.len[order[i]];
    }
    let dist: Uint16Array = new Uint16Array(0);
    for (const list of probed) dist = this.kernel.scanRange(this.start[list], this.len[list], this.blocks);
    // The exact cutoff for `count` among the distances scanned, then the slots up to it, nearest first.
    const hist = new Uint32Array(maxDistance + 1);
    for (const list of probed) for (let s = this.start[list], end = s + this.len[list]; s < end; s++) hist[dist[s]]++;
    let cutoff = 0;
    for (let seen = hist[0]; seen < count && cutoff < maxDistance; ) seen += hist[++cutoff];
    const picked: { d: number; slot: number }[] = [];
    for (const list of probed) {
      for (let s = this.start[list], end = s + this.len[list]; s < end; s++) if (dist[s] <= cutoff) picked.push({ d: dist[s], slot: s });
    }
    picked.sort((a, b) => a.d - b.d || this.ridAt[a.slot] - this.ridAt[b.slot]);
    return picked.slice(0, count).map((p) => this.ridAt[p.slot]);
  }

  /** The lists, nearest centroid first (a counting sort by distance; equals by list number). */
  private listsByDistance(queryCode: Uint8Array, maxDistance: number): Int32Array {
    const dist = this.quantiser.distances(queryCode);
    const lists = this.quantiser.count;
    const firstAt = new Int32Array(maxDistance + 2);
    for (let i = 0; i < lists; i++) firstAt[dist[i] + 1]++;
    for (let d = 1; d <= maxDistance + 1; d++) firstAt[d] += firstAt[d - 1];
    const order = new Int32Array(lists);
    for (let i = 0; i < lists; i++) order[firstAt[dist[i]]++] = i;
    return order;
  }

  private codeAt(slot: number): Uint8Array {
    return this.codes.subarray(slot * this.stride, (slot + 1) * this.stride);
  }

  private writeCode(slot: number, code: Uint8Array): void {
    const at = slot * this.stride;
    const n = Math.min(code.length, this.stride);
    this.codes.set(n < code.length ? code.subarray(0, n) : code, at);
    if (n < this.stride) this.codes.fill(0, at + n, at + this.stride);
  }

  /** Lays the codes out again (overflow codes back in their lists), with fresh room in every list. */
  private relayOut(): void {
    const slots = this.heldSlots();
    const old = this.codes.slice();
    const overflow = this.quantiser.count;
    const lists = Int32Array.from(slots, (slot) => (this.listAt[slot] === overflow ? this.quantiser.nearest(old.subarray(slot * this.stride, (slot + 1) * this.stride)) : this.listAt[slot]));
    const rids = Float64Array.from(slots, (slot) => this.ridAt[slot]);
    this.startLayOut(slots.length, lists, rids, old, slots)(0, slots.length);
  }

  /** The slots holding a code, list by list (the overflow last). */
  private heldSlots(): Int32Array {
    const out = new Int32Array(this.size);
    let i = 0;
    for (let l = 0; l < this.len.length; l++) for (let s = this.start[l], end = s + this.len[l]; s < end; s++) out[i++] = s;
    return out;
  }

  /**
   * Makes room for `n` codes, list by list, each list with room for an eighth more (and 4), plus the
   * overflow area; the function returned places codes `begin … end - 1`: code `i` (row `from[i]` of
   * `source`, or row `i`) of rid `rids[i]` into list `lists[i]` (each code once, in any order of ranges).
   */
  private startLayOut(n: number, lists: Int32Array, rids: ArrayLike<number>, source: Uint8Array, from: Int32Array | null): (begin: number, end: number) => void {
    const count = this.quantiser.count;
    this.len = new Int32Array(count + 1);
    for (let i = 0; i < n; i++) this.len[lists[i]]++;
    this.cap = new Int32Array(count + 1);
    this.start = new Int32Array(count + 1);
    let total = 0;
    for (let l = 0; l <= count; l++) {
      this.cap[l] = l === count ? Math.max(1024, Math.ceil(n / 64)) : this.len[l] + (this.len[l] >> 3) + 4;
      this.start[l] = total;
      total += this.cap[l];
    }
    this.codes = this.kernel.reserve(total, this.blocks);
    this.ridAt = new Float64Array(total);
    this.listAt = new Int32Array(total);
    // Lists fill from their start as codes are placed (len counts the codes placed so far).
    const next = this.start.slice();
    this.len.fill(0);
    this.slotOf.clear();
    const copy = codeCopier(source, this.codes, this.stride);
    return (begin, end) => {
      for (let i = begin; i < end; i++) {
        const list = lists[i];
        const slot = next[list]++;
        this.len[list]++;
        copy(from ? from[i] : i, slot);
        const rid = rids[i];
        this.ridAt[slot] = rid;
        this.listAt[slot] = list;
        this.slotOf.set(rid, slot);
      }
    };
  }
}

/**
 * Copies row `from` of `source` to row `to` of `into` (`stride`-byte rows): 32-bit words when both are
 * aligned (no view object per code: a million of them at open), else bytes.
 */
function codeCopier(source: Uint8Array, into: Uint8Array, stride: number): (from: number, to: number) => void {
  if (source.byteOffset % 4 === 0 && into.byteOffset % 4 === 0 && stride % 4 === 0) {
    const src = new Int32Array(source.buffer, source.byteOffset, source.byteLength >>> 2);
    const dst = new Int32Array(into.buffer, into.byteOffset, into.byteLength >>> 2);
    const words = stride >>> 2;
    return (from, to) => {
      for (let w = 0, a = from * words, b = to * words; w < words; w++) dst[b + w] = src[a + w];
    };
  }
  return (from, to) => into.set(source.subarray(from * stride, (from + 1) * stride), to * stride);
}
