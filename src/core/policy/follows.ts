/**
 * The `followed` attribution's one rule (the paper's §5.3 idea, thresholded): a task's final code follows
 * a retrieved record when their code similarity reaches the follow threshold. A similarity that throws
 * or is not finite counts as 0 (nothing followed). Used by the personal memory's manager and the team
 * memory's tool credit alike.
 */
import type { CodeSimilarityFn } from './metrics';
import type { Language } from '../memory/types';

/** Code similarity of a record's code to the task's final code; 0 when it cannot be computed. */
export function followSimilarity(similarity: CodeSimilarityFn, recordCode: string, finalCode: string, language: Language): number {
  try {
    const sim = similarity(recordCode, finalCode, language);
    return Number.isFinite(sim) ? sim : 0;
  } catch {
    return 0;
  }
}

/** Whether the final code follows the record's code: similarity ≥ threshold. */
export function follows(similarity: CodeSimilarityFn, recordCode: string, finalCode: string, language: Language, threshold: number): boolean {
  return followSimilarity(similarity, recordCode, finalCode, language) >= threshold;
}
