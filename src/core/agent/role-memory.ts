/**
 * Role memories (SPEC §7, Intrinsic Memory Agents): the coder and the debugger
 * each keep a small structured JSON memory — a generic template of lessons,
 * valid patterns and mistakes to avoid — updated after each of their outputs
 * by a prompted model call (the paper's Figure 8 update prompt, adapted),
 * validated with zod, and injected into that role's context.
 *
 * An update never corrupts a memory: if the reply is not valid JSON of the
 * template (or breaks the size caps) the old memory is kept and the
 * validation error is returned.
 */
import { z } from 'zod';
import { AgentMemoryError, isAgentMemoryError } from '../errors';
import { parseJsonReply } from './model/extract-json';
import type { ChatMessage, ChatModel, TokenUsage } from './model/types';

/** Most items per list. */
export const ROLE_MEMORY_MAX_ITEMS = 12;
/** Longest item, in characters. */
export const ROLE_MEMORY_MAX_ITEM_CHARS = 300;
/** Longest task / output text put into the update prompt. */
export const ROLE_MEMORY_PROMPT_CLIP_CHARS = 4_000;
/** Generation budget of an update. */
export const ROLE_MEMORY_UPDATE_MAX_TOKENS = 1_500;

export const RoleSchema = z.enum(['coder', 'debugger']);
export type Role = z.infer<typeof RoleSchema>;
export const ROLES: readonly Role[] = RoleSchema.options;

const ItemSchema = z.string().trim().min(1, 'items must not be empty').max(ROLE_MEMORY_MAX_ITEM_CHARS, `items must be at most ${ROLE_MEMORY_MAX_ITEM_CHARS} characters`);
const ListSchema = z.array(ItemSchema).max(ROLE_MEMORY_MAX_ITEMS, `at most ${ROLE_MEMORY_MAX_ITEMS} items per list`);

/** The three template lists, as the update call must return them. */
export const RoleMemoryContentSchema = z.object({
  lessons: ListSchema,
  validPatterns: ListSchema,
  mistakesToAvoid: ListSchema,
});
export type RoleMemoryContent = z.infer<typeof RoleMemoryContentSchema>;

/** A stored role memory. */
export const RoleMemorySchema = RoleMemoryContentSchema.extend({
  role: RoleSchema,
  /** ISO-8601 time of the last change. */
  updatedAt: z.iso.datetime(),
  /** Successful updates since the last reset. */
  updates: z.number().int().nonnegative(),
});
export type RoleMemory = z.infer<typeof RoleMemorySchema>;

/** Who each role is, as told to the update model. */
export const ROLE_DESCRIPTIONS: Record<Role, string> = {
  coder: 'the CODER of a code agent: it writes programs that use a toolbox (read-only SQL, table helpers, date arithmetic, a calculator) to answer questions about a database, and sets the answer explicitly',
  debugger: "the DEBUGGER of a code agent: when the coder's program fails or gives a wrong-looking answer, it analyses the error and tells the coder precisely what to change",
};

/** A fresh, empty memory for `role`. */
export function emptyRoleMemory(role: Role, now: Date = new Date()): RoleMemory {
  return { role, lessons: [], validPatterns: [], mistakesToAvoid: [], updatedAt: now.toISOString(), updates: 0 };
}

/**
 * The text injected into the role's context; '' when the memory is empty (so
 * the prompt builder can skip it).
 *
 * @example
 * ```ts
 * const system = [CODER_SYSTEM_PROMPT, renderRoleMemory(await store.load('coder'))].filter(Boolean).join('\n\n');
 * ```
 */
export function renderRoleMemory(memory: RoleMemory): string {
  const sections: Array<[string, string[]]> = [
    ['Lessons learnt', memory.lessons],
    ['Patterns that worked', memory.validPatterns],
    ['Mistakes to avoid', memory.mistakesToAvoid],
  ];
  const body = sections
    .filter(([, items]) => items.length > 0)
    .map(([title, items]) => `${title}:\n${items.map((i) => `- ${i}`).join('\n')}`);
  if (body.length === 0) return '';
  return [`Your memory as the ${memory.role} (from ${memory.updates} earlier ${memory.updates === 1 ? 'output' : 'outputs'}):`, ...body].join('\n');
}

export interface RoleMemoryUpdateInput {
  /** The task description the role worked on (e.g. the question). */
  task: string;
  /** The role's newest output (code, or the debugger's analysis). */
  output: string;
}

export interface RoleMemoryUpdateOptions {
  signal?: AbortSignal;
  maxTokens?: number;
  now?: Date;
}

