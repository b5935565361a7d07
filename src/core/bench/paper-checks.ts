/**
 * What the paper grid must show (issue 9, "What it must show"), evaluated on
 * the measured per-seed results and reported as measured — met or not, with
 * the figure. Differences between two cells are paired by seed (both cells of
 * a seed share the stream, the initial memory and the agent's dice), so each
 * comparison carries the 95 % CI of the paired difference.
 *
 * These are reports, never gates: a check that is not met is printed with its
 * figure and the run still succeeds.
 */
import type { GridCellJson, GridJson } from './paper-aggregate';
import { cellKey } from './paper-cells';
import { meanCi, round } from './stats';

export interface PaperCheck {
  /** What is claimed, in words. */
  claim: string;
  met: boolean;
  /** The measured figure behind the verdict. */
  measured: string;
  /** Paired difference (percentage points) with its 95 % CI, when the check compares two cells. */
  difference?: { mean: number; ci95: [number, number] };
}

const key = cellKey;

/** Issue 19's claims on the paper-length stream (`--stream paper`), fixed before any run: points gained, points lost, memory share. */
export const LONG_STREAM = { gain: 5, loss: 2, share: 0.5 } as const;

function cell(json: GridJson, k: string): GridCellJson | undefined {
  return json.cells.find((c) => key(c) === k);
}

/** Paired (by seed) difference a − b in points. */
export function pairedDifference(a: GridCellJson, b: GridCellJson): { mean: number; ci95: [number, number] } {
  const n = Math.min(a.per_seed.length, b.per_seed.length);
  const d = meanCi(Array.from({ length: n }, (_, i) => a.per_seed[i] - b.per_seed[i]));
  return { mean: round(d.mean), ci95: [round(d.ci95[0]), round(d.ci95[1])] };
}

function fmt(d: { mean: number; ci95: [number, number] }): string {
  return `${d.mean >= 0 ? '+' : ''}${d.mean.toFixed(2)} points [${d.ci95[0].toFixed(2)}, ${d.ci95[1].toFixed(2)}]`;
}

/** strict ≥ other + margin (on the mean paired difference). */
function atLeast(json: GridJson, better: string, worse: string, margin: number, claim: string): PaperCheck | null {
  const a = cell(json, better);
  const b = cell(json, worse);
  if (!a || !b) return null;
  const difference = pairedDifference(a, b);
  return { claim, met: difference.mean >= margin, measured: `${a.accuracy_mean.toFixed(2)} % vs ${b.accuracy_mean.toFixed(2)} %: ${fmt(difference)}`, difference };
}

/**
 * `lean` within `points` of `full` with at most `share` of its memory; `oneSided`: at least
 * `full` − `points` (a gain is not a miss; issue 19: deletion must not hurt).
 */
function withinAndSmaller(json: GridJson, lean: string, full: string, points: number, share: number, claim: string, oneSided = false): PaperCheck | null {
  const a = cell(json, lean);
  const b = cell(json, full);
  if (!a || !b) return null;
  const difference = pairedDifference(a, b);
  const ratio = b.memory_mean > 0 ? a.memory_mean / b.memory_mean : Number.POSITIVE_INFINITY;
  return {
    claim,
    met: (oneSided ? difference.mean >= -points : Math.abs(difference.mean) <= points) && ratio <= share,
    measured: `accuracy ${fmt(difference)}; memory ${a.memory_mean} vs ${b.memory_mean} (${(100 * ratio).toFixed(0)} %)`,
    difference,
  };
}

/** `lean` at least `full` − `points` (mean paired difference) with less memory (issue 19, the relative threshold). */
function notWorseAndSmaller(json: GridJson, lean: string, full: string, points: number, claim: string): PaperCheck | null {
  const a = cell(json, lean);
  const b = cell(json, full);
  if (!a || !b) return null;
  const difference = pairedDifference(a, b);
  return { claim, met: difference.mean >= -points && a.memory_mean < b.memory_mean, measured: `accuracy ${fmt(difference)}; memory ${a.memory_mean} vs ${b.memory_mean}`, difference };
}

function floorHolds(json: GridJson): PaperCheck {
  const low = json.cells.reduce<GridCellJson | null>((m, c) => (m === null || c.memory_min < m.memory_min ? c : m), null);
  return {
    claim: 'active memory never reaches 0 in any cell',
    met: low !== null && low.memory_min > 0,
    measured: low ? `smallest active memory at any point of any seed: ${low.memory_min} (${key(low)})` : 'no cells',
  };
}

/**
 * The issues' checks for this agent's grid and stream (issue 19's on the paper-length stream,
 * issue 9's on the human one); a check whose cells were not run is left out.
 *
 * @example
 * for (const c of paperChecks(json)) log(`${c.met ? 'met' : 'NOT met'}: ${c.claim} — ${c.measured}`);
 */
export function paperChecks(json: GridJson): PaperCheck[] {
  const checks: (PaperCheck | null)[] = [];
  if (json.agent === 'simulated' && json.stream === 'paper') {
    // Issue 19, the paper-length stream: the paper's gaps (Table 1: strict 38.86 vs fixed 16.89), one-sided for deletion.
    const { gain, loss, share } = LONG_STREAM;
    checks.push(atLeast(json, 'strict/none/standard/shown', 'fixed/none/standard/shown', gain, `strict ≥ fixed + ${gain} points`));
    checks.push(atLeast(json, 'strict/none/standard/shown', 'all/none/standard/shown', gain, `strict ≥ all + ${gain} points`));
    checks.push(withinAndSmaller(json, 'strict/combined/standard/shown', 'strict/none/standard/shown', loss, share, `strict + combined (paper threshold) ≥ strict − ${loss} points with ≤ ${100 * share} % of its memory`, true));
  } else if (json.agent === 'simulated') {
    checks.push(atLeast(json, 'strict/none/standard/shown', 'fixed/none/standard/shown', 2, 'strict ≥ fixed + 2 points'));
    checks.push(atLeast(json, 'strict/none/standard/shown', 'all/none/standard/shown', 2, 'strict ≥ all + 2 points'));
    checks.push(withinAndSmaller(json, 'strict/combined/standard/shown', 'strict/none/standard/shown', 2, 0.5, 'strict + combined within 2 points of strict with ≤ 50 % of its memory (attribution shown, the paper)'));
    checks.push(withinAndSmaller(json, 'strict/combined/standard/followed', 'strict/none/standard/shown', 2, 0.5, 'strict + combined within 2 points of strict with ≤ 50 % of its memory (attribution followed, beyond the paper)'));
  }
  checks.push(notWorseAndSmaller(json, 'strict/combined/standard/shown/relative', 'strict/none/standard/shown', 1, 'strict + combined with the relative threshold (beyond the paper) ≥ strict − 1 point, with less memory'));
  checks.push(notWorseAndSmaller(json, 'strict/combined/standard/shown/relative/last-of-kind', 'strict/none/standard/shown', 1, 'the same with the periodic guard last-of-kind (beyond the paper; opt-in cells)'));
  checks.push(floorHolds(json));
  return checks.filter((c): c is PaperCheck => c !== null);
}

/** One line per check, for logs and the README. */
export function formatChecks(checks: readonly PaperCheck[]): string {
  return checks.map((c) => `${c.met ? 'met    ' : 'NOT met'}  ${c.claim}: ${c.measured}`).join('\n');
}
