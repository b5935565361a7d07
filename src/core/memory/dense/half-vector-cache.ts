import { RidSlots } from './rid-slots';

/** Largest finite float16 magnitude. */
const HALF_MAX = 65504;
/**
 * Largest rounding error (round to nearest) of a value whose float16 has the
 * exponent field e: half the spacing of float16s at and above it, 2^(e−26)
 * (e = 0, subnormals and zero: 2^-25).
 */
const HALF_ERROR_BY_EXPONENT = Float64Array.from({ length: 32 }, (_, e) => 2 ** (Math.max(e, 1) - 26));
/** Headroom for the float64 summation of the two dot products (≈ dim × 2^-53, far above it here). */
const SUM_MARGIN = 1e-12;

const scratch = new Float32Array(1);
const scratchBits = new Uint32Array(scratch.buffer);

/** The float16 bits nearest to `x` (round to nearest, ties to even), from its float32 rounding. */
export function toHalf(x: number): number {
  scratch[0] = x;
  const f = scratchBits[0];
  const sign = (f >>> 16) & 0x8000;
  const exp = (f >>> 23) & 0xff;
  let mant = f & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    const half = 1 << (shift - 1);
    const rest = mant & ((1 << shift) - 1);
    let out = mant >>> shift;
    if (rest > half || (rest === half && (out & 1) === 1)) out++;
    return sign | out;
  }
  let out = (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (out & 1) === 1)) out++;
  return sign | out;
}

