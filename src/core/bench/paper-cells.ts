/**
 * The many-seed paper grid (issue 9): the 4 additions × 4 deletions
 * (attribution `shown`, the paper's), the `followed` attribution on the cells
 * where attribution changes anything (history and combined deletion), the
 * error-free controlled replay, the distribution-shift cells and the
 * capacity-100 cell; the labelled modes beyond the paper (relative threshold,
 * `top-output` attribution) on strict + history / combined; and how one cell
 * becomes a run configuration.
 */
import { z } from 'zod';
import type { BenchConfigInput, FidelitySwitches } from './config';
import { ADDITION_POLICIES, ATTRIBUTIONS, DELETION_THRESHOLDS, PAPER_DELETIONS, PERIODIC_GUARDS } from '../policy/names';

export const VARIANTS = ['standard', 'error-free', 'shift', 'capacity'] as const;
export const PaperCellSchema = z.object({
  addition: z.enum(ADDITION_POLICIES),
  deletion: z.enum(PAPER_DELETIONS),
  variant: z.enum(VARIANTS),
  attribution: z.enum(ATTRIBUTIONS),
  /** The history rule's threshold: `paper` (β) or `relative` (a labelled mode beyond the paper). */
  threshold: z.enum(DELETION_THRESHOLDS).default('paper'),
  /** The periodic guard: `none` (the paper) or `last-of-kind` (a labelled mode beyond the paper). */
  guard: z.enum(PERIODIC_GUARDS).default('none'),
});
export type PaperCell = z.output<typeof PaperCellSchema>;
/** A cell as written by hand (threshold defaults to `paper`, guard to `none`). */
export type PaperCellInput = z.input<typeof PaperCellSchema>;

/** The paper's §6.2 capacity: the initial memory size of EHRAgent. */
export const PAPER_CAPACITY = 100;

const ADDITIONS = ADDITION_POLICIES;
const DELETIONS = PAPER_DELETIONS;

/** Every cell of the grid, in report order. */
export function paperCells(): PaperCell[] {
  const cells: PaperCell[] = [];
  const cell = (c: PaperCellInput): void => void cells.push(PaperCellSchema.parse(c));
  for (const addition of ADDITIONS) for (const deletion of DELETIONS) cell({ addition, deletion, variant: 'standard', attribution: 'shown' });
  for (const addition of ['coarse', 'strict'] as const) for (const deletion of ['history', 'combined'] as const) cell({ addition, deletion, variant: 'standard', attribution: 'followed' });
  // Beyond the paper (issue 19): Φ to the top-output-similarity record, and the relative threshold.
  for (const deletion of ['history', 'combined'] as const) cell({ addition: 'strict', deletion, variant: 'standard', attribution: 'top-output' });
  for (const attribution of ['shown', 'top-output'] as const) for (const deletion of ['history', 'combined'] as const) cell({ addition: 'strict', deletion, variant: 'standard', attribution, threshold: 'relative' });
  // Error-free (paper §4.4): the same retrievals as add-all (every task added), each record holding the ground truth.
  cell({ addition: 'all', deletion: 'none', variant: 'error-free', attribution: 'shown' });
  // Distribution shift (paper §6.1, Figure 6): fixed, strict, strict + history, strict + combined.
  for (const [addition, deletion] of [['fixed', 'none'], ['strict', 'none'], ['strict', 'history'], ['strict', 'combined']] as const) cell({ addition, deletion, variant: 'shift', attribution: 'shown' });
  // Capacity (paper §6.2): combined deletion modified to periodic + the single least-useful record, under a 100-record cap.
  cell({ addition: 'strict', deletion: 'combined', variant: 'capacity', attribution: 'shown' });
  return cells;
}

/**
 * The opt-in cells of the periodic guard (beyond the paper, after issue 19; `bench:paper --cells`
 * or `--guard`): `last-of-kind` on strict + periodic and on strict + combined with either threshold.
 * Not in the default grid, whose cells and time issue 19 fixed.
 */
export function guardCells(): PaperCell[] {
  return [
    PaperCellSchema.parse({ addition: 'strict', deletion: 'periodic', variant: 'standard', attribution: 'shown', guard: 'last-of-kind' }),
    ...(['paper', 'relative'] as const).map((threshold) => PaperCellSchema.parse({ addition: 'strict', deletion: 'combined', variant: 'standard', attribution: 'shown', threshold, guard: 'last-of-kind' })),
  ];
}

/** A cell's key: addition/deletion/variant/attribution, with `/relative` appended for the relative threshold and `/last-of-kind` for the periodic guard. */
export function cellKey(c: Pick<PaperCell, 'addition' | 'deletion' | 'variant' | 'attribution'> & { threshold?: PaperCell['threshold']; guard?: PaperCell['guard'] }): string {
  return `${c.addition}/${c.deletion}/${c.variant}/${c.attribution}${c.threshold === 'relative' ? '/relative' : ''}${c.guard === 'last-of-kind' ? '/last-of-kind' : ''}`;
}

/** The run configuration of a cell for one seed. */
/**
 * The capacity cell runs §6.2's modified combined deletion: the capacity rule alone
 * (periodic deletion, then the single least-useful record while over the cap, never a
 * never-evaluated one: capacityRule `paper`), not combined deletion plus a cap, which
 * would bulk-delete everything under β.
 */
export function cellConfig(cell: PaperCellInput, base: { seed: number; language: 'python' | 'javascript'; maxDebugRounds?: number; period?: number; switches?: FidelitySwitches; rerank?: boolean }): BenchConfigInput {
  const capacity = cell.variant === 'capacity';
  return {
    addition: cell.addition,
    deletion: capacity ? 'none' : cell.deletion,
    attribution: cell.attribution,
    historyThreshold: cell.threshold ?? 'paper',
    periodicGuard: cell.guard ?? 'none',
    order: cell.variant === 'shift' ? 'shift' : 'given',
    errorFree: cell.variant === 'error-free',
    ...(capacity ? { capacity: PAPER_CAPACITY, capacityRule: 'paper' as const } : {}),
    ...base.switches,
    seed: base.seed,
    language: base.language,
    ...(base.maxDebugRounds !== undefined ? { maxDebugRounds: base.maxDebugRounds } : {}),
    ...(base.period !== undefined ? { period: base.period } : {}),
    ...(base.rerank ? { rerank: true } : {}),
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
