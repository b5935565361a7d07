/**
 * The delta of the compact keyword index (keyword-compact.ts): the postings added since its base, in the
 * order they were added, each with its slot (term × fields + field), document ordinal and term frequency,
 * chained per slot (newest first) in growable typed arrays: no object per posting.
 */

/** A typed array at least `need` long (doubled, its new part filled with `fill` when given). */
export function grow<T extends Float64Array | Int32Array | Uint32Array | Uint8Array>(a: T, need: number, make: (n: number) => T, fill?: number): T {
  if (a.length >= need) return a;
  const b = make(Math.max(need, a.length * 2, 1024));
  b.set(a);
  if (fill !== undefined) b.fill(fill, a.length);
  return b;
}

export class DeltaPostings {
  /** Per slot the newest entry (-1: none). */
  private head: Int32Array = new Int32Array(0);
  private prev: Int32Array = new Int32Array(0);
  /** Per entry: its slot, document ordinal and term frequency. */
  slot: Int32Array = new Int32Array(0);
  ord: Int32Array = new Int32Array(0);
  tf: Uint32Array = new Uint32Array(0);
  /** Entries held. */
  count = 0;

  push(slot: number, o: number, tf: number): void {
    const e = this.count++;
    this.head = grow(this.head, slot + 1, (n) => new Int32Array(n), -1);
    this.prev = grow(this.prev, e + 1, (n) => new Int32Array(n));
    this.slot = grow(this.slot, e + 1, (n) => new Int32Array(n));
    this.ord = grow(this.ord, e + 1, (n) => new Int32Array(n));
    this.tf = grow(this.tf, e + 1, (n) => new Uint32Array(n));
    this.slot[e] = slot;
    this.ord[e] = o;
    this.tf[e] = tf;
    this.prev[e] = this.head[slot];
    this.head[slot] = e;
  }

  /** The entries of a slot, oldest first. */
  entries(slot: number): number[] {
    const out: number[] = [];
    for (let e = slot < this.head.length ? this.head[slot] : -1; e >= 0; e = this.prev[e]) out.push(e);
    return out.reverse();
  }

  /** The entries from `from` on, as a delta segment holds them (copies). */
  since(from: number): { slot: Int32Array; ord: Int32Array; tf: Uint32Array } {
    return { slot: this.slot.slice(from, this.count), ord: this.ord.slice(from, this.count), tf: this.tf.slice(from, this.count) };
  }
}
