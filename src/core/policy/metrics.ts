import { DEFAULT_MISALIGNED } from '../memory/record-query';
import type { MemoryStore } from '../memory/store';
import type { TaskLog } from '../memory/task-log';
import type { Language, MemoryRecord } from '../memory/types';

/**
 * Experience-following metrics (paper §4.3, §5.3, Appendix A.2; SPEC §4).
 *
 * - Task input similarity: max over the retrieved records' input similarity.
 * - Task output similarity: codeSimilarity(code of the retrieved record with the
 *   highest input similarity, task's final code) — reference first, as the
 *   paper's pycode_similar call (the score is asymmetric).
 * - Record: mean input / output similarity over its retrievals, and the
 *   misaligned-replay flag (mean input ≥ minInputSimilarity and mean output ≤
 *   maxOutputSimilarity; defaults DEFAULT_MISALIGNED from record-query.ts, the
 *   same thresholds the explorer's "misaligned only" filter uses).
 */
export type CodeSimilarityFn = (reference: string, candidate: string, language: Language) => number;

export interface RetrievedDemonstration {
  recordId: string;
  inputSimilarity: number | null;
  /** The record's code (needed for output similarity). */
  code?: string;
  language?: Language;
  /**
   * Whether the demonstration was placed in the coder's prompt (the prompt builder
   * drops some for the token budget). Absent: shown. Set by the task pipeline.
   */
  shown?: boolean;
}

export interface TaskSimilarity {
  inputSimilarity: number | null;
  outputSimilarity: number | null;
  /** The retrieved record with the highest input similarity (the output similarity's reference). */
  topRecordId: string | null;
}

export interface MisalignedThresholds {
  minInputSimilarity: number;
  maxOutputSimilarity: number;
}

/**
 * Computes a task's input and output similarity.
 *
 * @example
 * taskSimilarity([{ recordId: 'a', inputSimilarity: 0.9, code: 'x = 1' }], 'x = 2', 'python', codeSimilarity);
 */
export function taskSimilarity(retrieved: readonly RetrievedDemonstration[], finalCode: string | null, language: Language, codeSimilarity?: CodeSimilarityFn): TaskSimilarity {
  let top: RetrievedDemonstration | null = null;
  for (const r of retrieved) {
    if (r.inputSimilarity === null) continue;
    if (top === null || r.inputSimilarity > (top.inputSimilarity as number)) top = r;
  }
  if (!top) return { inputSimilarity: null, outputSimilarity: null, topRecordId: retrieved[0]?.recordId ?? null };
  let outputSimilarity: number | null = null;
  if (codeSimilarity && finalCode !== null && top.code !== undefined) {
    const value = codeSimilarity(top.code, finalCode, top.language ?? language);
    outputSimilarity = Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : null;
  }
  return { inputSimilarity: top.inputSimilarity, outputSimilarity, topRecordId: top.recordId };
}

/** Writes a task's similarities: the output similarity onto the top retrieval row, both onto the task row. */
export function recordTaskSimilarity(tasks: TaskLog, taskIndex: number, similarity: TaskSimilarity): void {
  if (similarity.outputSimilarity !== null && similarity.topRecordId !== null) {
    tasks.setOutputSimilarity(taskIndex, similarity.topRecordId, similarity.outputSimilarity);
  }
  tasks.finish(taskIndex, { inputSimilarity: similarity.inputSimilarity, outputSimilarity: similarity.outputSimilarity });
}

export interface RecordAlignment {
  meanInputSimilarity: number | null;
  meanOutputSimilarity: number | null;
  misaligned: boolean;
}

/**
 * Mean similarities of a record and its misaligned-replay flag.
 *
 * @example
 * recordAlignment(store.require(id)).misaligned;
 */
export function recordAlignment(record: MemoryRecord, thresholds: MisalignedThresholds = DEFAULT_MISALIGNED): RecordAlignment {
  const { meanInputSimilarity, meanOutputSimilarity } = record.stats;
  const misaligned = meanInputSimilarity !== null && meanOutputSimilarity !== null && meanInputSimilarity >= thresholds.minInputSimilarity && meanOutputSimilarity <= thresholds.maxOutputSimilarity;
  return { meanInputSimilarity, meanOutputSimilarity, misaligned };
}

/** Records flagged as misaligned replay (set-based, via the store's listing). */
export function misalignedRecords(store: MemoryStore, thresholds: MisalignedThresholds = DEFAULT_MISALIGNED, limit = 200): MemoryRecord[] {
  return store.list({ misalignedOnly: true, misaligned: thresholds, status: 'active', sort: 'retrievals', limit }).items;
}
