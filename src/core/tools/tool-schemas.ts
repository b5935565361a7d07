/**
 * The memory tools other agents call (over MCP, and as VS Code language-model
 * tools): names, descriptions, input and output schemas, defined once here.
 * `src/mcp` publishes them as MCP tools; `package.json`'s
 * `contributes.languageModelTools` carries the same JSON Schemas (a unit test
 * checks they agree).
 */
import { z } from 'zod';
import { JSONL_LIMITS } from '../memory/io/jsonl-format';
import { LanguageSchema, OutcomeSchema, RECORD_ID_MAX_CHARS } from '../memory/types';
import { DEFAULT_MIN_RELEVANCE } from '../memory/search/relevance';

/** Default and largest number of records memory_search returns. */
export const DEFAULT_TOOL_K = 4;
export const MAX_TOOL_K = 20;
/** Largest question / code accepted from another agent. */
export const MAX_TOOL_QUESTION = 20_000;
export const MAX_TOOL_CODE = 100_000;
/** Largest answer a client may record, as JSON characters (the JSONL format's cap, so the record can be exported and imported). */
export const MAX_TOOL_ANSWER_JSON = JSONL_LIMITS.answerJsonChars;
/** Deepest nesting of arrays and objects in a recorded answer. */
export const MAX_TOOL_ANSWER_DEPTH = 64;

/** Text with a NUL character: no text column of the team memory (PostgreSQL) can hold it, and no question needs it. */
const noNul = (text: string): boolean => !text.includes('\u0000');
const NO_NUL = 'must not contain NUL characters (\\u0000)';

/** Checks size and depth without recursion (a value nested thousands deep must get a clear error, not a stack overflow). */
function answerProblem(value: unknown): string | undefined {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > MAX_TOOL_ANSWER_DEPTH) return `answer is nested more than ${MAX_TOOL_ANSWER_DEPTH} levels deep`;
    for (const child of Object.values(v as Record<string, unknown>)) stack.push([child, depth + 1]);
  }
  const size = JSON.stringify(value ?? null).length;
  return size > MAX_TOOL_ANSWER_JSON ? `answer is ${size} characters as JSON, over the cap of ${MAX_TOOL_ANSWER_JSON}` : undefined;
}

export const TOOL_NAMES = ['memory_search', 'memory_record', 'memory_feedback'] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

export const RetrievalIdSchema = z
  .string()
  .regex(/^[1-9]\d{0,15}$/, 'retrievalId must be the retrievalId a memory_search call returned (digits, e.g. "12")')
  .describe('The retrievalId a memory_search call returned.');

export const ToolOutcomeSchema = z.enum(['success', 'failure']);
export type ToolOutcome = z.infer<typeof ToolOutcomeSchema>;

/** Where an outcome comes from: the client's tests (the strict evaluator) or its own judgement (coarse). */
export const OutcomeSourceSchema = z
  .enum(['tests', 'self'])
  .describe("'tests' when the outcome comes from running tests (recorded as the strict evaluator, Φ from ground truth); 'self' (default) when it is the agent's own judgement (the coarse evaluator).");
export type OutcomeSource = z.infer<typeof OutcomeSourceSchema>;

export const SearchInput = z.strictObject({
  query: z.string().trim().min(1, 'query must not be empty').max(MAX_TOOL_QUESTION).refine(noNul, NO_NUL).describe('The task or question to find past solutions for, in natural language.'),
  k: z.number().int().min(1).max(MAX_TOOL_K).optional().describe(`How many records to return (1–${MAX_TOOL_K}, default ${DEFAULT_TOOL_K}).`),
  include_failures: z
    .boolean()
    .optional()
    .describe("Also return records whose code failed (outcome error, timeout or no-answer), each labelled with its outcome; default false: only records whose code worked."),
  min_score: z
    .number()
    .min(0)
    .max(1)
    .optional()
    .describe(`Least relevance (0–1) a record needs to be returned (default ${DEFAULT_MIN_RELEVANCE}; 0 returns the best k whatever their relevance). When none reaches it, no record is returned: nothing in memory is close to this task.`),
});
export type SearchInput = z.infer<typeof SearchInput>;

