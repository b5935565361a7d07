import { QueryTerms, VectorCopies } from './vector-copies';

/** Largest finite float16 magnitude. */
const HALF_MAX = 65504;
/**
 * Largest rounding error (round to nearest) of a value whose float16 has the
 * exponent field e: half the spacing of float16s at and above it, 2^(e−26)
 * (e = 0, subnormals and zero: 2^-25).
 */
const HALF_ERROR_BY_EXPONENT = Float64Array.from({ length: 32 }, (_, e) => 2 ** (Math.max(e, 1) - 26));
/** Headroom for the float64 summation of the two dot products (≈ dim × 2^-53, far above it here). */
const SUM_MARGIN = 1e-12;

const scratch = new Float32Array(1);
const scratchBits = new Uint32Array(scratch.buffer);

/** The float16 bits nearest to `x` (round to nearest, ties to even), from its float32 rounding. */
export function toHalf(x: number): number {
  scratch[0] = x;
  const f = scratchBits[0];
  const sign = (f >>> 16) & 0x8000;
  const exp = (f >>> 23) & 0xff;
  let mant = f & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    const half = 1 << (shift - 1);
    const rest = mant & ((1 << shift) - 1);
    let out = mant >>> shift;
    if (rest > half || (rest === half && (out & 1) === 1)) out++;
    return sign | out;
  }
  let out = (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (out & 1) === 1)) out++;
  return sign | out;
}

/** The value of float16 bits `h`. */
export function fromHalf(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >>> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

let decodeTable: Float32Array | null = null;

/** All 65,536 float16 values as float32 (256 KB, built once). */
function halfTable(): Float32Array {
  if (!decodeTable) {
    decodeTable = new Float32Array(65536);
    for (let h = 0; h < 65536; h++) decodeTable[h] = fromHalf(h);
  }
  return decodeTable;
}

/**
 * Float16 copies of the active records' float vectors (VectorCopies):
 * 2 bytes per dimension (77 MB at 100k × 384, half the float32 vectors). A
 * float16 dot product differs from the float32 one by at most Σ|q_i|·err(v̂_i),
 * err = half the float16 spacing at v̂_i (≤ 2^-11·|v̂_i|; 2^-25 for
 * subnormals): below 2^-10 for unit vectors, about 20× tighter than the int8
 * copies' (Int8VectorCache) at twice their bytes.
 *
 * @example
 * const halves = new HalfVectorCache(384, { maxBytes: 80e6 });
 * halves.set(rid, vector);
 * const { approx, bound } = halves.scores(query, [rid]);
 */
export class HalfVectorCache extends VectorCopies {
  readonly form = 'float16';
  private values = new Uint16Array(0);

  protected get valueBytesPerRecord(): number {
    return this.dimension * 2;
  }

  protected holds(vector: Float32Array): boolean {
    for (let i = 0; i < vector.length; i++) if (!(Math.abs(vector[i]) <= HALF_MAX)) return false;
    return true;
  }

  protected encode(slot: number, vector: Float32Array): void {
    const at = slot * this.dimension;
    for (let i = 0; i < vector.length; i++) this.values[at + i] = toHalf(vector[i]);
  }

  protected moveSlot(from: number, to: number): void {
    const dim = this.dimension;
    this.values.copyWithin(to * dim, from * dim, (from + 1) * dim);
  }

  protected resize(slots: number): void {
    const next = new Uint16Array(slots * this.dimension);
    next.set(this.values.subarray(0, Math.min(this.values.length, next.length)));
    this.values = next;
  }

  protected score(slot: number, terms: QueryTerms, approx: Float64Array, bound: Float64Array, at: number): void {
    const dim = this.dimension;
    const table = halfTable();
    const values = this.values;
    const { query, magnitudes } = terms;
    const from = slot * dim;
    let s = 0;
    let error = 0;
    for (let i = 0; i < dim; i++) {
      const h = values[from + i];
      s += query[i] * table[h];
      error += magnitudes[i] * HALF_ERROR_BY_EXPONENT[(h >>> 10) & 0x1f];
    }
    approx[at] = s;
    bound[at] = error + SUM_MARGIN;
  }
}
