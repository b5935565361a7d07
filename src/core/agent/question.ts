/** The one rule for what a question to the agent may be (editor prompt, command argument, core facade). */

/** The longest question the agent takes: longer ones are refused (lists of records would become walls of text). */
export const MAX_QUESTION_LENGTH = 500;

/**
 * Why a question is refused (empty, too long), or undefined when it is fine.
 *
 * @example
 * questionProblem('x'.repeat(10_000)) // "A question has at most 500 characters (this one has 10000): shorten it."
 */
export function questionProblem(question: string): string | undefined {
  const q = question.trim();
  if (!q) return 'The question is empty: type a question about the database.';
  if (q.length > MAX_QUESTION_LENGTH) return `A question has at most ${MAX_QUESTION_LENGTH} characters (this one has ${q.length}): shorten it.`;
  return undefined;
}
