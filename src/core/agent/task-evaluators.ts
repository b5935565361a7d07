/**
 * The evaluate step of the task pipeline, injected per client:
 * - `GoldEvaluator`: a gold answer is known (the bench, a stream item with an answer);
 *   Φ is the ground truth, or with the coarse policy the agent's termination
 *   signal / the LLM judge while accuracy still counts the gold verdict.
 * - `EditorEvaluator`: no gold answer: strict waits for the human (Φ pending),
 *   coarse asks the LLM judge (falls back to the termination signal), otherwise
 *   the termination signal.
 * An external agent's tests would be one more implementation of `TaskEvaluator`.
 */
import { errorMessage } from '../errors';
import type { Logger } from '../logger';
import type { AdditionPolicyName } from '../policy/addition';
import type { AnswerMatch } from '../policy/names';
import { judgeTask } from '../policy/llm-judge';
import { Evaluation, evaluateGroundTruth, evaluateHumanVerdict, evaluateTermination } from '../policy/utility';
import type { ChatModel, TokenUsage } from './model/types';

/**
 * Whether an answer is right, kept apart from whether the program ran ("ran" is not "correct").
 * - correct / wrong: checked against a gold answer (bench, or a stream item with an answer)
 * - approved / rejected: a human's verdict (strict addition in the editor)
 * - judged-correct / judged-wrong: the LLM judge's opinion (coarse addition)
 * - unknown: nobody checked (yet); source `no-gold`: the task's gold answer is empty, all null or a
 *   lone 0 on this database, so it cannot check the task (gold-answer.ts) and the task is never counted correct
 */
export type VerdictKind = 'correct' | 'wrong' | 'approved' | 'rejected' | 'judged-correct' | 'judged-wrong' | 'unknown';
export type VerdictSource = 'gold' | 'human' | 'judge' | 'no-gold' | 'none';
export interface TaskVerdict {
  kind: VerdictKind;
  source: VerdictSource;
}
/** Which kind of model produced an answer. 'simulated' is the bench's calibrated simulation, never an LLM. */
export type ModelKind = 'reuse' | 'llm' | 'simulated';

/** What an evaluator sees of a finished task. */
export interface TaskOutcome {
  question: string;
  code: string;
  language: 'python' | 'javascript';
  answer: unknown;
  outcome: 'success' | 'error' | 'timeout' | 'no-answer';
  outputExcerpt: string;
}

export interface TaskEvaluation {
  /** The Φ the policies use (utility null: not evaluated yet, e.g. awaiting the human). */
  utility: Evaluation;
  /** The ground-truth verdict when a gold answer is known (what accuracy counts). */
  gold?: Evaluation;
  /**
   * Under strict addition the record waits for a person even though Φ is known (an editor
   * stream whose gold answer checked the task): Φ credits the demonstrations at once, the
   * record is stored pending.
   */
  humanApproves?: boolean;
  /** Milliseconds spent in a model (the LLM judge), excluded from overhead. */
  modelMs: number;
  usage: TokenUsage;
}

export interface TaskEvaluator {
  evaluate(task: TaskOutcome, signal?: AbortSignal): Promise<TaskEvaluation>;
}

const NO_USAGE: TokenUsage = { promptTokens: 0, completionTokens: 0 };

/** Coarse Φ from the agent's own termination signal: the program ran and printed a non-empty answer. */
export function terminationEvaluation(task: Pick<TaskOutcome, 'outcome' | 'answer'>): Evaluation {
  return evaluateTermination({ completed: task.outcome === 'success', outcome: task.outcome, answer: task.answer });
}

async function judged(judge: ChatModel, task: TaskOutcome, signal?: AbortSignal): Promise<Omit<TaskEvaluation, 'gold'>> {
  const t0 = performance.now();
  const verdict = await judgeTask(judge, task, { signal });
  return {
    utility: { utility: verdict.utility, evaluator: 'coarse:judge', reason: verdict.reason || (verdict.verdict ? 'judge said yes' : 'judge said no') },
    modelMs: performance.now() - t0,
    usage: verdict.usage,
  };
}

/**
 * A gold answer is known. Φ: the ground truth, except with the coarse policy
 * (the LLM judge when `judge` is given, else the termination signal).
 *
 * @example
 * const evaluator = new GoldEvaluator(task.answer, 'strict');
 */
export class GoldEvaluator implements TaskEvaluator {
  /** `match`: `set` (default, set-of-rows equality) or the paper's `contains` (see policy/answers.ts). */
  constructor(private readonly groundTruth: unknown, private readonly addition: AdditionPolicyName, private readonly judge?: ChatModel, private readonly match: AnswerMatch = 'set') {}

  async evaluate(task: TaskOutcome, signal?: AbortSignal): Promise<TaskEvaluation> {
    const gold = evaluateGroundTruth({ ...task, groundTruth: this.groundTruth }, { match: this.match });
    if (this.addition !== 'coarse') return { utility: gold, gold, modelMs: 0, usage: NO_USAGE };
    if (!this.judge) return { utility: terminationEvaluation(task), gold, modelMs: 0, usage: NO_USAGE };
    return { ...(await judged(this.judge, task, signal)), gold };
  }
}

/**
 * No gold answer (the editor): strict → the human's verdict later (Φ pending);
 * coarse with an LLM → the judge, falling back to the termination signal when
 * the judge fails; otherwise the termination signal.
 */
export class EditorEvaluator implements TaskEvaluator {
  constructor(private readonly addition: AdditionPolicyName, private readonly judge: ChatModel | null, private readonly logger: Logger) {}

  async evaluate(task: TaskOutcome, signal?: AbortSignal): Promise<TaskEvaluation> {
    if (this.addition === 'strict') return { utility: evaluateHumanVerdict(null), modelMs: 0, usage: NO_USAGE };
    if (this.addition === 'coarse' && this.judge) {
      try {
        return await judged(this.judge, task, signal);
      } catch (error) {
        this.logger.warn(`LLM judge failed (${errorMessage(error)}); falling back to the agent's termination signal`);
      }
    }
    return { utility: terminationEvaluation(task), modelMs: 0, usage: NO_USAGE };
  }
}

/**
 * A gold answer is known, but the human approves (an editor stream under strict addition):
 * the gold answer is the task's strict Φ (SPEC §1: ground truth or a human verdict), so the
 * demonstrations it was shown are credited at once; only the addition waits for the human
 * (the record is stored pending).
 */
export class HumanReviewedGoldEvaluator implements TaskEvaluator {
  constructor(private readonly groundTruth: unknown) {}

  evaluate(task: TaskOutcome): Promise<TaskEvaluation> {
    const gold = evaluateGroundTruth({ ...task, groundTruth: this.groundTruth });
    return Promise.resolve({ utility: gold, gold, humanApproves: true, modelMs: 0, usage: NO_USAGE });
  }
}
