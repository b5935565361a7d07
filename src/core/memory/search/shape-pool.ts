/**
 * Storage of the re-ranking's per-record shapes (question-shape-store.ts):
 * each distinct packed shape (a Uint32Array of word ids, see SHAPE_LISTS) is
 * held once in one growing typed array, with the number of records holding
 * it; records map to a shape id through a rid-indexed table. A memory of
 * templated questions holds many records of the same shape (at 100k synthetic
 * EHRSQL records, 40 % of the shapes are distinct), and one arena instead of a
 * typed array per record keeps a million records in tens of MB, readable and
 * savable as a few flat arrays.
 *
 * @example
 * const pool = new ShapePool();
 * const id = pool.intern(packed);   // the id of an equal shape already held, or a new one
 * pool.view(id);                    // the packed shape (valid until the next intern)
 * pool.release(id);                 // one record fewer holds it; freed at zero
 */

/** Words in use from which a pool with at least half of them freed is compacted. */
const COMPACT_MIN_WORDS = 1 << 16;

/** A 53-bit hash of a packed shape (cyrb53 over its 32-bit words). */
function hashShape(shape: Uint32Array): number {
  let h1 = 0xdeadbeef ^ shape.length;
  let h2 = 0x41c6ce57 ^ shape.length;
  for (let i = 0; i < shape.length; i++) {
    const w = shape[i];
    h1 = Math.imul(h1 ^ w, 2654435761);
    h2 = Math.imul(h2 ^ w, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

function equal(a: Uint32Array, b: Uint32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Distinct packed shapes with their record counts (see the module comment). */
export class ShapePool {
  private data = new Uint32Array(4096);
  private used = 0;
  private garbage = 0;
  /** Per shape id: first word in `data` (-1: free), length, records holding it. */
  private start = new Int32Array(256).fill(-1);
  private length = new Int32Array(256);
  private refs = new Int32Array(256);
  private ids = 0;
  private readonly free: number[] = [];
  /** Hash → the id holding that content (a rare hash collision keeps its own copy, unlisted). */
  private readonly byHash = new Map<number, number>();

  /** Distinct shapes held. */
  get distinct(): number {
    return this.ids - this.free.length;
  }

  /** Bytes the arena and its tables hold. */
  get bytes(): number {
    return this.data.byteLength + this.start.byteLength + this.length.byteLength + this.refs.byteLength;
  }

  /** One more record holds `shape`: the id of an equal shape held, or a new one. */
  intern(shape: Uint32Array): number {
    const hash = hashShape(shape);
    const held = this.byHash.get(hash);
    if (held !== undefined && equal(this.view(held), shape)) {
      this.refs[held]++;
      return held;
    }
    const id = this.add(shape, 1);
    if (held === undefined) this.byHash.set(hash, id);
    return id;
  }

  /** The packed shape of `id` (a view: valid until the next intern or compaction). */
  view(id: number): Uint32Array {
    const at = this.start[id];
    return this.data.subarray(at, at + this.length[id]);
  }

  /** Records holding shape `id`. */
  refsOf(id: number): number {
    return this.refs[id];
  }

  /** One record fewer holds shape `id`; freed when none does. */
  release(id: number): void {
    if (--this.refs[id] > 0) return;
    const shape = this.view(id);
    const hash = hashShape(shape);
    if (this.byHash.get(hash) === id) this.byHash.delete(hash);
    this.garbage += shape.length;
    this.start[id] = -1;
    this.free.push(id);
    if (this.used >= COMPACT_MIN_WORDS && this.garbage * 2 > this.used) this.compact();
  }

  /** Adds a shape held by `refs` records without looking for an equal one (restoring a saved pool of distinct shapes). */
  add(shape: Uint32Array, refs: number): number {
    const id = this.free.pop() ?? this.ids++;
    if (id >= this.start.length) this.growIds(id + 1);
    if (this.used + shape.length > this.data.length) this.growData(this.used + shape.length);
    this.data.set(shape, this.used);
    this.start[id] = this.used;
    this.length[id] = shape.length;
    this.refs[id] = refs;
    this.used += shape.length;
    return id;
  }

  /** Registers `id` for deduplication (after `add`). */
  index(id: number): void {
    const hash = hashShape(this.view(id));
    if (!this.byHash.has(hash)) this.byHash.set(hash, id);
  }

  clear(): void {
    this.data = new Uint32Array(4096);
    this.used = 0;
    this.garbage = 0;
    this.start = new Int32Array(256).fill(-1);
    this.length = new Int32Array(256);
    this.refs = new Int32Array(256);
    this.ids = 0;
    this.free.length = 0;
    this.byHash.clear();
  }

  private growIds(min: number): void {
    const size = Math.max(min, this.start.length * 2);
    const start = new Int32Array(size).fill(-1);
    start.set(this.start);
    const length = new Int32Array(size);
    length.set(this.length);
    const refs = new Int32Array(size);
    refs.set(this.refs);
    this.start = start;
    this.length = length;
    this.refs = refs;
  }

  private growData(min: number): void {
    const data = new Uint32Array(Math.max(min, this.data.length * 2));
    data.set(this.data.subarray(0, this.used));
    this.data = data;
  }

  /** Moves the live shapes together (ids unchanged). */
  private compact(): void {
    const data = new Uint32Array(Math.max(4096, (this.used - this.garbage) * 2));
    let used = 0;
    for (let id = 0; id < this.ids; id++) {
      if (this.start[id] < 0) continue;
      data.set(this.view(id), used);
      this.start[id] = used;
      used += this.length[id];
    }
    this.data = data;
    this.used = used;
    this.garbage = 0;
  }
}
