/**
 * zod's built-in wording ("Too big: expected int to be <=10000") said plainly, for messages a user
 * reads (CLI options, settings); a schema's own message is kept as it is.
 */
import type { z } from 'zod';

export function plainMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === 'too_big' && issue.message.startsWith('Too big')) return `must be at most ${String(issue.maximum)}${issue.inclusive === false ? ' (exclusive)' : ''}`;
  if (issue.code === 'too_small' && issue.message.startsWith('Too small')) return `must be at least ${String(issue.minimum)}${issue.inclusive === false ? ' (exclusive)' : ''}`;
  if (issue.code === 'invalid_value' && issue.message.startsWith('Invalid option')) return `must be one of ${issue.values.map(String).join(', ')}`;
  if (issue.code === 'invalid_type' && issue.message.startsWith('Invalid input')) return `must be ${issue.expected === 'int' ? 'a whole number' : `a ${issue.expected}`}`;
  return issue.message;
}
