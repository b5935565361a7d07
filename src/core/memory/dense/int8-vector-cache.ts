import { QueryTerms, VectorCopies } from './vector-copies';

/** Largest code magnitude (symmetric: −127 … 127). */
const CODE_MAX = 127;
/** Headroom for the float64 summation of the exact dot product (≈ dim × 2^-53 for unit vectors, far above it here). */
const SUM_MARGIN = 1e-12;
/** Relative headroom on the two error bounds for their own float64 rounding (each ≲ dim × 2^-52). */
const BOUND_SLACK = 1 + 1e-9;

const scratch = new Float32Array(1);
const scratchBits = new Uint32Array(scratch.buffer);

/** The smallest float32 ≥ `x` (x ≥ 0, finite). */
export function float32AtLeast(x: number): number {
  scratch[0] = x;
  if (scratch[0] < x) scratchBits[0] += 1;
  return scratch[0];
}

/**
 * Int8 copies of the active records' float vectors (VectorCopies), scalar-quantized with one
 * scale per vector: v ≈ s·c, c_i = round(v_i / s) in −127 … 127, s = max|v_i| / 127 (rounded up
 * to a float32), so each |e_i| = |v_i − s·c_i| ≤ s/2. Beside the codes each record keeps s and
 * ‖e‖₂ (rounded up): dim + 8 bytes, 16 with its fingerprint (400 at 384 dimensions: 100k records
 * in 40 MB, half the float16 copies).
 *
 * The error of the dot product with a query q, |Σ q_i e_i|, is at most both (s/2)·‖q‖₁ (each
 * |e_i| ≤ s/2) and ‖e‖₂·‖q‖₂ (Cauchy–Schwarz); `scores` returns the smaller, plus headroom for
 * the float64 sums. About 0.005–0.02 for unit vectors at 384 dimensions: wider than float16's
 * (below 2^-10), so more candidates near the k-th are read exactly; the ranking stays exact.
 *
 * @example
 * const copies = new Int8VectorCache(384, { maxBytes: 40e6 });
 * copies.set(rid, vector);
 * const { approx, bound } = copies.scores(query, [rid]);
 */
export class Int8VectorCache extends VectorCopies {
  readonly form = 'int8';
  private codes = new Int8Array(0);
  /** Per slot: the scale s and ‖e‖₂, both rounded up to float32. */
  private side = new Float32Array(0);

  protected get valueBytesPerRecord(): number {
    return this.dimension + 8;
  }

  protected holds(vector: Float32Array): boolean {
    for (let i = 0; i < vector.length; i++) if (!Number.isFinite(vector[i])) return false;
    return true;
  }

  protected encode(slot: number, vector: Float32Array): void {
    const dim = this.dimension;
    let max = 0;
    for (let i = 0; i < dim; i++) max = Math.max(max, Math.abs(vector[i]));
    const scale = max === 0 ? 0 : float32AtLeast(max / CODE_MAX);
    const at = slot * dim;
    let squares = 0;
    for (let i = 0; i < dim; i++) {
      const code = scale === 0 ? 0 : Math.max(-CODE_MAX, Math.min(CODE_MAX, Math.round(vector[i] / scale)));
      this.codes[at + i] = code;
      // Exact in float64: a float32 minus a float32 times a small integer, within 2^33 of each other's last bits.
      const error = vector[i] - scale * code;
      squares += error * error;
    }
    this.side[slot * 2] = scale;
    this.side[slot * 2 + 1] = float32AtLeast(Math.sqrt(squares * BOUND_SLACK));
  }

  protected moveSlot(from: number, to: number): void {
    const dim = this.dimension;
    this.codes.copyWithin(to * dim, from * dim, (from + 1) * dim);
    this.side.copyWithin(to * 2, from * 2, from * 2 + 2);
  }

  protected resize(slots: number): void {
    const codes = new Int8Array(slots * this.dimension);
    codes.set(this.codes.subarray(0, Math.min(this.codes.length, codes.length)));
    this.codes = codes;
    const side = new Float32Array(slots * 2);
    side.set(this.side.subarray(0, Math.min(this.side.length, side.length)));
    this.side = side;
  }

  protected score(slot: number, terms: QueryTerms, approx: Float64Array, bound: Float64Array, at: number): void {
    const dim = this.dimension;
    const codes = this.codes;
    const query = terms.query;
    const from = slot * dim;
    let s = 0;
    for (let i = 0; i < dim; i++) s += query[i] * codes[from + i];
    const scale = this.side[slot * 2];
    const errorNorm = this.side[slot * 2 + 1];
    approx[at] = scale * s;
    // The float64 sum of dim products, each at most 127·s·|q_i|, errs by at most dim·2^-53 of their total.
    const sumError = scale * CODE_MAX * terms.l1 * dim * 2 ** -52;
    bound[at] = Math.min(scale * 0.5 * terms.l1, errorNorm * terms.l2) * BOUND_SLACK + sumError + SUM_MARGIN;
  }
}
