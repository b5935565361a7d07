/** Reads a task-stream JSONL file (one `{ "question": …, "answer"?: … }` per line): the editor's Run Task Stream and the CLI's `task --tasks`. */
import * as fs from 'node:fs';
import { z } from 'zod';
import type { TaskStreamItem } from './types';
import { AgentMemoryError } from '../errors';
import { noGoldStatus } from '../agent/gold-answer';

const TaskLineSchema = z.looseObject({
  question: z.string({ message: 'question is required: a non-empty string' }).trim().min(1, 'question must not be empty'),
  answer: z.unknown().optional(),
  /** EHRSQL lines say whether the gold answer is `nonempty` (else empty, all_null, zero_or_false); only those are read when `nonEmptyOnly`. */
  answer_status: z.string().optional(),
});

/** Whether a line's gold answer can check a task: its `answer_status` is `nonempty`, or (without one) its answer is. */
function hasAnswer(line: { answer?: unknown; answer_status?: string }): boolean {
  if (line.answer_status !== undefined) return line.answer_status === 'nonempty';
  return line.answer !== undefined && noGoldStatus(line.answer) === undefined;
}

/**
 * Parses a JSONL task file; a bad line fails the whole read with its line number. `nonEmptyOnly`
 * (the demo's picker and streams) keeps only questions with a gold answer on the database.
 *
 * @example
 * const items = readTaskStreamFile('data/ehr/ehrsql-mimic3-tasks.jsonl', { limit: 20, nonEmptyOnly: true });
 */
export function readTaskStreamFile(file: string, options: { limit?: number; nonEmptyOnly?: boolean } = {}): TaskStreamItem[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new AgentMemoryError('NOT_FOUND', `Cannot read the task file ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'}): give an existing JSONL file, one {"question", "answer"?} a line.`, { file }, { cause: error });
  }
  const items: TaskStreamItem[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (!line) continue;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (error) {
      throw new AgentMemoryError('INVALID_INPUT', `${file}:${i + 1}: not valid JSON (${(error as Error).message}). Fix or remove the line.`);
    }
    const parsed = TaskLineSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new AgentMemoryError('INVALID_INPUT', `${file}:${i + 1}: field '${issue.path.join('.') || '(root)'}': ${issue.message}.`);
    }
    // The paper's filter: only questions with an answer on the database (a lone 0 or all nulls is no answer either).
    if (options.nonEmptyOnly && !hasAnswer(parsed.data)) continue;
    items.push(parsed.data.answer === undefined ? { question: parsed.data.question } : { question: parsed.data.question, answer: parsed.data.answer });
    if (options.limit !== undefined && items.length >= options.limit) break;
  }
  if (items.length === 0) throw new AgentMemoryError('INVALID_INPUT', `${file} holds no tasks. Each line needs a "question".`);
  return items;
}
