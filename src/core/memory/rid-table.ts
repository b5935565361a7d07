/**
 * A non-negative number per record key (a shape id, a slot), for indexes that
 * hold one per active record: a typed array indexed by rid (rids are SQLite's,
 * from 1 up: 4 bytes per rid up to the largest held, no per-entry objects, set
 * and get without hashing) for keys below RID_TABLE_LIMIT, a Map for any other
 * key. Counts the keys held.
 *
 * @example
 * const slots = new RidTable();
 * slots.set(7, 3);
 * slots.get(7); // 3; -1 for a key not held
 */
export const RID_TABLE_LIMIT = 1 << 24;

export class RidTable {
  private table = new Int32Array(0);
  private readonly far = new Map<number, number>();
  private held = 0;

  get size(): number {
    return this.held;
  }

  /** The value held for `key` (non-negative), or -1. */
  get(key: number): number {
    const v = this.table[key];
    if (v === undefined) return this.far.get(key) ?? -1;
    return v;
  }

  /** Holds `value` (≥ 0) for `key`. */
  set(key: number, value: number): void {
    if (!(Number.isInteger(key) && key >= 0 && key < RID_TABLE_LIMIT)) {
      if (!this.far.has(key)) this.held++;
      this.far.set(key, value);
      return;
    }
    if (key >= this.table.length) {
      const grown = new Int32Array(Math.min(RID_TABLE_LIMIT, Math.max(key + 1, 2 * this.table.length, 1024))).fill(-1);
      grown.set(this.table);
      this.table = grown;
    }
    if (this.table[key] < 0) this.held++;
    this.table[key] = value;
  }

  delete(key: number): void {
    const v = this.table[key];
    if (v === undefined) {
      if (this.far.delete(key)) this.held--;
    } else if (v >= 0) {
      this.table[key] = -1;
      this.held--;
    }
  }

  /** Every key held with its value: the table's keys ascending, then the others ascending. */
  *entries(): IterableIterator<[number, number]> {
    for (let key = 0; key < this.table.length; key++) if (this.table[key] >= 0) yield [key, this.table[key]];
    yield* [...this.far].sort((a, b) => a[0] - b[0]);
  }

  clear(): void {
    this.table = new Int32Array(0);
    this.far.clear();
    this.held = 0;
  }
}
