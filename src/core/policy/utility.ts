import { z } from 'zod';
import { AgentMemoryError } from '../errors';
import { answersAgree, AnswerCompareOptions } from './answers';
import { EvaluatorId, EvaluatorIdSchema } from './names';

/**
 * Utility evaluators Φ ∈ [0,1] (SPEC §1 step 3, paper §4.1 and Appendix A.2).
 *
 * - `strict:ground-truth`: benchmark mode, the answer is compared with the gold
 *   answer as a set of rows (see ./answers.ts) → 1 or 0; with `match: 'contains'`,
 *   the paper's "ground truth contained in the answer" instead.
 * - `strict:human`: the user's verdict in the editor (approve → 1, reject → 0;
 *   no verdict yet → utility `null`, i.e. not evaluated).
 * - `coarse:self`: the agent's own termination signal (task complete and an
 *   answer was produced with outcome `success` → 1, else 0), as the paper's EHR agent.
 * - `coarse:judge`: an LLM judge (implemented in ./llm-judge.ts) adapted here.
 *
 * A task's Φ is written onto every retrieval row of that task by the memory
 * manager (TaskLog.setUtility).
 */
export { EvaluatorIdSchema };
export type { EvaluatorId };

export const EvaluationSchema = z.object({
  /** Φ in [0,1]; null when not (yet) evaluated, e.g. awaiting a human verdict. */
  utility: z.number().min(0).max(1).nullable(),
  evaluator: EvaluatorIdSchema,
  reason: z.string(),
});
export type Evaluation = z.infer<typeof EvaluationSchema>;

/** What an evaluator sees of a finished task. */
export interface EvaluationInput {
  question: string;
  code: string;
  language?: 'python' | 'javascript';
  answer: unknown;
  outcome: 'success' | 'error' | 'timeout' | 'no-answer';
  outputExcerpt?: string;
  /** Gold answer (benchmark mode). */
  groundTruth?: unknown;
  /** The agent's termination signal: it declared the task complete. */
  completed?: boolean;
  /** The user's verdict, when given. */
  humanVerdict?: 'approve' | 'reject' | null;
}

export function isStrict(evaluator: EvaluatorId): boolean {
  return evaluator.startsWith('strict:');
}

/**
 * Strict ground-truth Φ, synchronously.
 *
 * @example
 * evaluateGroundTruth({ question: 'q', code: 'c', answer: 'PO', outcome: 'success', groundTruth: [['po']] }).utility; // 1
 */
export function evaluateGroundTruth(input: EvaluationInput, options: AnswerCompareOptions = {}): Evaluation {
  if (!('groundTruth' in input) || input.groundTruth === undefined) {
    throw new AgentMemoryError('INVALID_INPUT', 'The strict ground-truth evaluator needs the gold answer (groundTruth); in the editor use the human evaluator instead.');
  }
  if (input.outcome !== 'success') {
    return { utility: 0, evaluator: 'strict:ground-truth', reason: `execution ended with outcome '${input.outcome}'` };
  }
  const ok = answersAgree(input.groundTruth, input.answer, options);
  const how = options.match === 'contains' ? ['the ground truth is contained in the answer', 'the ground truth is not contained in the answer'] : ['answer matches the ground truth', 'answer differs from the ground truth'];
  return { utility: ok ? 1 : 0, evaluator: 'strict:ground-truth', reason: ok ? how[0] : how[1] };
}

/** Strict human Φ: approve → 1, reject → 0, no verdict → null (not evaluated). */
export function evaluateHumanVerdict(verdict: 'approve' | 'reject' | null | undefined): Evaluation {
  if (verdict === 'approve') return { utility: 1, evaluator: 'strict:human', reason: 'approved by the user' };
  if (verdict === 'reject') return { utility: 0, evaluator: 'strict:human', reason: 'rejected by the user' };
  return { utility: null, evaluator: 'strict:human', reason: 'awaiting the user\'s verdict' };
}

/** An answer that says something: not null, not an empty string, not an empty result set. */
export function isNonEmptyAnswer(answer: unknown): boolean {
  if (answer === null || answer === undefined) return false;
  if (Array.isArray(answer)) return answer.length > 0 && !(answer.length === 1 && Array.isArray(answer[0]) && answer[0].length === 0);
  return !(typeof answer === 'string' && answer.trim() === '');
}

/** Coarse self Φ: the agent declared the task complete and produced a non-empty answer. */
export function evaluateTermination(input: Pick<EvaluationInput, 'completed' | 'outcome' | 'answer'>): Evaluation {
  const answered = isNonEmptyAnswer(input.answer);
  const ok = input.completed === true && input.outcome === 'success' && answered;
  const reason = ok ? 'agent declared the task complete with an answer' : input.completed !== true ? 'agent did not declare the task complete' : !answered ? 'no (or an empty) answer was produced' : `execution ended with outcome '${input.outcome}'`;
  return { utility: ok ? 1 : 0, evaluator: 'coarse:self', reason };
}
