/**
 * Deterministic k-means (k-means++ seeding with a seeded PRNG, Lloyd
 * iterations, cosine geometry on L2-normalised vectors) for the
 * distribution-shift order: cluster the task embeddings into 3 groups and run
 * them group by group (the paper clusters with a GMM; k-means is the
 * hard-assignment special case).
 */
import { AgentMemoryError } from '../errors';
import { seededRandom } from '../random';

export const DEFAULT_SHIFT_GROUPS = 3;
export const KMEANS_MAX_ITERATIONS = 100;

function sqDist(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) {
    const d = a[i] - b[i];
    s += d * d;
  }
  return s;
}

/**
 * Cluster labels in [0, k) for each vector. Same input and seed ⇒ same labels.
 * Labels are canonical: cluster 0 holds the first vector, cluster 1 the first
 * vector not in cluster 0, and so on.
 *
 * @example
 * const labels = kmeans(vectors, 3, 7); // e.g. [0, 0, 1, 2, 1, …]
 */
export function kmeans(vectors: readonly Float32Array[], k: number, seed: number): number[] {
  const n = vectors.length;
  if (!Number.isInteger(k) || k < 1) throw new AgentMemoryError('INVALID_INPUT', `k-means needs k ≥ 1 (got ${k}).`);
  if (n === 0) return [];
  const dim = vectors[0].length;
  if (vectors.some((v) => v.length !== dim)) throw new AgentMemoryError('INVALID_INPUT', 'k-means needs vectors of one dimension.');
  const kk = Math.min(k, n);
  const rand = seededRandom(seed);
  // k-means++ seeding.
  const centres: Float32Array[] = [Float32Array.from(vectors[Math.floor(rand() * n)])];
  const nearest = vectors.map((v) => sqDist(v, centres[0]));
  while (centres.length < kk) {
    const total = nearest.reduce((s, d) => s + d, 0);
    let pick = 0;
    if (total > 0) {
      let r = rand() * total;
      for (pick = 0; pick < n - 1; pick++) {
        r -= nearest[pick];
        if (r <= 0) break;
      }
    } else pick = centres.length; // all points identical: any distinct index
    centres.push(Float32Array.from(vectors[pick]));
    for (let i = 0; i < n; i++) nearest[i] = Math.min(nearest[i], sqDist(vectors[i], centres[centres.length - 1]));
  }
  const labels = new Array<number>(n).fill(-1);
  for (let iter = 0; iter < KMEANS_MAX_ITERATIONS; iter++) {
    let changed = false;
    for (let i = 0; i < n; i++) {
      let best = 0;
      let bestD = Infinity;
      for (let c = 0; c < kk; c++) {
        const d = sqDist(vectors[i], centres[c]);
        if (d < bestD) {
          bestD = d;
          best = c;
        }
      }
      if (labels[i] !== best) {
        labels[i] = best;
        changed = true;
      }
    }
    if (!changed) break;
    for (let c = 0; c < kk; c++) {
      const sum = new Float32Array(dim);
      let count = 0;
      for (let i = 0; i < n; i++) {
        if (labels[i] !== c) continue;
        count++;
        for (let d = 0; d < dim; d++) sum[d] += vectors[i][d];
      }
      if (count > 0) {
        for (let d = 0; d < dim; d++) sum[d] /= count;
        centres[c] = sum;
      }
    }
  }
  // Canonical relabelling by first occurrence.
  const map = new Map<number, number>();
  return labels.map((l) => {
    if (!map.has(l)) map.set(l, map.size);
    return map.get(l)!;
  });
}

/**
 * Indices of `items` reordered group by group (group 0 first), keeping the
 * given order inside each group; also returns each item's group.
 *
 * @example
 * const { order, groups } = shiftOrder(vectors, 3, seed);
 * const stream = order.map((i) => tasks[i]);
 */
export function shiftOrder(vectors: readonly Float32Array[], k: number, seed: number): { order: number[]; groups: number[] } {
  const labels = kmeans(vectors, k, seed);
  const order = labels.map((_, i) => i).sort((a, b) => labels[a] - labels[b] || a - b);
  return { order, groups: labels };
}
