import type { DashboardData, DashboardSummary } from './types';
import type { MemoryStore } from '../memory/sqlite/store';
import type { TaskLog } from '../memory/sqlite/task-log';
import { DEFAULT_MISALIGNED } from '../memory/misaligned';
import { awaitsApproval, countVerdicts, humanDecision, taskVerdict, verdictIsCorrect } from '../agent/task-verdict';
import type { TaskVerdict } from '../agent/task-evaluators';

export const UTILITY_BINS = 5;

/**
 * Everything the dashboard draws, computed from the task log and the records (SQL aggregates).
 * Each task's verdict comes from `taskVerdict`, the function the task results (toasts, stream
 * summary) use: a gold-checked task of an editor stream is correct/wrong at once, and stays so
 * whatever the user later approves or rejects (that decision is reported on its own).
 */
export function dashboardData(store: MemoryStore, tasks: TaskLog, misaligned = DEFAULT_MISALIGNED): DashboardData {
  const rows = tasks.list();
  let correct = 0;
  let wrong = 0;
  let ran = 0;
  const verdicts: TaskVerdict[] = [];
  let awaitingApproval = 0;
  const recordStatus = (id: string) => store.get(id)?.status;
  const out: DashboardData = { tasks: [], accuracyCurve: [], outcomeCurve: [], memorySizeCurve: [], similarityScatter: [], utilityHistogram: [], misaligned: [], counts: store.counts(), summary: emptySummary(), summaryText: '' };
  for (const t of rows) {
    const memorySize = typeof t.log.memorySize === 'number' ? t.log.memorySize : null;
    const verdict = taskVerdict(t);
    verdicts.push(verdict);
    if (awaitsApproval(t, recordStatus)) awaitingApproval++;
    const right = verdictIsCorrect(verdict);
    if (t.outcome === 'success') ran++;
    if (right !== null) {
      if (right) correct++;
      else wrong++;
      out.accuracyCurve.push({ taskIndex: t.taskIndex, accuracy: correct / (correct + wrong) });
    }
    out.outcomeCurve.push({ taskIndex: t.taskIndex, ran, correct, wrong });
    if (memorySize !== null) out.memorySizeCurve.push({ taskIndex: t.taskIndex, size: memorySize });
    if (t.inputSimilarity !== null && t.outputSimilarity !== null) out.similarityScatter.push({ taskIndex: t.taskIndex, input: t.inputSimilarity, output: t.outputSimilarity });
    out.tasks.push({ taskIndex: t.taskIndex, verdict, decision: humanDecision(t), utility: t.utility, outcome: t.outcome, memorySize: memorySize ?? 0, inputSimilarity: t.inputSimilarity, outputSimilarity: t.outputSimilarity });
  }
  const decisions = out.tasks.map((t) => t.decision);
  out.summary = {
    tasks: rows.length,
    ran,
    ...countVerdicts(verdicts),
    awaitingApproval,
    youApproved: decisions.filter((d) => d === 'approved').length,
    youRejected: decisions.filter((d) => d === 'rejected').length,
  };
  out.summaryText = dashboardSummaryText(out.summary);
  const hist = new Array<number>(UTILITY_BINS).fill(0);
  for (const u of store.queries.activeMeanUtilities()) hist[Math.min(UTILITY_BINS - 1, Math.floor(u * UTILITY_BINS))]++;
  out.utilityHistogram = hist.map((count, i) => ({ bin: `${(i / UTILITY_BINS).toFixed(1)}–${((i + 1) / UTILITY_BINS).toFixed(1)}`, count }));
  out.misaligned = store.queries.misaligned(misaligned, 50);
  return out;
}

function emptySummary(): DashboardSummary {
  return { tasks: 0, ran: 0, correct: 0, wrong: 0, approved: 0, rejected: 0, judgedCorrect: 0, judgedWrong: 0, unchecked: 0, noGoldAnswer: 0, awaitingApproval: 0, youApproved: 0, youRejected: 0 };
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * The dashboard's summary line, in the toasts' words: correct / wrong and who judged (how many
 * a non-empty gold answer checked), not checked (and why: no gold answer on this database,
 * awaiting approval), and the user's approvals on their own.
 *
 * @example
 * dashboardSummaryText(d.summary) // "20 tasks · 20 ran · 5 correct · 6 wrong (11 checked against a non-empty gold answer) · 9 not checked (9 without a gold answer on this database) · you approved 3"
 */
export function dashboardSummaryText(s: DashboardSummary): string {
  const right = s.correct + s.approved + s.judgedCorrect;
  const bad = s.wrong + s.rejected + s.judgedWrong;
  const by = [
    s.correct + s.wrong > 0 || s.noGoldAnswer > 0 ? `${s.correct + s.wrong} checked against a non-empty gold answer` : '',
    s.approved + s.rejected > 0 ? `${s.approved + s.rejected} by you` : '',
    s.judgedCorrect + s.judgedWrong > 0 ? `${s.judgedCorrect + s.judgedWrong} by the LLM judge` : '',
  ].filter(Boolean);
  const parts = [plural(s.tasks, 'task'), `${s.ran} ran`, `${right} correct`, `${bad} wrong${by.length ? ` (${by.join(', ')})` : ''}`];
  const why = [s.noGoldAnswer > 0 ? `${s.noGoldAnswer} without a gold answer on this database` : '', s.awaitingApproval > 0 ? `${s.awaitingApproval} await your approval` : ''].filter(Boolean);
  parts.push(`${s.unchecked} not checked${why.length ? ` (${why.join('; ')})` : ''}`);
  const decided = [s.youApproved > 0 ? `approved ${s.youApproved}` : '', s.youRejected > 0 ? `rejected ${s.youRejected}` : ''].filter(Boolean);
  if (decided.length) parts.push(`you ${decided.join(', ')}`);
  return parts.join(' · ');
}
