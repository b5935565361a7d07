import { z } from 'zod';
import { AgentMemoryError } from '../../errors';
import { printable } from '../../printable';
import { ExecutionSchema, ProvenanceSchema, RECORD_ID_MAX_CHARS, RecordIdSchema, StatusSchema } from '../types';

/**
 * Caps on one JSONL line (import refuses a line past any of them, naming the
 * line and field). Documented in the README ("Import and export").
 */
export const JSONL_LIMITS = {
  /** Longest line, in bytes. */
  lineBytes: 2_000_000,
  /** Deepest nesting of a line's JSON (objects and arrays). */
  depth: 32,
  idChars: RECORD_ID_MAX_CHARS,
  questionChars: 20_000,
  codeChars: 100_000,
  outputExcerptChars: 4_000,
  /** The answer, serialised as JSON. */
  answerJsonChars: 100_000,
  /** The metadata object, serialised as JSON. */
  metadataJsonChars: 20_000,
  embeddingDimensions: 8_192,
} as const;

/** Ids become file names, log fields and tree items: no control characters, no path separators, no secrets. */
export { RecordIdSchema };

const jsonSize = (max: number, what: string) => (value: unknown, ctx: z.RefinementCtx) => {
  const size = JSON.stringify(value ?? null).length;
  if (size > max) ctx.addIssue({ code: 'custom', message: `${what} is ${size} characters as JSON, over the cap of ${max}` });
};

/**
 * One memory record per JSONL line: every stored field of the record, its
 * lifecycle included (status, the status before a delete, both timestamps);
 * utility statistics are derived from the retrieval log and not carried.
 */
export const JsonlRecordSchema = z
  .object({
    /** Optional on import: a fresh id is generated when absent. */
    id: RecordIdSchema.optional(),
    question: z.string().trim().min(1, 'question must not be empty').max(JSONL_LIMITS.questionChars, `question must be at most ${JSONL_LIMITS.questionChars} characters`),
    execution: ExecutionSchema.extend({
      code: z.string().max(JSONL_LIMITS.codeChars, `code must be at most ${JSONL_LIMITS.codeChars} characters`),
      outputExcerpt: z.string().max(JSONL_LIMITS.outputExcerptChars, `outputExcerpt must be at most ${JSONL_LIMITS.outputExcerptChars} characters`).default(''),
      answer: z.unknown().default(null).superRefine(jsonSize(JSONL_LIMITS.answerJsonChars, 'answer')),
    }),
    status: StatusSchema,
    /** For a deleted record: the status a restore returns it to (a rejected record: pending). */
    statusBeforeDelete: z.enum(['pending', 'active']).optional(),
    provenance: ProvenanceSchema,
    createdTask: z.number().int().min(0),
    createdAt: z.string().datetime({ offset: true }),
    /** Absent in exports made before this field existed: the import time is used. */
    updatedAt: z.string().datetime({ offset: true }).optional(),
    metadata: z.record(z.string(), z.unknown()).default({}).superRefine(jsonSize(JSONL_LIMITS.metadataJsonChars, 'metadata')),
    /** The record's vector, as plain numbers (float32 values survive JSON exactly). */
    embedding: z.array(z.number().finite()).min(1).max(JSONL_LIMITS.embeddingDimensions, `embedding must have at most ${JSONL_LIMITS.embeddingDimensions} dimensions`).optional(),
    embedderId: z.string().min(1).max(200).optional(),
  })
  .refine((r) => (r.embedding === undefined) === (r.embedderId === undefined), {
    message: 'embedding and embedderId must be given together',
    path: ['embedderId'],
  })
  .refine((r) => r.statusBeforeDelete === undefined || r.status === 'deleted', {
    message: 'statusBeforeDelete is only valid for a deleted record',
    path: ['statusBeforeDelete'],
  });
export type JsonlRecord = z.infer<typeof JsonlRecordSchema>;

const NEWLINE = 0x0a;

/** How many bad lines an import error lists (the count names the rest). */
const MAX_LISTED_PROBLEMS = 20;

