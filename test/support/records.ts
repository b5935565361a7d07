import { benchVector } from '../../src/cli/team/bench-team-data';
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

/** A deterministic unit vector of `dim` dimensions derived from `seed` (the generator bench:team uses). */
export function unitVector(seed: number, dim = 16): Float32Array {
  return benchVector(seed, dim);
}