export interface RoleMemoryUpdate {
  /** The new memory, or the unchanged old one when `updated` is false. */
  memory: RoleMemory;
  updated: boolean;
  /** Why the update was not applied (invalid reply, or a model failure such as an unreachable endpoint). */
  error?: AgentMemoryError;
  /** The model's reply (absent when the call itself failed). */
  raw?: string;
  usage?: TokenUsage;
}

/**
 * One memory update M(n,m) = f(M(n,m−1), O(n,m)) by a prompted model call.
 * Never throws for a bad reply or a model failure (the old memory is returned
 * with the error); throws only CANCELLED (abort) and INVALID_INPUT (bad arguments).
 *
 * @example
 * ```ts
 * const { memory, updated, error } = await updateRoleMemory(model, 'coder', await store.load('coder'), { task: question, output: code });
 * if (updated) await store.save('coder', memory); else logger.warn(error!.message);
 * ```
 */
export async function updateRoleMemory(
  model: ChatModel,
  role: Role,
  memory: RoleMemory,
  input: RoleMemoryUpdateInput,
  options: RoleMemoryUpdateOptions = {},
): Promise<RoleMemoryUpdate> {
  const current = RoleMemorySchema.safeParse(memory);
  if (!current.success || current.data.role !== role) {
    const why = current.success ? `it belongs to the ${current.data.role}` : current.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new AgentMemoryError('INVALID_INPUT', `Cannot update the ${role} memory: ${why}.`);
  }
  let raw: string | undefined;
  let usage: TokenUsage | undefined;
  try {
    const reply = await model.chat(buildRoleMemoryUpdateMessages(role, current.data, input), {
      signal: options.signal,
      maxTokens: options.maxTokens ?? ROLE_MEMORY_UPDATE_MAX_TOKENS,
      temperature: 0,
    });
    raw = reply.text;
    usage = reply.usage;
    const content = parseJsonReply(reply.text, ModelReplySchema, `${role} memory`);
    const next: RoleMemory = {
      role,
      ...content,
      updatedAt: (options.now ?? new Date()).toISOString(),
      updates: current.data.updates + 1,
    };
    return { memory: RoleMemorySchema.parse(next), updated: true, raw, usage };
  } catch (error) {
    if (isAgentMemoryError(error, 'CANCELLED') || !isAgentMemoryError(error)) throw error;
    const kept = new AgentMemoryError(error.code, `The ${role} memory was not updated (the old memory is kept): ${error.message}`, error.details, { cause: error });
    return { memory: current.data, updated: false, error: kept, raw, usage };
  }
}

/** The update prompt (the paper's Figure 8, made explicit about the template and the caps). */
export function buildRoleMemoryUpdateMessages(role: Role, memory: RoleMemory, input: RoleMemoryUpdateInput): ChatMessage[] {
  const old = JSON.stringify({ lessons: memory.lessons, validPatterns: memory.validPatterns, mistakesToAvoid: memory.mistakesToAvoid }, null, 2);
  const system = [
    `You are maintaining the memory of an agent working as ${ROLE_DESCRIPTIONS[role]}.`,
    'Use the old memory and the newest output by the agent to populate and update the memory JSON with factual information.',
  ].join(' ');
  const user = [
    'Task the agent worked on:',
    clip(input.task),
    '',
    'For context, old memory content:',
    old,
    '',
    'Current content generated by the agent:',
    clip(input.output),
    '',
    'Update the memory content to incorporate new information while preserving key historical context.',
    'The updated content should be concise and focus on information that will help this agent on future tasks:',
    '"lessons" (general insights), "validPatterns" (approaches or code idioms that worked), "mistakesToAvoid" (errors seen and their cause).',
    `Merge or drop items to stay within ${ROLE_MEMORY_MAX_ITEMS} items per list and ${ROLE_MEMORY_MAX_ITEM_CHARS} characters per item.`,
    'Reply with only the JSON object {"lessons": [...], "validPatterns": [...], "mistakesToAvoid": [...]}.',
  ].join('\n');
  return [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ];
}

/** Accepts snake_case keys from the model, then applies the strict template. */
const ModelReplySchema = z.preprocess((value) => {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  const v = value as Record<string, unknown>;
  return {
    lessons: v.lessons,
    validPatterns: v.validPatterns ?? v.valid_patterns,
    mistakesToAvoid: v.mistakesToAvoid ?? v.mistakes_to_avoid,
  };
}, RoleMemoryContentSchema);

function clip(text: string): string {
  return text.length > ROLE_MEMORY_PROMPT_CLIP_CHARS ? `${text.slice(0, ROLE_MEMORY_PROMPT_CLIP_CHARS)}… [clipped]` : text;
}
