/**
 * Whether a gold answer can check a task on this database. EHRSQL's questions about patients the
 * 100-patient demo database does not hold come out empty, all null or a lone 0 / false: any
 * program that finds nothing "matches" them, so checking against them inflates accuracy. The
 * paper kept only tasks with an answer; here such a task is run but marked "no gold answer on
 * this database" and never counted correct (see task-verdict.ts).
 */
import { answerStatus, type AnswerStatus } from '../data/stream-generator';

/** The answer statuses that cannot check a task (every status but `nonempty`). */
export type NoGoldStatus = Exclude<AnswerStatus, 'nonempty'>;

/** The task log field that marks a task whose gold answer could not check it (its value: the status). */
export const NO_GOLD_LOG_FIELD = 'noGoldAnswer';

/**
 * EHRSQL's answer status of a gold answer in any shape a task file may give: rows (`[[1]]`), a
 * list of values (`[1, 2]`), or one value (`0`, `null`, `"po"`).
 *
 * @example
 * goldAnswerStatus([[0]]) // 'zero_or_false'
 * goldAnswerStatus([]) // 'empty'
 * goldAnswerStatus([['po']]) // 'nonempty'
 */
export function goldAnswerStatus(answer: unknown): AnswerStatus {
  if (answer === undefined || answer === null) return answer === null ? 'all_null' : 'empty';
  if (!Array.isArray(answer)) return typeof answer === 'string' && answer.trim() === '' ? 'empty' : answerStatus([[answer]]);
  const rows = answer.map((row: unknown) => (Array.isArray(row) ? (row as unknown[]) : [row]));
  return answerStatus(rows.filter((row) => row.length > 0));
}

/** The status when the gold answer cannot check a task (empty, all null, a lone 0 / false), else undefined. */
export function noGoldStatus(answer: unknown): NoGoldStatus | undefined {
  const status = goldAnswerStatus(answer);
  return status === 'nonempty' ? undefined : status;
}

/** A task-log row's mark that its gold answer could not check it, or undefined. */
export function loggedNoGold(log: Record<string, unknown>): NoGoldStatus | undefined {
  const v = log[NO_GOLD_LOG_FIELD];
  return v === 'empty' || v === 'all_null' || v === 'zero_or_false' ? v : undefined;
}
