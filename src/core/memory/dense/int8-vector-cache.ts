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
 * The error of the dot product with a query q, |Σ q_i e_i|, is at most both (s/2)·Σ|q_i| (each
 * |e_i| ≤ s/2) and ‖e‖₂·√Σq_i² (Cauchy–Schwarz); `scores` returns the smaller, plus headroom
 * for the float64 sums. Where every nonzero v_i has a nonzero code (all but a few vectors: a
 * component below s/2 in magnitude codes to 0), e_i = 0 wherever c_i = 0, so both sums run over
 * the dimensions with c_i ≠ 0 only: for sparse vectors (the built-in hashing embedder's: ~57
 * nonzeros of 384) that is most of the saving (bounds ~0.003 instead of ~0.006). The bound stays
 * wider than float16's (≲ 2^-11·Σ|q_i·v_i|), so more candidates near the k-th are read exactly;
 * the ranking stays exact.
 *
 * @example
 * const copies = new Int8VectorCache(384, { maxBytes: 40e6 });
 * copies.set(rid, vector);
 * const { approx, bound } = copies.scores(query, [rid]);
 */
export class Int8VectorCache extends VectorCopies {
  readonly form = 'int8';
  private codes = new Int8Array(0);
  /**
   * Per slot: the scale s and ‖e‖₂, both rounded up to float32; ‖e‖₂ negated when some nonzero
   * v_i codes to 0 (the bound then runs over every dimension).
   */
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
    let lost = false;
    for (let i = 0; i < dim; i++) {
      const code = scale === 0 ? 0 : Math.max(-CODE_MAX, Math.min(CODE_MAX, Math.round(vector[i] / scale)));
      this.codes[at + i] = code;
      if (code === 0 && vector[i] !== 0) lost = true;
      // Exact in float64: a float32 minus a float32 times a small integer, within 2^33 of each other's last bits.
      const error = vector[i] - scale * code;
      squares += error * error;
    }
    this.side[slot * 2] = scale;
    const norm = float32AtLeast(Math.sqrt(squares * BOUND_SLACK));
    this.side[slot * 2 + 1] = lost ? -norm : norm;
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
    const { query, magnitudes, squares } = terms;
    const from = slot * dim;
    let s = 0;
    // Σ|q_i| and Σq_i² over the dimensions with a nonzero code (the only ones with an error, unless `lost`).
    let l1 = 0;
    let l2Squared = 0;
    for (let i = 0; i < dim; i++) {
      const code = codes[from + i];
      if (code === 0) continue;
      s += query[i] * code;
      l1 += magnitudes[i];
      l2Squared += squares[i];
    }
    const scale = this.side[slot * 2];
    const signedNorm = this.side[slot * 2 + 1];
    const lost = signedNorm < 0;
    approx[at] = scale * s;
    // The float64 sum of dim products, each at most 127·s·|q_i|, errs by at most dim·2^-53 of their total.
    const sumError = scale * CODE_MAX * terms.l1 * dim * 2 ** -52;
    const halfStepBound = scale * 0.5 * (lost ? terms.l1 : l1);
    const normBound = Math.abs(signedNorm) * (lost ? terms.l2 : Math.sqrt(l2Squared));
    bound[at] = Math.min(halfStepBound, normBound) * BOUND_SLACK + sumError + SUM_MARGIN;
  }
}
