/**
 * The dense side of bench:retrieval, measured on its own (`--dense-only`, and the dense figures of
 * every row): recall@4 against sqlite-vec's exact float brute force, the candidate stage three ways
 * (the inverted file over the binary codes the product uses from IVF_MIN_CODES codes, the full WASM
 * Hamming scan of the same codes, sqlite-vec's own `bit[dim]` KNN), and the dense side's first open.
 */
import type { Statement } from 'better-sqlite3';
import { DenseIndex } from '../core/memory/dense/dense-index';
import type { MemoryStore } from '../core/memory/sqlite/store';
import { dot, vectorToBlob } from '../core/memory/dense/vector-index';

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

export function timeMs(fn: () => void): number {
  const t = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t) / 1e6;
}

export const round = (x: number, digits = 3) => Number(x.toFixed(digits));
const p50 = (xs: number[]) => round(percentile([...xs].sort((a, b) => a - b), 0.5));

/** Exact top-4 by sqlite-vec's float brute force (`vec_float`, cosine distance), timed. */
export class ExactFloat {
  readonly times: number[] = [];
  constructor(private readonly knn: Statement, private readonly store: MemoryStore) {}

  /** How many of `got` reach the exact 4th-best cosine (ties within 1e-6 count as hits). */
  hits(got: number[], q: Float32Array): number {
    let rows: { distance: number }[] = [];
    this.times.push(timeMs(() => (rows = this.knn.all(vectorToBlob(q)) as { distance: number }[])));
    if (rows.length === 0) return 0;
    const fourth = 1 - rows[rows.length - 1].distance;
    return got.filter((rid) => {
      const id = this.store.idOf(rid);
      const vector = id === undefined ? null : this.store.getEmbedding(id);
      return vector !== null && dot(q, vector) >= fourth - 1e-6;
    }).length;
  }
}

export interface DenseFigures {
  /** DenseIndex.open (synchronous, float16 copies included) until its first search answered. */
  dense_open_ms: number;
  /** The same open without the float16 copies (codes, inverted file): what a cold start waits for before a dense answer. */
  dense_codes_open_ms: number;
  /** Candidates (128) from the index the product uses at this size (inverted file from IVF_MIN_CODES codes, else full scan). */
  candidates_p50_ms: number;
  /** The full WASM Hamming scan of the same codes. */
  full_scan_p50_ms: number;
  /** Share of the full scan's 128 nearest codes the product's candidates hold. */
  candidates_vs_full: number;
  /** recall@4 of a dense search from the full scan's candidates (for comparison with recall_at_4). */
  full_recall_at_4: number;
  inverted_lists: number;
}

/**
 * The dense side at this size, beside the `search` the bench times: a fresh synchronous open (with and
 * without float16 copies), the product's candidates against a full scan. `exact` scores recall.
 */
export function measureDense(store: MemoryStore, qvecs: Float32Array[], exact: ExactFloat, candidates: number): DenseFigures {
  let dense: DenseIndex | null = null;
  const codesOpen = timeMs(() => {
    dense = DenseIndex.open(store, { halfCopies: false });
    dense.candidates(qvecs[0], candidates);
  });
  const codesOnly = dense as unknown as DenseIndex;
  const full = DenseIndex.open(store, { ivfMinCodes: Infinity, halfCopies: false });
  const mine: number[] = [];
  const scan: number[] = [];
  let same = 0;
  let fullHits = 0;
  const stage = qvecs.slice(0, Math.min(qvecs.length, 100));
  for (const v of stage) {
    let a: number[] = [];
    let b: number[] = [];
    mine.push(timeMs(() => (a = codesOnly.candidates(v, candidates) ?? [])));
    scan.push(timeMs(() => (b = full.candidates(v, candidates) ?? [])));
    const held = new Set(a);
    same += b.filter((rid) => held.has(rid)).length / Math.max(1, b.length);
    fullHits += exact.hits((full.search(v, 4, candidates) ?? []).map((h) => h.rid), v);
  }
  const lists = codesOnly.invertedFile?.lists ?? 0;
  codesOnly.dispose();
  full.dispose();
  let opened: DenseIndex | null = null;
  const denseOpen = timeMs(() => {
    opened = DenseIndex.open(store);
    opened.search(qvecs[0], 4, candidates);
  });
  (opened as unknown as DenseIndex).dispose();
  return {
    dense_open_ms: Math.round(denseOpen),
    dense_codes_open_ms: Math.round(codesOpen),
    candidates_p50_ms: p50(mine),
    full_scan_p50_ms: p50(scan),
    candidates_vs_full: round(same / stage.length, 4),
    full_recall_at_4: round(fullHits / (stage.length * 4), 4),
    inverted_lists: lists,
  };
}
