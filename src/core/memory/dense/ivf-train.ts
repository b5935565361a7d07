import { seededRandom } from '../../random';
import { createHammingKernel, HammingKernel } from './hamming-kernel';

/**
 * Coarse quantiser of the inverted file over the binary codes (IvfCodeIndex):
 * `nlist` binary centroids trained by k-majority (Lloyd iterations in Hamming
 * space: assign each sampled code to its nearest centroid, then set each
 * centroid bit to the majority of its members' bits) on a seeded sample, and
 * the assignment of codes to their nearest centroid through the WASM Hamming
 * kernel (one scan of the centroids per code).
 *
 * Codes are `stride`-byte rows (`blocks * 16`, zero-padded), as the kernel holds them.
 *
 * @example
 * const centroids = trainCentroids(codes, n, 3, listCountFor(n), 7);
 * const quantiser = new CentroidScan(centroids, 3);
 * quantiser.nearest(code);  // list of one code
 */

/** Codes sampled per list to train the centroids. */
export const TRAIN_SAMPLE_PER_LIST = 32;
/** Lloyd iterations of the training. */
export const TRAIN_ITERATIONS = 8;

/** Lists for `n` codes: about √n (1,000 at a million), between 16 and 4,096. */
export function listCountFor(n: number): number {
  return Math.max(16, Math.min(4096, Math.round(Math.sqrt(n))));
}

/** The centroids in a kernel of their own: distances from one code to every centroid in one scan. */
export class CentroidScan {
  private readonly kernel: HammingKernel;
  readonly count: number;

  constructor(centroids: Uint8Array, readonly blocks: number, kernel?: HammingKernel) {
    this.kernel = kernel ?? createHammingKernel();
    this.count = centroids.length / (blocks * 16);
    this.kernel.reserve(this.count, blocks).set(centroids);
  }

  /** Distances from `code` (`blocks * 16` bytes, or fewer: zero-padded) to every centroid (valid until the next call). */
  distances(code: Uint8Array): Uint16Array {
    const q = this.kernel.query;
    if (code.length < q.length) q.fill(0);
    q.set(code.length > q.length ? code.subarray(0, q.length) : code);
    return this.kernel.scan(this.count, this.blocks);
  }

  /** The nearest centroid of `code` (the lowest index among equals). */
  nearest(code: Uint8Array): number {
    const dist = this.distances(code);
    let best = 0;
    for (let i = 1; i < dist.length; i++) if (dist[i] < dist[best]) best = i;
    return best;
  }

  /** The nearest centroid of each of the `n` codes of `codes` (rows of `blocks * 16` bytes). */
  assign(codes: Uint8Array, n: number, into = new Int32Array(n)): Int32Array {
    const stride = this.blocks * 16;
    for (let i = 0; i < n; i++) into[i] = this.nearest(codes.subarray(i * stride, (i + 1) * stride));
    return into;
  }
}

/**
 * `lists` binary centroids (rows of `blocks * 16` bytes) for the first `n`
 * codes of `codes`, by k-majority on a sample of TRAIN_SAMPLE_PER_LIST codes
 * per list. Same input and seed ⇒ same centroids. A list left empty by an
 * iteration takes a sampled code again.
 */
export function trainCentroids(codes: Uint8Array, n: number, blocks: number, lists: number, seed: number): Uint8Array {
  const stride = blocks * 16;
  const rand = seededRandom(seed);
  const k = Math.max(1, Math.min(lists, n));
  const sampleSize = Math.min(n, k * TRAIN_SAMPLE_PER_LIST);
  const sample = new Uint8Array(sampleSize * stride);
  for (let i = 0; i < sampleSize; i++) {
    // Without replacement for a sample of all codes; otherwise uniform draws.
    const from = sampleSize === n ? i : Math.floor(rand() * n);
    sample.set(codes.subarray(from * stride, (from + 1) * stride), i * stride);
  }
  const centroids = new Uint8Array(k * stride);
  for (let c = 0; c < k; c++) {
    const from = Math.floor(rand() * sampleSize);
    centroids.set(sample.subarray(from * stride, (from + 1) * stride), c * stride);
  }
  const bits = stride * 8;
  const counts = new Int32Array(k * bits);
  const members = new Int32Array(k);
  const labels = new Int32Array(sampleSize);
  for (let iteration = 0; iteration < TRAIN_ITERATIONS; iteration++) {
    new CentroidScan(centroids, blocks).assign(sample, sampleSize, labels);
    counts.fill(0);
    members.fill(0);
    for (let i = 0; i < sampleSize; i++) {
      const c = labels[i];
      members[c]++;
      const base = c * bits;
      for (let byte = 0, at = i * stride; byte < stride; byte++) {
        const v = sample[at + byte];
        if (v === 0) continue;
        for (let bit = 0; bit < 8; bit++) if (v & (1 << bit)) counts[base + byte * 8 + bit]++;
      }
    }
    for (let c = 0; c < k; c++) {
      const row = c * stride;
      if (members[c] === 0) {
        const from = Math.floor(rand() * sampleSize);
        centroids.set(sample.subarray(from * stride, (from + 1) * stride), row);
        continue;
      }
      const base = c * bits;
      for (let byte = 0; byte < stride; byte++) {
        let v = 0;
        for (let bit = 0; bit < 8; bit++) if (counts[base + byte * 8 + bit] * 2 > members[c]) v |= 1 << bit;
        centroids[row + byte] = v;
      }
    }
  }
  return centroids;
}
