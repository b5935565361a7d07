/** Deterministic data for `bench:team`: unit vectors and the shared records it seeds. */
import type { MemoryContent } from '../../core/memory/postgres/transfer';

/** A deterministic unit vector of `dim` dimensions for `seed`. */
export function benchVector(seed: number, dim: number): Float32Array {
  const v = new Float32Array(dim);
  let x = seed * 2654435761 + 1;
  let norm = 0;
  for (let i = 0; i < dim; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    v[i] = x / 2147483648 - 0.5;
    norm += v[i] * v[i];
  }
  norm = Math.sqrt(norm);
  for (let i = 0; i < dim; i++) v[i] /= norm;
  return v;
}

const WORDS = ['admissions', 'patients', 'prescriptions', 'diagnoses', 'icu', 'stays', 'lab', 'events', 'procedures', 'transfers', 'careunit', 'drug', 'dose', 'count', 'average', 'year'];

/** `n` active shared records (as a migration content: one bulk insert). */
export function benchRecords(n: number, dim: number): MemoryContent {
  const now = new Date().toISOString();
  const records = Array.from({ length: n }, (_, i) => ({
    id: `shared-${i}`, question: `how many ${WORDS[i % 16]} ${WORDS[(i >> 4) % 16]} in ${2100 + (i % 50)} case ${i}`, code: `answer = sql('select count(*) from t${i % 97}')`,
    language: 'python', answer: 'null', outcome: 'success', output_excerpt: '', demonstration_ids: '[]', input_similarity: null, output_similarity: null,
    status: 'active', provenance: 'seed', created_task: 0, created_at: now, updated_at: now, status_before_delete: null, embedder_id: 'bench', embedding_dim: dim,
    metadata: '{}', retrieval_count: 0, utility_sum: 0, utility_count: 0, last_retrieved_task: null, in_sim_sum: 0, in_sim_count: 0, out_sim_sum: 0, out_sim_count: 0,
    merged_count: 1, dedup_key: null, embedding: Array.from(benchVector(10_000_000 + i, dim)),
  }));
  return { records, tasks: [], retrievals: [], audit: [], meta: { embedder_id: 'bench', embedder_dim: String(dim) } };
}
