import type { DashboardData } from './types';
import type { MemoryStore } from '../memory/store';
import type { TaskLog } from '../memory/task-log';
import { DEFAULT_MISALIGNED } from '../memory/misaligned';

export const UTILITY_BINS = 5;

/** Everything the dashboard draws, computed from the task log and the records (SQL aggregates). */
export function dashboardData(store: MemoryStore, tasks: TaskLog, misaligned = DEFAULT_MISALIGNED): DashboardData {
  const rows = tasks.list();
  let correct = 0;
  let evaluated = 0;
  const out: DashboardData = { tasks: [], accuracyCurve: [], memorySizeCurve: [], similarityScatter: [], utilityHistogram: [], misaligned: [], counts: store.counts() };
  for (const t of rows) {
    const memorySize = typeof t.log.memorySize === 'number' ? t.log.memorySize : null;
    if (t.utility !== null) {
      evaluated++;
      correct += t.utility;
      out.accuracyCurve.push({ taskIndex: t.taskIndex, accuracy: correct / evaluated });
    }
    if (memorySize !== null) out.memorySizeCurve.push({ taskIndex: t.taskIndex, size: memorySize });
    if (t.inputSimilarity !== null && t.outputSimilarity !== null) out.similarityScatter.push({ taskIndex: t.taskIndex, input: t.inputSimilarity, output: t.outputSimilarity });
    out.tasks.push({ taskIndex: t.taskIndex, correct: t.utility, memorySize: memorySize ?? 0, inputSimilarity: t.inputSimilarity, outputSimilarity: t.outputSimilarity });
  }
  const hist = new Array<number>(UTILITY_BINS).fill(0);
  for (const u of store.queries.activeMeanUtilities()) hist[Math.min(UTILITY_BINS - 1, Math.floor(u * UTILITY_BINS))]++;
  out.utilityHistogram = hist.map((count, i) => ({ bin: `${(i / UTILITY_BINS).toFixed(1)}–${((i + 1) / UTILITY_BINS).toFixed(1)}`, count }));
  out.misaligned = store.queries.misaligned(misaligned, 50);
  return out;
}