/** Most files one record may cite. */
export const MAX_CITATIONS = 20;

/** A file a record relies on, as the recording agent saw it: its path and the SHA-256 of its content. */
export const CitationInput = z.strictObject({
  path: z.string().trim().min(1, 'path must not be empty').max(1000).describe('The file the code relies on, inside the workspace: an absolute path, or relative to the working directory of the memory server.'),
  sha256: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'sha256 must be the 64-hex-digit SHA-256 of the file content')
    .describe('SHA-256 (hex) of the file content when the record was made.'),
});
export type CitationInput = z.infer<typeof CitationInput>;

/** The records of a retrieval the client used (memory_record, memory_feedback): they alone take the outcome's Φ. */
export const UsedInput = z
  .array(z.string().min(1).max(RECORD_ID_MAX_CHARS))
  .max(MAX_TOOL_K)
  .describe(
    'Ids of the records of that memory_search you actually used (a subset of its results; [] when none helped): only they are credited with the outcome. ' +
      "Without it, a returned record is credited only when the task's code follows its code (code similarity at or above the follow threshold).",
  );

/** What a just-in-time check found for a cited file: as recorded, changed since, gone, or not read (not a regular file of at most 4 MiB inside the workspace). */
export const CitationStatus = z.enum(['unchanged', 'changed', 'missing', 'unchecked']);
export type CitationStatus = z.infer<typeof CitationStatus>;

/** A task's correctness verdict (src/core/agent/task-evaluators.ts: TaskVerdict), when one exists. */
export const VerdictOutput = z.object({
  /** correct / wrong (tests or a gold answer), approved / rejected (a human), judged-correct / judged-wrong (the LLM judge). */
  kind: z.string(),
  /** gold, human or judge. */
  source: z.string(),
});

export const SearchResultItem = z.object({
  id: z.string(),
  question: z.string(),
  code: z.string(),
  language: z.string(),
  /** What running the record's code gave: success, or a failure (error, timeout, no-answer). */
  outcome: OutcomeSchema,
  /** The verdict on the task that made the record, when one exists. */
  verdict: VerdictOutput.optional(),
  /** Mean utility Φ of the record over evaluated retrievals (null: never evaluated). */
  utility: z.number().nullable(),
  retrievals: z.number().int(),
  /** Cosine similarity of the query and the record's question, 0 when below (null: keyword-only hit). */
  similarity: z.number().min(0).max(1).nullable(),
  /** Relevance to the query, 0–1 with the same meaning in every memory (the share of the query's words the memory and the record hold); min_score applies to it. */
  relevance: z.number().min(0).max(1).optional(),
  /** Other records with the same normalised program that this result stands for ("+12 identical"). */
  identical: z.number().int().min(0).optional(),
  /** The record's cited files, checked now (only for records that cite files). */
  citations: z.array(z.object({ path: z.string(), status: CitationStatus })).optional(),
  /** Set when a cited file changed or vanished since the record was made: the record may be out of date. */
  warning: z.string().optional(),
});
export const SearchOutput = z.object({ retrievalId: z.string(), results: z.array(SearchResultItem) });
export type SearchOutput = z.infer<typeof SearchOutput>;