/** A JSONL file checked line by line: its valid records and one sentence per bad line. */
export interface JsonlCheck {
  /** The valid lines' records, in file order. */
  records: JsonlRecord[];
  /** `Line 3: field 'question': is missing`, one per bad line, in file order. */
  problems: string[];
}

/**
 * Parses and validates a whole JSONL file (text, or raw bytes that must be
 * valid UTF-8); throws IMPORT naming every bad line (line number, field, in words),
 * so one round of fixes is enough. Nothing is imported while any line is bad.
 * `skipInvalid` returns the valid lines' records instead (`checkJsonl` says which were skipped).
 */
export function parseJsonl(input: string | Uint8Array, options: { skipInvalid?: boolean } = {}): JsonlRecord[] {
  const { records, problems } = checkJsonl(input);
  if (problems.length > 0 && !options.skipInvalid) throw invalidLinesError(problems, records.length);
  return records;
}

/** The IMPORT error naming the bad lines (the first 20; the count names the rest); `details.valid` counts the good ones. */
export function invalidLinesError(problems: readonly string[], valid: number): AgentMemoryError {
  const listed = problems.slice(0, MAX_LISTED_PROBLEMS).join('; ');
  const more = problems.length > MAX_LISTED_PROBLEMS ? `; and ${problems.length - MAX_LISTED_PROBLEMS} more` : '';
  const fix = problems.length === 1 ? 'fix the line and import again' : `fix the ${problems.length} bad lines and import again`;
  return new AgentMemoryError('IMPORT', `${listed}${more}. Nothing was imported; ${fix}.`, { lines: problems.length, valid });
}

/**
 * Checks every line of a JSONL file (the same checks as parseJsonl) without throwing:
 * the records of the valid lines and a sentence per bad line. Blank lines are neither.
 *
 * @example
 * const { records, problems } = checkJsonl(fs.readFileSync('memory.jsonl'));
 * for (const problem of problems) logger.warn(problem);
 */
export function checkJsonl(input: string | Uint8Array): JsonlCheck {
  const out: JsonlRecord[] = [];
  const problems: string[] = [];
  forEachLine(input, (raw, lineNo) => {
    const checked = checkJsonlLine(raw, lineNo);
    if (typeof checked === 'string') problems.push(checked);
    else if (checked) out.push(checked);
  });
  return { records: out, problems };
}

/**
 * One line of a JSONL file checked (what checkJsonl does to each): its record, the sentence
 * naming its problem (`Line 3: field 'question': is missing`), or undefined for a blank line.
 * `raw` is the line's text, or what decodeJsonlLine found wrong with its bytes.
 */
export function checkJsonlLine(raw: string | { field: string; message: string }, lineNo: number): JsonlRecord | string | undefined {
  if (typeof raw !== 'string') return lineProblem(lineNo, raw.field, raw.message);
  const line = raw.trim();
  if (!line) return undefined;
  if (Buffer.byteLength(line, 'utf8') > JSONL_LIMITS.lineBytes) return lineProblem(lineNo, '(line)', `the line is over ${JSONL_LIMITS.lineBytes} bytes`);
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    // The parser quotes the line: its control characters are shown escaped (the message reaches a toast, a log, a terminal).
    return `Line ${lineNo}: not valid JSON (${printable(error instanceof Error ? error.message : String(error), { oneLine: true })})`;
  }
  const unsafe = unstorable(value);
  if (unsafe) return lineProblem(lineNo, unsafe.field, unsafe.message);
  const result = JsonlRecordSchema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    return lineProblem(lineNo, issue.path.join('.') || '(record)', readableIssue(issue));
  }
  return result.data;
}

/**
 * What no backend stores, found without recursion (a deeply nested line would otherwise exhaust the stack
 * in the validator or the redaction): nesting deeper than JSONL_LIMITS.depth, or a NUL character (PostgreSQL
 * text cannot hold one) in a key or a string.
 */
