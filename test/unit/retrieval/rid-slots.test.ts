import { strict as assert } from 'node:assert';
import { RidSlots } from '../../../src/core/memory/dense/rid-slots';
import { RID_TABLE_LIMIT } from '../../../src/core/memory/rid-table';
import { mulberry32 } from '../../../src/core/random';

/** The slots as a plain Map and array (what RidSlots kept before its rid-indexed table). */
class ReferenceSlots {
  readonly slotOf = new Map<number, number>();
  readonly ridAt: number[] = [];
  acquire(rid: number): number {
    let slot = this.slotOf.get(rid);
    if (slot === undefined) {
      slot = this.ridAt.length;
      this.ridAt.push(rid);
      this.slotOf.set(rid, slot);
    }
    return slot;
  }
  release(rid: number): { from: number; to: number } | null {
    const slot = this.slotOf.get(rid);
    if (slot === undefined) return null;
    const last = this.ridAt.length - 1;
    if (slot !== last) {
      this.ridAt[slot] = this.ridAt[last];
      this.slotOf.set(this.ridAt[slot], slot);
    }
    this.ridAt.pop();
    this.slotOf.delete(rid);
    return { from: last, to: slot };
  }
}

describe('RidSlots (dense slots of the code and vector caches)', () => {
  it('keeps the same slots as a Map would through acquires and releases, rids beyond the table included', () => {
    const random = mulberry32(37);
    // Small rids (the table), a few far ones (beyond RID_TABLE_LIMIT: the Map) and 0.
    const pool = [0, ...Array.from({ length: 300 }, (_, i) => i + 1), RID_TABLE_LIMIT, RID_TABLE_LIMIT + 5, 2 ** 40];
    const slots = new RidSlots();
    const reference = new ReferenceSlots();
    for (let step = 0; step < 5000; step++) {
      const rid = pool[Math.floor(random() * pool.length)];
      if (random() < 0.6) assert.equal(slots.acquire(rid), reference.acquire(rid), `acquire ${rid} at step ${step}`);
      else assert.deepEqual(slots.release(rid), reference.release(rid), `release ${rid} at step ${step}`);
      assert.equal(slots.size, reference.ridAt.length);
    }
    assert.deepEqual([...slots.rids], reference.ridAt);
    for (const rid of pool) {
      assert.equal(slots.has(rid), reference.slotOf.has(rid), `has ${rid}`);
      assert.equal(slots.slot(rid), reference.slotOf.get(rid), `slot ${rid}`);
    }
    reference.ridAt.forEach((rid, slot) => assert.equal(slots.rid(slot), rid));
  });

  it('answers no slot for a rid never held, and forgets every rid on clear', () => {
    const slots = new RidSlots();
    assert.equal(slots.slot(5), undefined);
    assert.equal(slots.has(5), false);
    assert.equal(slots.release(5), null);
    assert.equal(slots.acquire(5), 0);
    assert.equal(slots.acquire(2 ** 40), 1);
    assert.equal(slots.acquire(5), 0);
    slots.clear();
    assert.equal(slots.size, 0);
    assert.equal(slots.has(5), false);
    assert.equal(slots.has(2 ** 40), false);
    assert.equal(slots.acquire(2 ** 40), 0);
  });
});
