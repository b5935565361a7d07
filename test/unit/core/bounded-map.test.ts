import assert from 'node:assert/strict';
import { BoundedMap } from '../../../src/core/bounded-map';

describe('BoundedMap (a map bounded by a total weight, oldest inserted dropped first)', () => {
  it('holds at most `capacity` entries of weight 1, dropping the oldest inserted; a read does not move an entry', () => {
    const map = new BoundedMap<number, string>(3);
    map.set(1, 'a').set(2, 'b').set(3, 'c');
    assert.equal(map.get(1), 'a', 'read: 1 stays the oldest');
    map.set(4, 'd');
    assert.deepEqual([...map.entries()], [[2, 'b'], [3, 'c'], [4, 'd']]);
    assert.equal(map.has(1), false);
    assert.equal(map.size, 3);
    assert.equal(map.weight, 3);
  });

  it('setting a held key replaces its value in place: it keeps its place and nothing else goes', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('x', 1).set('y', 2).set('x', 10);
    assert.deepEqual([...map.keys()], ['x', 'y']);
    assert.equal(map.get('x'), 10);
    map.set('z', 3);
    assert.deepEqual([...map.entries()], [['y', 2], ['z', 3]], 'x was still the oldest');
  });

  it('weighs entries: a grown entry pushes the oldest others out, never itself; one heavier than the capacity is held alone', () => {
    const map = new BoundedMap<string, string[]>(4);
    map.set('a', ['a1']).set('b', ['b1']).set('c', ['c1']);
    map.set('a', ['a1', 'a2', 'a3'], 3);
    assert.deepEqual([...map.keys()], ['a', 'c'], 'a weighs 3: b (the oldest other) went, then the total was 4');
    assert.equal(map.weight, 4);
    map.set('d', ['d1'], 9);
    assert.deepEqual([...map.keys()], ['d']);
    assert.equal(map.weight, 9);
    map.set('d', [], 0).set('e', ['e1']);
    assert.deepEqual([...map.keys()], ['d', 'e']);
    assert.equal(map.weight, 1);
  });

  it('delete and clear give their weight back', () => {
    const map = new BoundedMap<number, number>(5);
    map.set(1, 1, 2).set(2, 2).set(3, 3, 2);
    assert.equal(map.delete(1), true);
    assert.equal(map.delete(1), false);
    assert.equal(map.weight, 3);
    map.set(4, 4, 2);
    assert.deepEqual([...map.keys()], [2, 3, 4], 'room was made by the delete');
    map.clear();
    assert.equal(map.size, 0);
    assert.equal(map.weight, 0);
    map.set(5, 5, 5);
    assert.deepEqual([...map.keys()], [5]);
  });

  it('refuses a capacity or weight that is no positive / non-negative number', () => {
    assert.throws(() => new BoundedMap(0), RangeError);
    assert.throws(() => new BoundedMap(Number.NaN), RangeError);
    assert.throws(() => new BoundedMap<number, number>(2).set(1, 1, -1), RangeError);
  });
});