/** The value of float16 bits `h`. */
export function fromHalf(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >>> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

let decodeTable: Float32Array | null = null;

/** All 65,536 float16 values as float32 (256 KB, built once). */
function halfTable(): Float32Array {
  if (!decodeTable) {
    decodeTable = new Float32Array(65536);
    for (let h = 0; h < 65536; h++) decodeTable[h] = fromHalf(h);
  }
  return decodeTable;
}

/** Cosines of a query against cached vectors, each with a rigorous error bound. */
export interface HalfScores {
  /** Dot product with the float16 copy. */
  approx: Float64Array;
  /** |exact float32 dot − approx| ≤ bound. */
  bound: Float64Array;
  /** Same group (0, 1, …) = same 64-bit fingerprint of the float32 vector: equal vectors, hence equal exact cosines. */
  group: Int32Array;
}

/** Two 32-bit hashes (FNV-1a and a multiply-rotate mix) of a vector's float32 bits. */
function fingerprint(bits: Uint32Array, into: Uint32Array, at: number): void {
  let a = 0x811c9dc5;
  let b = 0x9e3779b9;
  for (let i = 0; i < bits.length; i++) {
    const x = bits[i];
    a = Math.imul(a ^ x, 0x01000193);
    b = Math.imul(((b ^ x) << 13) | ((b ^ x) >>> 19), 0x85ebca6b) + i;
  }
  into[at] = a >>> 0;
  into[at + 1] = b >>> 0;
}

/**
 * Float16 copies of the active records' float vectors, keyed by record rowid:
 * 2 bytes per dimension (77 MB at 100k × 384, half the float32 vectors), so
 * the dense side rescores its Hamming candidates in memory instead of reading
 * their float vectors from SQLite (one random page each). A float16 dot
 * product differs from the float32 one by at most Σ|q_i|·err(v̂_i), err =
 * half the float16 spacing at v̂_i (≤ 2^-11·|v̂_i|; 2^-25 for subnormals);
 * `scores` returns that bound with each value, so the
 * caller can read the exact vector of the few candidates whose order it
 * leaves undecided. A 64-bit fingerprint of each float32 vector groups
 * equal vectors (templated memories hold many), whose exact cosines are equal:
 * their order is decided without reading them (a fingerprint collision, odds
 * ~2^-64 per pair, could misorder two records less than 2^-10 apart). A cache:
 * the records' `embedding` column stays the data.
 *
 * `maxBytes` caps what the copies hold (values and fingerprints: dim × 2 + 8
 * bytes per record; MemoryBudget.halfVectorBytes): once `capacity` records
 * have copies, `set` of another record keeps none (it returns false) and the
 * rescoring reads that record's float vector from SQLite instead.
 *
 * @example
 * const halves = new HalfVectorCache(384, { maxBytes: 80e6 });
 * halves.set(rid, vector);
 * const { approx, bound } = halves.scores(query, [rid]);
 */
export class HalfVectorCache {
  private values = new Uint16Array(0);
  private prints = new Uint32Array(0);
  private readonly slots = new RidSlots();
  /** Most records with a copy (from `maxBytes`). */
  readonly capacity: number;

  constructor(readonly dimension: number, options: { maxBytes?: number } = {}) {
    const maxBytes = options.maxBytes ?? Infinity;
    if (!(maxBytes >= 0)) throw new Error(`a float16 cache cannot be capped at ${maxBytes} bytes`);
    this.capacity = Math.floor(maxBytes / this.bytesPerRecord);
  }

  get size(): number {
    return this.slots.size;
  }

  /** Bytes a record's copy takes: its float16 values and its 8-byte fingerprint. */
  get bytesPerRecord(): number {
    return this.dimension * 2 + 8;
  }

  /** Bytes held by the copies (values and fingerprints, with the room reserved for more): at most `maxBytes`. */
  get bytes(): number {
    return this.values.byteLength + this.prints.byteLength;
  }

  /** As many records have copies as the cap allows: `set` of a record without one keeps none. */
  get full(): boolean {
    return this.slots.size >= this.capacity;
  }

  has(rid: number): boolean {
    return this.slots.has(rid);
  }

  /**
   * Adds or replaces the copy of `rid` and says whether it is held: not when the cache is
   * `full` (a copy held already is replaced), nor for a vector float16 cannot hold (a component
   * beyond ±65504 or not finite; any copy of `rid` is dropped).
   */
  set(rid: number, vector: Float32Array): boolean {
    const dim = this.dimension;
    if (vector.length !== dim) throw new Error(`vector of ${vector.length} dimensions in a ${dim}-dimension cache`);
    for (let i = 0; i < dim; i++) {
      if (!(Math.abs(vector[i]) <= HALF_MAX)) {
        this.delete(rid);
        return false;
      }
    }
    if (!this.slots.has(rid) && this.full) return false;
    const slot = this.slots.acquire(rid);
    this.grow(this.slots.size);
    const at = slot * dim;
    for (let i = 0; i < dim; i++) this.values[at + i] = toHalf(vector[i]);
    fingerprint(new Uint32Array(vector.buffer, vector.byteOffset, dim), this.prints, slot * 2);
    return true;
  }

  delete(rid: number): void {
    const move = this.slots.release(rid);
    if (!move || move.from === move.to) return;
    const dim = this.dimension;
    this.values.copyWithin(move.to * dim, move.from * dim, (move.from + 1) * dim);
    this.prints.copyWithin(move.to * 2, move.from * 2, move.from * 2 + 2);
  }

  /** Room for `n` copies in total, within the cap (one growth instead of many during a bulk fill). */
  reserve(n: number): void {
    this.grow(Math.min(n, this.capacity));
  }

  clear(): void {
    this.slots.clear();
    this.values = new Uint16Array(0);
    this.prints = new Uint32Array(0);
  }

  /** Float16 dot products of `query` with the copies of `rids` (every rid must be held: see `has`), with their error bounds. */
  scores(query: Float32Array, rids: readonly number[]): HalfScores {
    const dim = this.dimension;
    const table = halfTable();
    const values = this.values;
    const magnitudes = query.map(Math.abs);
    const approx = new Float64Array(rids.length);
    const bound = new Float64Array(rids.length);
    const group = new Int32Array(rids.length);
    const prints = this.prints;
    // Group by the first hash (no key to build per candidate); the second tells apart the rare vectors that share it.
    const groupOf = new Map<number, number>();
    const slotOfGroup: number[] = [];
    let collisions: Map<string, number> | null = null;
    for (let r = 0; r < rids.length; r++) {
      const slot = this.slots.slot(rids[r]);
      if (slot === undefined) throw new Error(`no float16 copy of record ${rids[r]}`);
      const first = prints[slot * 2];
      let g = groupOf.get(first);
      if (g === undefined) {
        groupOf.set(first, (g = slotOfGroup.length));
        slotOfGroup.push(slot);
      } else if (prints[slotOfGroup[g] * 2 + 1] !== prints[slot * 2 + 1]) {
        const key = `${first}:${prints[slot * 2 + 1]}`;
        collisions ??= new Map();
        let other = collisions.get(key);
        if (other === undefined) {
          collisions.set(key, (other = slotOfGroup.length));
          slotOfGroup.push(slot);
        }
        g = other;
      }
      group[r] = g;
      const at = slot * dim;
      let s = 0;
      let error = 0;
      for (let i = 0; i < dim; i++) {
        const h = values[at + i];
        s += query[i] * table[h];
        error += magnitudes[i] * HALF_ERROR_BY_EXPONENT[(h >>> 10) & 0x1f];
      }
      approx[r] = s;
      bound[r] = error + SUM_MARGIN;
    }
    return { approx, bound, group };
  }

  private grow(n: number): void {
    const need = n * this.dimension;
    if (need <= this.values.length) return;
    const slots = Math.min(Math.max(n, Math.ceil((this.values.length / this.dimension) * 1.5), 1024), this.capacity);
    const next = new Uint16Array(slots * this.dimension);
    next.set(this.values);
    this.values = next;
    const prints = new Uint32Array(slots * 2);
    prints.set(this.prints);
    this.prints = prints;
  }
}
