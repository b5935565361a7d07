import type { MemoryRecord, Language, Outcome, RecordStatus, Provenance } from '../types';

/** A `records` row as SQLite returns it (embedding excluded). */
export interface RecordRow {
  rid: number;
  id: string;
  question: string;
  code: string;
  language: Language;
  answer: string;
  outcome: Outcome;
  output_excerpt: string;
  demonstration_ids: string;
  input_similarity: number | null;
  output_similarity: number | null;
  status: RecordStatus;
  provenance: Provenance;
  created_task: number;
  created_at: string;
  updated_at: string;
  embedder_id: string | null;
  embedding_dim: number | null;
  metadata: string;
  retrieval_count: number;
  utility_sum: number;
  utility_count: number;
  last_retrieved_task: number | null;
  in_sim_sum: number;
  in_sim_count: number;
  out_sim_sum: number;
  out_sim_count: number;
  merged_count: number;
}

/** Every column but the embedding blob (kept out of list queries for speed). */
export const RECORD_COLUMNS = `rid, id, question, code, language, answer, outcome, output_excerpt, demonstration_ids,
  input_similarity, output_similarity, status, provenance, created_task, created_at, updated_at,
  embedder_id, embedding_dim, metadata, retrieval_count, utility_sum, utility_count, last_retrieved_task,
  in_sim_sum, in_sim_count, out_sim_sum, out_sim_count, merged_count`;

export function rowToRecord(row: RecordRow): MemoryRecord {
  return {
    id: row.id,
    question: row.question,
    execution: {
      code: row.code,
      language: row.language,
      answer: JSON.parse(row.answer) as unknown,
      outcome: row.outcome,
      outputExcerpt: row.output_excerpt,
      demonstrationIds: JSON.parse(row.demonstration_ids) as string[],
      inputSimilarity: row.input_similarity,
      outputSimilarity: row.output_similarity,
    },
    status: row.status,
    provenance: row.provenance,
    createdTask: row.created_task,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    embedderId: row.embedder_id,
    embeddingDim: row.embedding_dim,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    mergedCount: row.merged_count ?? 1,
    stats: {
      retrievalCount: row.retrieval_count,
      evaluatedCount: row.utility_count,
      meanUtility: row.utility_count > 0 ? row.utility_sum / row.utility_count : null,
      lastRetrievedTask: row.last_retrieved_task,
      meanInputSimilarity: row.in_sim_count > 0 ? row.in_sim_sum / row.in_sim_count : null,
      meanOutputSimilarity: row.out_sim_count > 0 ? row.out_sim_sum / row.out_sim_count : null,
    },
  };
}
