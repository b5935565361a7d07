import { strict as assert } from 'node:assert';
import { kmeans, shiftOrder } from '../../../src/core/bench/kmeans';
import { seededRandom } from '../../../src/core/random';

/** Three well-separated blobs of unit-ish vectors in 8 dimensions, interleaved. */
function blobs(perBlob: number): { vectors: Float32Array[]; truth: number[] } {
  const rand = seededRandom(99);
  const vectors: Float32Array[] = [];
  const truth: number[] = [];
  for (let i = 0; i < perBlob * 3; i++) {
    const c = i % 3;
    const v = new Float32Array(8);
    v[c * 2] = 1;
    for (let d = 0; d < 8; d++) v[d] += (rand() - 0.5) * 0.2;
    vectors.push(v);
    truth.push(c);
  }
  return { vectors, truth };
}

describe('bench: k-means for the distribution-shift order', () => {
  it('is deterministic for a seed', () => {
    const { vectors } = blobs(20);
    assert.deepEqual(kmeans(vectors, 3, 7), kmeans(vectors, 3, 7));
    assert.deepEqual(shiftOrder(vectors, 3, 11), shiftOrder(vectors, 3, 11));
  });

  it('recovers well-separated groups (up to label names)', () => {
    const { vectors, truth } = blobs(20);
    for (const seed of [1, 2, 3]) {
      const labels = kmeans(vectors, 3, seed);
      const map = new Map<number, number>();
      truth.forEach((t, i) => {
        if (!map.has(t)) map.set(t, labels[i]);
        assert.equal(labels[i], map.get(t), `seed ${seed}: point ${i} split from its blob`);
      });
      assert.equal(new Set(labels).size, 3);
    }
  });

  it('orders the stream group by group, keeping the given order inside a group', () => {
    const { vectors } = blobs(5);
    const { order, groups } = shiftOrder(vectors, 3, 4);
    assert.deepEqual([...order].sort((a, b) => a - b), vectors.map((_, i) => i), 'a permutation');
    const seq = order.map((i) => groups[i]);
    for (let i = 1; i < seq.length; i++) {
      assert.ok(seq[i] >= seq[i - 1], 'groups are contiguous and ascending');
      if (seq[i] === seq[i - 1]) assert.ok(order[i] > order[i - 1], 'stable inside a group');
    }
  });

  it('handles fewer points than groups', () => {
    assert.deepEqual(kmeans([new Float32Array([1, 0])], 3, 1), [0]);
    assert.deepEqual(kmeans([], 3, 1), []);
  });
});
