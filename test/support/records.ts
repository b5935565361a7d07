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

/** Distinct EHR-style questions for retrieval tests (take a prefix with slice). */
export const SAMPLE_QUESTIONS: readonly string[] = [
  'how many patients were prescribed aspirin in 2104?',
  'what is the intake method of danazol?',
  'when did patient 10006 last get a blood glucose test?',
  'what was the average heart rate of patient 3125 today?',
  'how many patients were diagnosed with sepsis since 2102?',
  'what is the cost of a hemoglobin lab test?',
  'what was the first ward of patient 273 in this hospital visit?',
  'list the top three most frequent procedures last year',
];

/**
 * Two records for the re-ranking's value columns: a chart-event program whose question shares many
 * words with "What was the last … value of patient 12?" questions, and a lab-test program whose
 * question shares fewer. The fused ranking puts the chart one first for such questions; a lab value
 * (known from the memory's programs or the agent's database) points the re-ranking to the lab one.
 */
export const CHART_HEART_RATE = { question: 'What was the last heart rate value of patient 12?', code: `answer = sql("select valuenum from chartevents where itemid in (select itemid from d_items where d_items.label = 'heart rate') and subject_id = 12")` };
export const LAB_POTASSIUM = { question: 'Potassium value of patient 4, the last one?', code: `answer = sql("select valuenum from labevents where itemid in (select itemid from d_labitems where d_labitems.label = 'potassium') and subject_id = 4")` };
