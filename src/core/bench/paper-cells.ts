/**
 * The many-seed paper grid (issue 9): the 4 additions × 4 deletions
 * (attribution `shown`, the paper's), the `followed` attribution on the cells
 * where attribution changes anything (history and combined deletion), the
 * error-free controlled replay, the distribution-shift cells and the
 * capacity-100 cell; and how one cell becomes a run configuration.
 */
import { z } from 'zod';
import type { BenchConfigInput } from './config';

export const VARIANTS = ['standard', 'error-free', 'shift', 'capacity'] as const;
export const PaperCellSchema = z.object({
  addition: z.enum(['fixed', 'all', 'coarse', 'strict']),
  deletion: z.enum(['none', 'periodic', 'history', 'combined']),
  variant: z.enum(VARIANTS),
  attribution: z.enum(['shown', 'followed']),
});
export type PaperCell = z.infer<typeof PaperCellSchema>;

/** The paper's §6.2 capacity: the initial memory size of EHRAgent. */
export const PAPER_CAPACITY = 100;

const ADDITIONS = ['fixed', 'all', 'coarse', 'strict'] as const;
const DELETIONS = ['none', 'periodic', 'history', 'combined'] as const;

/** Every cell of the grid, in report order. */
export function paperCells(): PaperCell[] {
  const cells: PaperCell[] = [];
  for (const addition of ADDITIONS) for (const deletion of DELETIONS) cells.push({ addition, deletion, variant: 'standard', attribution: 'shown' });
  for (const addition of ['coarse', 'strict'] as const) for (const deletion of ['history', 'combined'] as const) cells.push({ addition, deletion, variant: 'standard', attribution: 'followed' });
  // Error-free (paper §4.4): the same retrievals as add-all (every task added), each record holding the ground truth.
  cells.push({ addition: 'all', deletion: 'none', variant: 'error-free', attribution: 'shown' });
  // Distribution shift (paper §6.1, Figure 6): fixed, strict, strict + history, strict + combined.
  for (const [addition, deletion] of [['fixed', 'none'], ['strict', 'none'], ['strict', 'history'], ['strict', 'combined']] as const) cells.push({ addition, deletion, variant: 'shift', attribution: 'shown' });
  // Capacity (paper §6.2): combined deletion with strict evaluation under a 100-record cap.
  cells.push({ addition: 'strict', deletion: 'combined', variant: 'capacity', attribution: 'shown' });
  return cells;
}

export function cellKey(c: PaperCell): string {
  return `${c.addition}/${c.deletion}/${c.variant}/${c.attribution}`;
}

/** The run configuration of a cell for one seed. */
export function cellConfig(cell: PaperCell, base: { seed: number; language: 'python' | 'javascript'; maxDebugRounds?: number; period?: number }): BenchConfigInput {
  return {
    addition: cell.addition,
    deletion: cell.deletion,
    attribution: cell.attribution,
    order: cell.variant === 'shift' ? 'shift' : 'given',
    errorFree: cell.variant === 'error-free',
    ...(cell.variant === 'capacity' ? { capacity: PAPER_CAPACITY } : {}),
    seed: base.seed,
    language: base.language,
    ...(base.maxDebugRounds !== undefined ? { maxDebugRounds: base.maxDebugRounds } : {}),
    ...(base.period !== undefined ? { period: base.period } : {}),
  };
}

/** The paper's EHRAgent numbers (Tables 1–2: accuracy %, final memory size) for the cells it reports. */
export const PAPER_EHR: Record<string, { accuracy: number; memory: number }> = {
  'fixed/none/standard/shown': { accuracy: 16.89, memory: 100 },
  'all/none/standard/shown': { accuracy: 13.04, memory: 2411 },
  'coarse/none/standard/shown': { accuracy: 31.35, memory: 1881 },
  'strict/none/standard/shown': { accuracy: 38.86, memory: 1012 },
  'coarse/periodic/standard/shown': { accuracy: 30.3, memory: 379 },
  'coarse/history/standard/shown': { accuracy: 32.04, memory: 1818 },
  'strict/periodic/standard/shown': { accuracy: 39.04, memory: 302 },
  'strict/history/standard/shown': { accuracy: 42.65, memory: 784 },
  'strict/combined/standard/shown': { accuracy: 42.88, memory: 248 },
  'coarse/combined/standard/shown': { accuracy: 29.52, memory: 377 },
};

/** The two paper numbers calibration may fit; everything else is a prediction. */
export const CALIBRATION_TARGETS = ['fixed/none/standard/shown', 'strict/none/standard/shown'] as const;
