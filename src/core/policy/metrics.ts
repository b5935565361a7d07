import type { RetrievedDemonstration } from '../memory/demonstration';
import { DEFAULT_MISALIGNED, isMisaligned, MisalignedThresholds } from '../memory/misaligned';
import type { MemoryStore } from '../memory/sqlite/store';
import type { TaskLog } from '../memory/sqlite/task-log';
import type { Language, MemoryRecord } from '../memory/types';

/**
 * Experience-following metrics (paper §4.3, §5.3, Appendix A.2; SPEC §4).
 *
 * - Task input similarity: max over the retrieved records' input similarity.
 * - Task output similarity: codeSimilarity(code of the retrieved record with the
 *   highest input similarity, task's final code) — reference first, as the
 *   paper's pycode_similar call (the score is asymmetric).
 * - Record: mean input / output similarity over its retrievals, and the
 *   misaligned-replay flag: the one rule of src/core/memory/misaligned.ts (the
 *   explorer, the dashboard and the listing filter use the same).
 */
export type CodeSimilarityFn = (reference: string, candidate: string, language: Language) => number;

/** What the similarity metrics need of a retrieved demonstration (code: for output similarity). */
export type SimilarityInput = Pick<RetrievedDemonstration, 'recordId' | 'inputSimilarity'> & Partial<Pick<RetrievedDemonstration, 'code' | 'language'>>;
export type { MisalignedThresholds };

export interface TaskSimilarity {
  inputSimilarity: number | null;
  outputSimilarity: number | null;
  /** The retrieved record with the highest input similarity (the output similarity's reference). */
  topRecordId: string | null;
}


/**
 * Computes a task's input and output similarity.
 *
 * @example
 * taskSimilarity([{ recordId: 'a', inputSimilarity: 0.9, code: 'x = 1' }], 'x = 2', 'python', codeSimilarity);
 */
export function taskSimilarity(retrieved: readonly SimilarityInput[], finalCode: string | null, language: Language, codeSimilarity?: CodeSimilarityFn): TaskSimilarity {
  let top: SimilarityInput | null = null;
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
  return { meanInputSimilarity, meanOutputSimilarity, misaligned: isMisaligned(record.stats, thresholds) };
}

/** Records flagged as misaligned replay (set-based, via the store's listing). */
export function misalignedRecords(store: MemoryStore, thresholds: MisalignedThresholds = DEFAULT_MISALIGNED, limit = 200): MemoryRecord[] {
  return store.list({ misalignedOnly: true, misaligned: thresholds, status: 'active', sort: 'retrievals', limit }).items;
}
