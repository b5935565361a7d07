/**
 * Dense slots 0 … size − 1 for record rowids, for caches that keep one
 * fixed-size entry per record in a flat typed array (BinaryCodeCache,
 * HalfVectorCache). Removing a record moves the last slot's record into the
 * hole, so the slots stay dense; `release` says which slot to move where, the
 * caller moves its entry's bytes. The slot of each rid sits in a RidTable
 * (rid-indexed: a bulk load of 100k codes at open sets no Map entries).
 *
 * @example
 * const slots = new RidSlots();
 * const slot = slots.acquire(rid);        // existing slot, or a new one at the end
 * const move = slots.release(rid);        // { from, to }: copy entry `from` over entry `to`
 */
import { RidTable } from '../rid-table';

export class RidSlots {
  private readonly slotOf = new RidTable();
  private ridAt: number[] = [];

  get size(): number {
    return this.ridAt.length;
  }

  /** The rids, in slot order (valid until the next change). */
  get rids(): readonly number[] {
    return this.ridAt;
  }

  has(rid: number): boolean {
    return this.slotOf.get(rid) >= 0;
  }

  slot(rid: number): number | undefined {
    const slot = this.slotOf.get(rid);
    return slot < 0 ? undefined : slot;
  }

  rid(slot: number): number {
    return this.ridAt[slot];
  }

  /** The slot of `rid`: its own, or a new one at the end. */
  acquire(rid: number): number {
    let slot = this.slotOf.get(rid);
    if (slot < 0) {
      slot = this.ridAt.length;
      this.ridAt.push(rid);
      this.slotOf.set(rid, slot);
    }
    return slot;
  }

  /**
   * Frees the slot of `rid`: the record in the last slot takes it. Returns the
   * entry move the caller makes (`from` the last slot `to` the freed one;
   * nothing to move when they are equal), or null when `rid` had no slot.
   */
  release(rid: number): { from: number; to: number } | null {
    const slot = this.slotOf.get(rid);
    if (slot < 0) return null;
    const last = this.ridAt.length - 1;
    if (slot !== last) {
      const moved = this.ridAt[last];
      this.ridAt[slot] = moved;
      this.slotOf.set(moved, slot);
    }
    this.ridAt.pop();
    this.slotOf.delete(rid);
    return { from: last, to: slot };
  }

  clear(): void {
    this.slotOf.clear();
    this.ridAt = [];
  }
}
