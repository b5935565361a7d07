/**
 * Aggregates the per-seed results of the many-seed grid into the JSON
 * (`{agent, seeds, seed_base, tasks, cells: [...]}`, accuracies in percent,
 * 95 % CIs over seeds) and into mean curves with CI bands for report.html.
 */
import { cellKey, PaperCell, PAPER_EHR } from './paper-cells';
import type { FidelitySwitches } from './config';
import type { AgentKind, CellSeedResult } from './paper-seed';
import { meanCi, round } from './stats';

export interface GridCellJson {
  addition: PaperCell['addition'];
  deletion: PaperCell['deletion'];
  variant: PaperCell['variant'];
  attribution: PaperCell['attribution'];
  /** The history rule's threshold: `paper` (β) or `relative` (beyond the paper). */
  threshold?: PaperCell['threshold'];
  /** The periodic guard: `none` (the paper) or `last-of-kind` (beyond the paper). */
  guard?: PaperCell['guard'];
  accuracy_mean: number;
  accuracy_ci95: [number, number];
  memory_mean: number;
  memory_min: number;
  per_seed: number[];
}

export interface GridJson {
  agent: AgentKind;
  /** Present for the simulated agent: results of a simulation, not of a language model. */
  label?: string;
  seeds: number;
  seed_base: number;
  tasks: number;
  /** Which stream (`human` | `paper`, see config.ts BENCH_STREAMS) and its periodic window. */
  stream?: string;
  period?: number;
  cells: GridCellJson[];
  /** The paper-fidelity switches the grid ran with (bench:paper flags). */
  switches?: FidelitySwitches;
  /** The stream's retrieval: `fused` (the CLI's and the benches' default) or `re-ranked` (bench:paper --rerank). */
  retrieval?: 'fused' | 're-ranked';
}

export interface CellCurves {
  key: string;
  accuracy: { mean: number[]; lo: number[]; hi: number[] };
  memory: number[];
  groupStarts: number[];
  /** Experience-following scatter of the first seed: [input, output] similarity per task. */
  scatter: [number, number][];
}

function bySeed(results: readonly CellSeedResult[], key: string): CellSeedResult[] {
  return results.filter((r) => r.key === key).sort((a, b) => a.seed - b.seed);
}

/**
 * @example
 * const json = aggregateGrid('simulated', 10, 100, cells, results);
 * process.stdout.write(JSON.stringify(json) + '\n');
 */
export function aggregateGrid(agent: AgentKind, seeds: number, seedBase: number, cells: readonly PaperCell[], results: readonly CellSeedResult[], label?: string): GridJson {
  const out: GridCellJson[] = cells.map((cell) => {
    const rs = bySeed(results, cellKey(cell));
    const acc = meanCi(rs.map((r) => r.accuracy));
    return {
      ...cell,
      accuracy_mean: round(acc.mean),
      accuracy_ci95: [round(acc.ci95[0]), round(acc.ci95[1])],
      memory_mean: round(meanCi(rs.map((r) => r.memoryFinal)).mean, 1),
      memory_min: rs.length ? Math.min(...rs.map((r) => r.memoryMin)) : Number.NaN,
      per_seed: rs.map((r) => round(r.accuracy)),
    };
  });
  return { agent, ...(label ? { label } : {}), seeds, seed_base: seedBase, tasks: results[0]?.tasks ?? 0, cells: out };
}

/** Mean cumulative-accuracy curve with a 95 % CI band, and the mean memory curve, per cell. */
export function cellCurves(cells: readonly PaperCell[], results: readonly CellSeedResult[]): CellCurves[] {
  return cells.map((cell) => {
    const rs = bySeed(results, cellKey(cell));
    const n = Math.min(...rs.map((r) => r.accuracyCurve.length));
    const mean: number[] = [];
    const lo: number[] = [];
    const hi: number[] = [];
    const memory: number[] = [];
    for (let i = 0; i < n; i++) {
      const a = meanCi(rs.map((r) => r.accuracyCurve[i]));
      mean.push(round(a.mean));
      lo.push(round(a.ci95[0]));
      hi.push(round(a.ci95[1]));
      memory.push(round(meanCi(rs.map((r) => r.memoryCurve[i])).mean, 1));
    }
    const scatter = (rs[0]?.scatter ?? []).filter((p): p is [number, number] => p[0] !== null && p[1] !== null).map(([x, y]) => [round(x, 3), round(y, 3)] as [number, number]);
    return { key: cellKey(cell), accuracy: { mean, lo, hi }, memory, groupStarts: rs[0]?.groupStarts ?? [], scatter };
  });
}

export interface PaperComparisonRow {
  key: string;
  paper_accuracy: number;
  paper_memory: number;
  predicted_accuracy: number;
  predicted_ci95: [number, number];
  predicted_memory: number;
  /** True for the two cells calibration fitted (not predictions). */
  fitted: boolean;
}

/** Predicted vs paper, cell by cell, for the cells the paper reports. */
export function paperComparison(json: GridJson, fittedKeys: readonly string[]): PaperComparisonRow[] {
  return json.cells
    .map((c) => ({ c, key: cellKey(c) }))
    .filter(({ key }) => PAPER_EHR[key] !== undefined)
    .map(({ c, key }) => ({
      key,
      paper_accuracy: PAPER_EHR[key].accuracy,
      paper_memory: PAPER_EHR[key].memory,
      predicted_accuracy: c.accuracy_mean,
      predicted_ci95: c.accuracy_ci95,
      predicted_memory: c.memory_mean,
      fitted: fittedKeys.includes(key),
    }));
}

/**
 * The predicted-vs-paper table as text: every Table 1 and Table 2 cell the
 * paper reports, the prediction (mean, 95 % CI, memory), the error
 * (predicted − paper, in points) and whether the paper's figure lies in the CI.
 */
export function formatComparison(rows: readonly PaperComparisonRow[]): string {
  const out = ['cell                               paper %  predicted %  95 % CI            error   in CI  paper mem  pred. mem'];
  for (const r of rows) {
    const error = r.predicted_accuracy - r.paper_accuracy;
    const inCi = r.paper_accuracy >= r.predicted_ci95[0] && r.paper_accuracy <= r.predicted_ci95[1];
    out.push(
      `${(r.key + (r.fitted ? ' (fitted)' : '')).padEnd(34)} ${r.paper_accuracy.toFixed(2).padStart(7)}  ${r.predicted_accuracy.toFixed(2).padStart(11)}  [${r.predicted_ci95[0].toFixed(2)}, ${r.predicted_ci95[1].toFixed(2)}]`.padEnd(77) +
        `${(error >= 0 ? '+' : '') + error.toFixed(2)}`.padStart(7) +
        `  ${inCi ? 'yes' : 'no '}  ${String(r.paper_memory).padStart(9)}  ${r.predicted_memory.toFixed(1).padStart(9)}`,
    );
  }
  const predicted = rows.filter((r) => !r.fitted);
  const mae = predicted.reduce((s, r) => s + Math.abs(r.predicted_accuracy - r.paper_accuracy), 0) / Math.max(1, predicted.length);
  out.push(`mean absolute error over the ${predicted.length} predicted (not fitted) cells: ${mae.toFixed(2)} points`);
  return out.join('\n');
}
