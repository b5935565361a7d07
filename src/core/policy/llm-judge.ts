/**
 * The coarse utility evaluator Φ (paper §4, "coarse"): an LLM judge asked
 * whether the agent solved the task. Its reply's first line must be Yes or No;
 * an unparseable reply gets one re-ask, then a typed error — never a guess.
 */
import { z } from 'zod';
import { AgentMemoryError } from '../errors';
import { stripThinking } from '../agent/model/extract-code';
import type { ChatMessage, ChatModel, TokenUsage } from '../agent/model/types';

/** Longest output excerpt / answer text put into the judge prompt. */
export const JUDGE_EXCERPT_CHARS = 2_000;
/** Generation budget for the verdict (a word plus one or two sentences). */
export const JUDGE_MAX_TOKENS = 200;

export const JudgeInputSchema = z.object({
  question: z.string().min(1),
  code: z.string(),
  language: z.string().default('python'),
  /** Execution outcome, e.g. success | error | timeout | no-answer. */
  outcome: z.string().min(1),
  /** The answer the code set (any JSON value). */
  answer: z.unknown(),
  outputExcerpt: z.string().default(''),
});
export type JudgeInput = z.input<typeof JudgeInputSchema>;

export interface JudgeVerdict {
  verdict: boolean;
  /** Φ for the coarse evaluator: 1 when the judge says yes, else 0. */
  utility: 1 | 0;
  /** The judge's explanation (the lines after the verdict; may be empty). */
  reason: string;
  /** The reply that was parsed. */
  raw: string;
  /** Model calls made (2 when a re-ask was needed). */
  calls: number;
  usage: TokenUsage;
}

export const JUDGE_SYSTEM_PROMPT = [
  'You are a strict evaluator of a code agent that answers questions about a database by writing and running code.',
  'Decide whether the agent solved the task correctly: the code must address the question asked, it must have run',
  'successfully, and the answer must be plausible for the question (right kind of value, not empty when a value is expected).',
  'Reply with exactly "Yes" or "No" alone on the first line, then one or two sentences explaining why.',
].join(' ');

const REASK_PROMPT = 'Your reply could not be read. The FIRST LINE must be exactly "Yes" or "No" and nothing else; put the explanation on the following lines. Answer again.';

/**
 * Asks `model` whether the task was solved.
 *
 * @example
 * ```ts
 * const v = await judgeTask(model, { question, code, outcome: 'success', answer: 42, outputExcerpt: '' }, { signal });
 * if (v.utility === 1) addToMemory(record);
 * ```
 */
export async function judgeTask(model: ChatModel, input: JudgeInput, options: { signal?: AbortSignal; maxTokens?: number } = {}): Promise<JudgeVerdict> {
  const checked = JudgeInputSchema.safeParse(input);
  if (!checked.success) {
    throw new AgentMemoryError('INVALID_INPUT', `Invalid judge input: ${checked.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  const messages: ChatMessage[] = [
    { role: 'system', content: JUDGE_SYSTEM_PROMPT },
    { role: 'user', content: buildJudgePrompt(checked.data) },
  ];
  const usage: TokenUsage = { promptTokens: 0, completionTokens: 0 };
  const replies: string[] = [];
  for (let call = 1; call <= 2; call++) {
    const result = await model.chat(messages, { signal: options.signal, maxTokens: options.maxTokens ?? JUDGE_MAX_TOKENS, temperature: 0 });
    usage.promptTokens += result.usage.promptTokens;
    usage.completionTokens += result.usage.completionTokens;
    if (result.usage.estimated) usage.estimated = true;
    replies.push(result.text);
    const parsed = parseJudgeReply(result.text);
    if (parsed) return { ...parsed, utility: parsed.verdict ? 1 : 0, raw: result.text, calls: call, usage };
    messages.push({ role: 'assistant', content: result.text }, { role: 'user', content: REASK_PROMPT });
  }
  throw new AgentMemoryError(
    'MODEL',
    `The judge model did not start its reply with Yes or No, even when asked again (last reply: ${JSON.stringify(preview(replies[replies.length - 1]))}). Use a model that follows instructions, or the strict evaluator.`,
    { kind: 'invalid-verdict', replies },
  );
}

/**
 * Reads a verdict from the first non-empty line: Yes/No, case-insensitive, with
 * surrounding markdown or punctuation (`**Yes**`, `No.`, `"yes"`, `# No`) and
 * an optional `Answer:` / `Verdict:` label. Returns undefined when unreadable.
 */
export function parseJudgeReply(text: string): { verdict: boolean; reason: string } | undefined {
  const lines = stripThinking(text).split(/\r?\n/);
  const first = lines.findIndex((l) => l.trim().length > 0);
  if (first < 0) return undefined;
  const word = lines[first]
    .trim()
    .replace(/^[\s>#*_`"'“”‘’([{-]+/, '')
    .replace(/^(final\s+)?(answer|verdict|judg(e)?ment)\s*[:：]\s*/i, '')
    .replace(/^[\s*_`"'“”‘’([{]+/, '')
    .replace(/[\s*_`"'“”‘’.!,;:)\]}]+$/, '')
    .toLowerCase();
  if (word !== 'yes' && word !== 'no') return undefined;
  return { verdict: word === 'yes', reason: lines.slice(first + 1).join('\n').trim() };
}

/** The user message shown to the judge. */
export function buildJudgePrompt(input: z.output<typeof JudgeInputSchema>): string {
  const answer = input.answer === undefined ? 'undefined' : JSON.stringify(input.answer) ?? String(input.answer);
  const fence = '```';
  return [
    `Question: ${input.question}`,
    '',
    `Code (${input.language}):`,
    `${fence}${input.language}`,
    input.code,
    fence,
    '',
    `Execution outcome: ${input.outcome}`,
    `Answer set by the code: ${clip(answer)}`,
    'Output excerpt:',
    input.outputExcerpt.trim().length > 0 ? clip(input.outputExcerpt) : '(no output)',
    '',
    'Was the task solved correctly? First line: Yes or No.',
  ].join('\n');
}

function clip(text: string): string {
  return text.length > JUDGE_EXCERPT_CHARS ? `${text.slice(0, JUDGE_EXCERPT_CHARS)}… [${text.length - JUDGE_EXCERPT_CHARS} more characters]` : text;
}

function preview(text: string | undefined): string {
  if (!text) return '';
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}
