/**
 * The gold program of a task: its gold SQL wrapped in the toolbox's `sql()`
 * call, the way a seed record (and the error-free variant) stores it.
 * The SQL becomes a JSON string literal, valid in both Python and JavaScript
 * (JSON escapes are a subset of both languages' string escapes).
 */
import { AgentMemoryError } from '../errors';

/**
 * @example
 * goldProgram("select count(*) from patients where gender = 'm'", 'python');
 * // answer = sql("select count(*) from patients where gender = 'm'")
 */
export function goldProgram(sql: string, language: 'python' | 'javascript'): string {
  if (typeof sql !== 'string' || sql.trim() === '') throw new AgentMemoryError('INVALID_INPUT', 'goldProgram needs a non-empty SQL string.');
  // JSON.stringify escapes quotes, backslashes and control characters; U+2028/9 are escaped too for old JS parsers.
  const literal = JSON.stringify(sql.trim()).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
  switch (language) {
    case 'python':
      return `answer = sql(${literal})`;
    case 'javascript':
      return `answer = sql(${literal});`;
    default:
      throw new AgentMemoryError('INVALID_INPUT', `Unknown language '${String(language)}'; use python or javascript.`);
  }
}
