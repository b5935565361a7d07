/**
 * The benchmark's task file: JSONL, one EHR-style task a line
 * (`{question, gold_sql, answer, template?, id?, answer_status?, ...}`; extra
 * fields are ignored). Validated with zod; errors name the line number.
 */
import * as fs from 'node:fs';
import { z } from 'zod';
import { AgentMemoryError } from '../errors';

export const BenchTaskLineSchema = z.object({
  id: z.union([z.string(), z.number()]).optional(),
  question: z.string({ message: 'question is required: a non-empty string' }).trim().min(1, 'question must be a non-empty string'),
  gold_sql: z.string({ message: 'gold_sql (the gold program) is required: a non-empty SQL string' }).trim().min(1, 'gold_sql must be a non-empty SQL string'),
  answer: z.unknown().refine((v) => v !== undefined, { message: 'answer (the ground truth) is required; use [] for an empty result' }),
  template: z.string().optional(),
  answer_status: z.string().optional(),
  /** EHRSQL split: `valid` (training lines for the initial memory) or `test` (the stream). */
  split: z.string().optional(),
});

/** One validated task. `line` is 1-based in the source file. */
export interface BenchTask {
  line: number;
  id: string;
  question: string;
  goldSql: string;
  answer: unknown;
  template?: string;
  answerStatus?: string;
  split?: string;
}

/**
 * Parses JSONL text into tasks; throws INVALID_INPUT naming the first bad line and field.
 *
 * @example
 * const tasks = parseTaskJsonl(fs.readFileSync('tasks.jsonl', 'utf8'), 'tasks.jsonl');
 */
export function parseTaskJsonl(text: string, source = 'tasks'): BenchTask[] {
  const tasks: BenchTask[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw new AgentMemoryError('INVALID_INPUT', `${source}:${line}: not valid JSON (${(error as Error).message}); each line must be one JSON object.`, { line });
    }
    const parsed = BenchTaskLineSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path.length ? issue.path.join('.') : '(line)';
      throw new AgentMemoryError('INVALID_INPUT', `${source}:${line}: field '${field}': ${issue?.message ?? 'invalid'}. Each line needs question, gold_sql and answer.`, { line, field });
    }
    const t = parsed.data;
    tasks.push({
      line,
      id: t.id === undefined ? `line-${line}` : String(t.id),
      question: t.question,
      goldSql: t.gold_sql,
      answer: t.answer,
      ...(t.template !== undefined ? { template: t.template } : {}),
      ...(t.answer_status !== undefined ? { answerStatus: t.answer_status } : {}),
      ...(t.split !== undefined ? { split: t.split } : {}),
    });
  });
  if (tasks.length === 0) throw new AgentMemoryError('INVALID_INPUT', `${source}: no tasks found; pass a JSONL file with one task per line.`);
  return tasks;
}

/** Reads and validates a task file. */
export function readTaskFile(file: string): BenchTask[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new AgentMemoryError('NOT_FOUND', `Cannot read the task file '${file}' (${(error as NodeJS.ErrnoException).code ?? 'error'}); pass an existing JSONL file with --tasks.`);
  }
  return parseTaskJsonl(text, file);
}

/**
 * True when the task belongs to the evaluated stream: its `answer_status`
 * equals `status` (default `nonempty`); lines without `answer_status` count
 * when their ground truth is a non-empty answer.
 */
export function isStreamTask(task: BenchTask, status = 'nonempty'): boolean {
  if (task.answerStatus !== undefined) return task.answerStatus === status;
  const a = task.answer;
  return a !== null && a !== undefined && !(Array.isArray(a) && a.length === 0);
}
