import type { NewRecordInput } from '../../src/core/memory/types';

/** A valid new-record input with overridable fields (shared by tests). */
export function sampleRecord(overrides: Partial<NewRecordInput> & { code?: string } = {}): NewRecordInput {
  const { code, ...rest } = overrides;
  return {
    question: 'how many patients were admitted in 2104?',
    // The id in a comment: records of a test are different programs unless the test says otherwise (retrieval collapses identical ones).
    execution: { code: code ?? `answer = sql('select count(*) from admissions')${rest.id ? `  # ${rest.id}` : ''}`, language: 'python', outcome: 'success', answer: [[42]] },
    provenance: 'seed',
    ...rest,
  };
}

/** A deterministic unit vector of `dim` dimensions derived from `seed`. */
export function unitVector(seed: number, dim = 16): Float32Array {
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
