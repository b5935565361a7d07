/**
 * The program identity of each record held by the re-ranking's state (rerank.ts), by key (rid): a
 * collapsing search reads it for every candidate of each side and of the fused order (hundreds per
 * re-ranked search at 100k records, thousands when it looks deep), so it is an array read by rid, not
 * a Map lookup: a Float64Array indexed by rid (53-bit identities are exact in a double; NaN: not
 * held), 8 bytes per rid up to the largest held; a key that is no small non-negative integer (rids
 * are SQLite's, from 1 up) is kept in a Map instead.
 *
 * @example
 * ```ts
 * const ids = new ProgramIds();
 * ids.set(7, hash53(programKey(code, language)));
 * ids.get(7); // the identity; undefined for a key not held
 * ids.delete(7);
 * ```
 */

/** Keys from this one up go to the Map (the array would take 8 bytes per rid below them). */
export const PROGRAM_TABLE_LIMIT = 1 << 24;

export class ProgramIds {
  private table = new Float64Array(0);
  private readonly far = new Map<number, number>();

  /** The identity held for `key`; undefined when none is. */
  get(key: number): number | undefined {
    const id = this.table[key];
    if (id === undefined) return this.far.get(key);
    return Number.isNaN(id) ? undefined : id;
  }

  set(key: number, id: number): void {
    if (!(Number.isInteger(key) && key >= 0 && key < PROGRAM_TABLE_LIMIT)) {
      this.far.set(key, id);
      return;
    }
    if (key >= this.table.length) {
      const grown = new Float64Array(Math.min(PROGRAM_TABLE_LIMIT, Math.max(key + 1, 2 * this.table.length, 1024))).fill(Number.NaN);
      grown.set(this.table);
      this.table = grown;
    }
    this.table[key] = id;
  }

  delete(key: number): void {
    if (this.table[key] !== undefined) this.table[key] = Number.NaN;
    else this.far.delete(key);
  }

  clear(): void {
    this.table = new Float64Array(0);
    this.far.clear();
  }
}