function unstorable(value: unknown): { field: string; message: string } | undefined {
  const stack: { v: unknown; path: string; depth: number }[] = [{ v: value, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { v, path, depth } = stack.pop()!;
    const field = path || '(record)';
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return { field, message: 'holds a NUL character (\\u0000), which a memory cannot store' };
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= JSONL_LIMITS.depth) return { field, message: `is nested deeper than ${JSONL_LIMITS.depth} levels` };
    for (const [k, child] of Object.entries(v)) {
      if (k.includes('\u0000')) return { field, message: 'has a key with a NUL character (\\u0000), which a memory cannot store' };
      stack.push({ v: child, path: path ? `${path}.${k}` : k, depth: depth + 1 });
    }
  }
  return undefined;
}

function lineProblem(lineNo: number, field: string, message: string): string {
  return `Line ${lineNo}: field '${field}': ${message}`;
}

/**
 * A validation issue in words a user reads ("is missing", "must be text"), not the
 * validator's ("Invalid input: expected string, received undefined"); the schema's own
 * messages are kept as written.
 */
export function readableIssue(issue: z.core.$ZodIssue): string {
  const i = issue as z.core.$ZodIssue & { expected?: string; minimum?: number | bigint; maximum?: number | bigint; origin?: string; values?: unknown[]; keys?: string[] };
  const generic = /^(Invalid input|Too (big|small)|Invalid option|Unrecognized key|Invalid (string|number))/.test(issue.message);
  if (!generic) return issue.message;
  // The validator reports a missing field as "…, received undefined" (it does not keep the input).
  if (/received undefined$/.test(issue.message)) return 'is missing';
  switch (issue.code) {
    case 'invalid_type':
      return `must be ${TYPE_WORDS[i.expected ?? ''] ?? `a ${i.expected}`}`;
    case 'too_small':
      return i.origin === 'string' && Number(i.minimum) === 1 ? 'must not be empty' : `must have at least ${String(i.minimum)} ${i.origin === 'string' ? 'characters' : 'items'}`;
    case 'too_big':
      return `must have at most ${String(i.maximum)} ${i.origin === 'string' ? 'characters' : 'items'}`;
    case 'invalid_value':
      return `must be one of ${(i.values ?? []).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'unrecognized_keys':
      return `unknown field(s) ${(i.keys ?? []).map((k) => `'${k}'`).join(', ')}`;
    default:
      return issue.message;
  }
}

const TYPE_WORDS: Record<string, string> = { string: 'text', number: 'a number', boolean: 'true or false', object: 'an object', array: 'a list', int: 'a whole number' };

function forEachLine(input: string | Uint8Array, visit: (line: string | { field: string; message: string }, lineNo: number) => void): void {
  if (typeof input === 'string') {
    input.split(/\r?\n/).forEach((line, i) => visit(line, i + 1));
    return;
  }
  const bytes = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  let start = 0;
  for (let lineNo = 1; start <= bytes.length; lineNo++) {
    let end = bytes.indexOf(NEWLINE, start);
    if (end < 0) end = bytes.length;
    visit(decodeJsonlLine(bytes.subarray(start, end)), lineNo);
    start = end + 1;
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** One line's bytes (without its newline) as text without a trailing CR, or what is wrong with them (invalid UTF-8, naming the field). */
export function decodeJsonlLine(chunk: Uint8Array): string | { field: string; message: string } {
  let text: string;
  try {
    text = strictUtf8.decode(chunk);
  } catch {
    return { field: invalidUtf8Field(chunk), message: 'invalid UTF-8 (save the file as UTF-8)' };
  }
  return text.replace(/\r$/, '');
}

/** The JSON path of the first string holding an undecodable byte sequence, or '(line)'. */
function invalidUtf8Field(chunk: Uint8Array): string {
  try {
    const found = findReplacement(JSON.parse(new TextDecoder('utf-8').decode(chunk)), []);
    return found ?? '(line)';
  } catch {
    return '(line)';
  }
}

function findReplacement(value: unknown, at: string[]): string | undefined {
  if (typeof value === 'string') return value.includes('\uFFFD') ? at.join('.') || '(record)' : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = findReplacement(value[i], [...at, String(i)]);
      if (hit) return hit;
    }
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const hit = k.includes('\uFFFD') ? [...at, k].join('.') : findReplacement(v, [...at, k]);
      if (hit) return hit;
    }
  }
  return undefined;
}