export const RecordInput = z.strictObject({
  question: z.string().trim().min(1, 'question must not be empty').max(MAX_TOOL_QUESTION).refine(noNul, NO_NUL).describe('The task the code solved, in natural language.'),
  code: z.string().min(1, 'code must not be empty').max(MAX_TOOL_CODE).refine(noNul, NO_NUL).describe('The code that was written for the task.'),
  language: LanguageSchema.describe('The code language, e.g. python, typescript, go, rust, sql.'),
  outcome: ToolOutcomeSchema.describe("'success' when the code did what the task asked, else 'failure'."),
  answer: z
    .unknown()
    .optional()
    .superRefine((value, ctx) => {
      const problem = answerProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .describe(`The result the code produced, if any (any JSON value, at most ${MAX_TOOL_ANSWER_JSON} characters as JSON).`),
  retrievalId: RetrievalIdSchema.optional().describe('The retrievalId of the memory_search made for this task: the outcome is then credited to the records of it that you used (see used).'),
  used: UsedInput.optional(),
  source: OutcomeSourceSchema.optional(),
  citations: z
    .array(CitationInput)
    .max(MAX_CITATIONS)
    .optional()
    .describe(`Files the code relies on (at most ${MAX_CITATIONS}), each with the SHA-256 of its content now: memory_search then flags this record when one of them changes or disappears.`),
});
export type RecordInput = z.infer<typeof RecordInput>;

export const RecordStatusOutput = z.enum(['active', 'pending', 'not-added']);
export const RecordOutput = z.object({
  /** The new record's id; null when the addition policy did not store it. */
  id: z.string().nullable(),
  status: RecordStatusOutput,
  reason: z.string(),
  retrievalId: z.string(),
  /** With a retrievalId: the records of that retrieval credited with the outcome. */
  credited: z.array(z.string()).optional(),
});
export type RecordOutput = z.infer<typeof RecordOutput>;

export const FeedbackInput = z.strictObject({
  retrievalId: RetrievalIdSchema,
  outcome: ToolOutcomeSchema.describe("'success' when the task the retrieval served succeeded, else 'failure'."),
  used: UsedInput.optional(),
  source: OutcomeSourceSchema.optional(),
});
export type FeedbackInput = z.infer<typeof FeedbackInput>;

export const FeedbackOutput = z.object({
  /** Number of records whose utility Φ was updated. */
  updated: z.number().int(),
  utility: z.number(),
  evaluator: z.string(),
  /** The records credited (used, or followed by the task's recorded code). */
  credited: z.array(z.string()),
  /** Why nothing (or less than everything returned) was credited, when that needs saying. */
  note: z.string().optional(),
});
export type FeedbackOutput = z.infer<typeof FeedbackOutput>;

export interface ToolDefinition {
  name: ToolName;
  title: string;
  description: string;
  input: z.ZodObject;
  output: z.ZodObject;
  /** True when the tool writes to the memory (VS Code asks for confirmation). */
  writes: boolean;
}

export const TOOL_DEFINITIONS: Record<ToolName, ToolDefinition> = {
  memory_search: {
    name: 'memory_search',
    title: 'Search the agent memory',
    description:
      'Finds past solved tasks (question + code) similar to the current task in the Agent Memory, best first, with each record\'s outcome and learned utility. ' +
      'By default only records whose code worked are returned; include_failures also returns failed ones, labelled with their outcome (never copy a failed record as a solution). ' +
      'Call it before writing code for a task. Keep the returned retrievalId: pass it to memory_record (or memory_feedback) with used (the ids you used) once you know whether the task succeeded, so the records that helped gain utility and the ones that misled lose it. ' +
      'A search with no reported outcome is exploratory: it counts as no retrieval of any record.',
    input: SearchInput,
    output: SearchOutput,
    writes: false,
  },
  memory_record: {
    name: 'memory_record',
    title: 'Record an experience in the agent memory',
    description:
      'Stores a finished task (question, code, language, outcome) as a memory record, through the memory\'s addition policy: under the default strict policy it is stored as pending until the user approves it in the Agent Memory sidebar. ' +
      'Secrets are redacted before anything is written. With retrievalId it also credits the outcome to the records of that memory_search you used (name them in used; without used, to those your code follows), as memory_feedback does. ' +
      "Set source to 'tests' only when the outcome comes from running tests (the strict evaluator); otherwise it counts as your own judgement (coarse).",
    input: RecordInput,
    output: RecordOutput,
    writes: true,
  },
  memory_feedback: {
    name: 'memory_feedback',
    title: 'Report a task outcome to the agent memory',
    description:
      'Reports whether the task a memory_search served succeeded: the utility Φ (1 success, 0 failure) goes to the records of that retrieval you used (name them in used), which is what the memory\'s deletion policies learn from. ' +
      'Without used, only records followed by the code a memory_record stored for that retrieval are credited; with neither, none is (the output says so). ' +
      "Set source to 'tests' when the outcome comes from running tests: it is then recorded as the strict evaluator (ground truth); otherwise as your own, coarse judgement. Nothing else is changed.",
    input: FeedbackInput,
    output: FeedbackOutput,
    writes: true,
  },
};
