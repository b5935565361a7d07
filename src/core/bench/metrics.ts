/**
 * metrics.json of a benchmark run: final accuracy, memory size, the curves of
 * the paper's Figures 2–5 (cumulative accuracy, memory size, cumulative mean
 * input / output similarity), token counts and the agent overhead, plus the
 * per-task rows they were computed from.
 */
import type { BenchRun, BenchTaskRow } from './harness';

export const METRICS_FORMAT = 'agent-memory.bench-metrics/1';

export interface OverheadSummary {
  mean: number;
  p50: number;
  p95: number;
  max: number;
}

export interface BenchMetrics {
  format: typeof METRICS_FORMAT;
  model: string;
  embedder: string;
  config: BenchRun['config'];
  tasks: number;
  correct: number;
  final_accuracy: number;
  initial_memory_size: number;
  memory_size_final: number;
  /** Cumulative accuracy after each task (correct so far / tasks so far). */
  accuracy_curve: number[];
  /** Active records after each task. */
  memory_size_curve: number[];
  /** Cumulative mean input / output similarity after each task (null until the first defined value). */
  input_similarity_curve: (number | null)[];
  output_similarity_curve: (number | null)[];
  mean_input_similarity: number | null;
  mean_output_similarity: number | null;
  prompt_tokens: number;
  completion_tokens: number;
  /** Mean agent overhead per task (loop overhead + policy bookkeeping; model and code-execution time excluded). */
  agent_overhead_ms_per_task: number;
  agent_overhead_ms: OverheadSummary;
  records_added: number;
  records_deleted: number;
  /** Tasks that followed a record that is itself correct (seed or ground-truth-correct addition). */
  followed_correct_record: number;
  group_starts: number[];
  run_cache: BenchRun['runCache'];
  duration_ms: number;
  rows: BenchTaskRow[];
}

function round(x: number, digits = 6): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

function cumulativeMean(values: (number | null)[]): (number | null)[] {
  let sum = 0;
  let n = 0;
  return values.map((v) => {
    if (v !== null && Number.isFinite(v)) {
      sum += v;
      n++;
    }
    return n === 0 ? null : round(sum / n);
  });
}

function mean(values: (number | null)[]): number | null {
  const xs = values.filter((v): v is number => v !== null && Number.isFinite(v));
  return xs.length === 0 ? null : round(xs.reduce((s, x) => s + x, 0) / xs.length);
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i];
}

/** Mean, median, 95th percentile and max of per-task overheads (ms, 3 decimals). */
export function summarizeOverhead(values: number[]): OverheadSummary {
  const sorted = [...values].sort((a, b) => a - b);
  const avg = sorted.length ? sorted.reduce((s, x) => s + x, 0) / sorted.length : 0;
  return { mean: round(avg, 3), p50: round(quantile(sorted, 0.5), 3), p95: round(quantile(sorted, 0.95), 3), max: round(sorted.at(-1) ?? 0, 3) };
}

/**
 * @example
 * const metrics = computeMetrics(await runBench(plan, config, deps));
 * fs.writeFileSync('out/metrics.json', JSON.stringify(metrics, null, 2));
 */
export function computeMetrics(run: BenchRun): BenchMetrics {
  const rows = run.rows;
  let correct = 0;
  const accuracy = rows.map((r, i) => {
    correct += r.correct;
    return round(correct / (i + 1));
  });
  const overhead = summarizeOverhead(rows.map((r) => r.overheadMs));
  return {
    format: METRICS_FORMAT,
    model: run.model,
    embedder: run.embedderId,
    config: run.config,
    tasks: rows.length,
    correct,
    final_accuracy: rows.length ? round(correct / rows.length) : 0,
    initial_memory_size: run.initialMemory,
    memory_size_final: rows.at(-1)?.memorySize ?? run.initialMemory,
    accuracy_curve: accuracy,
    memory_size_curve: rows.map((r) => r.memorySize),
    input_similarity_curve: cumulativeMean(rows.map((r) => r.inputSimilarity)),
    output_similarity_curve: cumulativeMean(rows.map((r) => r.outputSimilarity)),
    mean_input_similarity: mean(rows.map((r) => r.inputSimilarity)),
    mean_output_similarity: mean(rows.map((r) => r.outputSimilarity)),
    prompt_tokens: rows.reduce((s, r) => s + r.promptTokens, 0),
    completion_tokens: rows.reduce((s, r) => s + r.completionTokens, 0),
    agent_overhead_ms_per_task: overhead.mean,
    agent_overhead_ms: overhead,
    records_added: rows.filter((r) => r.added).length,
    records_deleted: rows.reduce((s, r) => s + r.deleted, 0),
    followed_correct_record: rows.filter((r) => r.followedCorrect === true).length,
    group_starts: run.groupStarts,
    run_cache: run.runCache,
    duration_ms: round(run.durationMs, 1),
    rows,
  };
}
