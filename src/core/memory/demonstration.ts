import type { Language } from './types';

/**
 * A memory record retrieved for a task, as the agent's prompt uses it: the one
 * `RetrievedDemonstration` type of the code base (the retriever returns it, the
 * agent loop shows it, the memory manager credits it, the editor displays it).
 */
export interface RetrievedDemonstration {
  recordId: string;
  question: string;
  code: string;
  language: Language;
  /** Cosine between the task's and the record's embeddings (null for a keyword-only hit). */
  inputSimilarity: number | null;
  /** 0-based rank in the retrieval. */
  rank: number;
  /** Relevance in [0, 1] (search/relevance.ts), when the retrieval scored it (a search with a floor). */
  relevance?: number;
  /** Other active records with the same normalised program, collapsed behind this one ("+12 identical"); 0 or absent: none. */
  identical?: number;
  /**
   * Whether the record was actually placed in the prompt (the prompt builder may
   * drop demonstrations for its token budget). Set once the prompt was built;
   * only shown records take the task's Φ (SPEC §1 step 3).
   */
  shown?: boolean;
}

/**
 * What the memory manager needs of each retrieved record after a task: its id,
 * input similarity, whether it was shown, and (for output similarity and the
 * `followed` attribution) its code.
 */
export type DemonstrationAttributionInput = Pick<RetrievedDemonstration, 'recordId' | 'inputSimilarity'> &
  Partial<Pick<RetrievedDemonstration, 'code' | 'language'>> & { shown: boolean };
