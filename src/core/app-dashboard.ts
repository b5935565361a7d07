import type { DashboardData } from './app-types';
import type { MemoryStore } from './memory/store';
import type { TaskLog } from './memory/task-log';
import { DEFAULT_MISALIGNED } from './memory/record-query';

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
    out.tasks.push({ taskIndex: t.taskIndex, correct: t.utility, evaluator: t.evaluator, outcome: t.outcome, memorySize: memorySize ?? 0, inputSimilarity: t.inputSimilarity, outputSimilarity: t.outputSimilarity });
  }
  const hist = new Array<number>(UTILITY_BINS).fill(0);
  const utilities = store.db.prepare("SELECT utility_sum / utility_count AS u FROM records WHERE status = 'active' AND utility_count > 0").all() as { u: number }[];
  for (const { u } of utilities) hist[Math.min(UTILITY_BINS - 1, Math.floor(u * UTILITY_BINS))]++;
  out.utilityHistogram = hist.map((count, i) => ({ bin: `${(i / UTILITY_BINS).toFixed(1)}–${((i + 1) / UTILITY_BINS).toFixed(1)}`, count }));
  out.misaligned = (store.db.prepare(`SELECT id, question, in_sim_sum / in_sim_count AS mi, out_sim_sum / out_sim_count AS mo, retrieval_count AS n FROM records
    WHERE status = 'active' AND in_sim_count > 0 AND out_sim_count > 0 AND in_sim_sum / in_sim_count >= ? AND out_sim_sum / out_sim_count <= ?
    ORDER BY (in_sim_sum / in_sim_count) - (out_sim_sum / out_sim_count) DESC LIMIT 50`).all(misaligned.minInputSimilarity, misaligned.maxOutputSimilarity) as { id: string; question: string; mi: number; mo: number; n: number }[]).map((r) => ({
    recordId: r.id,
    question: r.question,
    meanInputSimilarity: r.mi,
    meanOutputSimilarity: r.mo,
    retrievals: r.n,
  }));
  return out;
}
