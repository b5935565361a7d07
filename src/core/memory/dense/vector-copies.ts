import { RidSlots } from './rid-slots';

/**
 * The forms a vector copy for rescoring can take (MemoryBudget.vectorCopyForm):
 * - 'int8': one signed byte per dimension and a per-vector scale (Int8VectorCache): dim + 16 bytes
 *   per record (400 at 384 dimensions: 100k records in 40 MB), wider error bounds;
 * - 'float16': two bytes per dimension (HalfVectorCache): dim × 2 + 8 bytes per record (776 at 384),
 *   bounds about 20× tighter (fewer exact reads per query once every record has a copy).
 */
export const VECTOR_COPY_FORMS = ['int8', 'float16'] as const;
export type VectorCopyForm = (typeof VECTOR_COPY_FORMS)[number];

/** Cosines of a query against cached copies, each with a rigorous error bound. */
export interface CopyScores {
  /** Dot product with the copy. */
  approx: Float64Array;
  /** |exact float32 dot − approx| ≤ bound. */
  bound: Float64Array;
  /** Same group (0, 1, …) = same 64-bit fingerprint of the float32 vector: equal vectors, hence equal exact cosines. */
  group: Int32Array;
}

/** What a copy form's scoring loop is handed once per query. */
export interface QueryTerms {
  query: Float32Array;
  /** |q_i| and q_i². */
  magnitudes: Float64Array;
  squares: Float64Array;
  /** Σ|q_i| and √Σq_i². */
  l1: number;
  l2: number;
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
 * Approximate copies of the active records' float vectors, keyed by record
 * rowid, so the dense side rescores its Hamming candidates in memory instead
 * of reading their float vectors from SQLite (one random page each). Each
 * form (a subclass) returns a rigorous error bound with every approximate
 * dot product, so the caller can read the exact vector of the few candidates
 * whose order it leaves undecided (dense-rescore.ts). A 64-bit fingerprint of
 * each float32 vector groups equal vectors (templated memories hold many),
 * whose exact cosines are equal: their order is decided without reading them
 * (a fingerprint collision, odds ~2^-64 per pair, could misorder two records
 * within their bounds). A cache: the records' `embedding` column stays the data.
 *
 * `maxBytes` caps what the copies hold (`bytesPerRecord` each, fingerprint
 * included; MemoryBudget.vectorCopyBytes): once `capacity` records have
 * copies, `set` of another record keeps none (it returns false) and the
 * rescoring reads that record's float vector from SQLite instead.
 */
export abstract class VectorCopies {
  private prints = new Uint32Array(0);
  private readonly slots = new RidSlots();
  /** Slots the arrays have room for. */
  private room = 0;
  /** Most records with a copy (from `maxBytes`). */
  readonly capacity: number;
  abstract readonly form: VectorCopyForm;

  constructor(readonly dimension: number, options: { maxBytes?: number } = {}) {
    const maxBytes = options.maxBytes ?? Infinity;
    if (!(maxBytes >= 0)) throw new Error(`vector copies cannot be capped at ${maxBytes} bytes`);
    this.capacity = Math.floor(maxBytes / this.bytesPerRecord);
  }

  get size(): number {
    return this.slots.size;
  }

  /** Bytes a record's copy takes: its values, what the form keeps beside them, and its 8-byte fingerprint. */
  get bytesPerRecord(): number {
    return this.valueBytesPerRecord + 8;
  }

  /** Bytes held by the copies (with the room reserved for more): at most `maxBytes`. */
  get bytes(): number {
    return this.room * this.bytesPerRecord;
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
   * `full` (a copy held already is replaced), nor for a vector the form cannot hold (see
   * `holds`; any copy of `rid` is dropped).
   */
  set(rid: number, vector: Float32Array): boolean {
    const dim = this.dimension;
    if (vector.length !== dim) throw new Error(`vector of ${vector.length} dimensions in a ${dim}-dimension cache`);
    if (!this.holds(vector)) {
      this.delete(rid);
      return false;
    }
    if (!this.slots.has(rid) && this.full) return false;
    const slot = this.slots.acquire(rid);
    this.grow(this.slots.size);
    this.encode(slot, vector);
    fingerprint(new Uint32Array(vector.buffer, vector.byteOffset, dim), this.prints, slot * 2);
    return true;
  }

  delete(rid: number): void {
    const move = this.slots.release(rid);
    if (!move || move.from === move.to) return;
    this.moveSlot(move.from, move.to);
    this.prints.copyWithin(move.to * 2, move.from * 2, move.from * 2 + 2);
  }

  /** Room for `n` copies in total, within the cap (one growth instead of many during a bulk fill). */
  reserve(n: number): void {
    this.grow(Math.min(n, this.capacity));
  }

  clear(): void {
    this.slots.clear();
    this.room = 0;
    this.prints = new Uint32Array(0);
    this.resize(0);
  }

  /** Dot products of `query` with the copies of `rids` (every rid must be held: see `has`), with their error bounds. */
  scores(query: Float32Array, rids: readonly number[]): CopyScores {
    const magnitudes = Float64Array.from(query, Math.abs);
    const squares = Float64Array.from(query, (x) => x * x);
    let l1 = 0;
    let sumSquares = 0;
    for (let i = 0; i < query.length; i++) {
      l1 += magnitudes[i];
      sumSquares += squares[i];
    }
    const terms: QueryTerms = { query, magnitudes, squares, l1, l2: Math.sqrt(sumSquares) };
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
      if (slot === undefined) throw new Error(`no ${this.form} copy of record ${rids[r]}`);
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
      this.score(slot, terms, approx, bound, r);
    }
    return { approx, bound, group };
  }

  /** Bytes of a record's values and of what the form keeps beside them (its fingerprint apart). */
  protected abstract get valueBytesPerRecord(): number;
  /** Whether the form can hold `vector` (e.g. float16 cannot hold a component beyond ±65504). */
  protected abstract holds(vector: Float32Array): boolean;
  /** Writes the copy of `vector` into `slot` (room is there). */
  protected abstract encode(slot: number, vector: Float32Array): void;
  /** Copies slot `from`'s values over slot `to`'s. */
  protected abstract moveSlot(from: number, to: number): void;
  /** Gives the form's arrays room for `slots` slots, keeping the first ones' values. */
  protected abstract resize(slots: number): void;
  /** Writes the approximate dot product of the copy in `slot` with the query, and its bound, at `at`. */
  protected abstract score(slot: number, terms: QueryTerms, approx: Float64Array, bound: Float64Array, at: number): void;

  private grow(n: number): void {
    if (n <= this.room) return;
    const slots = Math.min(Math.max(n, Math.ceil(this.room * 1.5), 1024), this.capacity);
    this.resize(slots);
    const prints = new Uint32Array(slots * 2);
    prints.set(this.prints);
    this.prints = prints;
    this.room = slots;
  }
}
