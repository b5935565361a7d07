/**
 * The typed `agentMemory.*` settings: one zod schema, one object. Editor-agnostic:
 * `vscode` module so it can be unit-tested in plain Node; src/vscode/settings.ts
 * feeds it from the workspace configuration.
 */
import { z } from 'zod';
import { plainMessage } from './plain-message';
import { RUNNER_ISOLATIONS } from './agent/runners/python-sandbox';
import { DEFAULT_PROMPT_BUDGET } from './agent/loop/prompt-builder';
import { DEFAULT_MISALIGNED } from './memory/misaligned';
import { DEFAULT_MEMORY_BUDGET_MB, MemoryBudgetMBSchema } from './memory/memory-budget';
import { AgentLanguageSchema } from './memory/types';
import { DEFAULT_FOLLOW_THRESHOLD, DEFAULT_MIN_ACTIVE_RECORDS } from './policy/deletion/types';
import { ADDITION_POLICIES, ATTRIBUTIONS, AUTO_DELETION_POLICIES, CAPACITY_RULES, DELETION_REVIEW_SETTINGS, DELETION_THRESHOLDS, HISTORY_PER_TASK, PERIODIC_BOUNDS, PERIODIC_GUARDS, PERIODIC_WINDOWS } from './policy/names';

export { ADDITION_POLICIES, AUTO_DELETION_POLICIES };

/** Defaults follow the paper's EHR values (period 200, α 0, n 5, β 0.7 / 0.3). */
export const SettingsSchema = z.object({
  model: z.object({
    baseUrl: z.string().trim().default(''),
    name: z.string().trim().default(''),
  }),
  /** An OpenAI-compatible embeddings endpoint; model '' = the built-in hashing embedder. Applied by a re-embed. */
  embedding: z.object({
    baseUrl: z.string().trim().default(''),
    model: z.string().trim().default(''),
  }).prefault({}),
  retrieval: z.object({
    k: z.number().int().min(1).max(32).default(4),
    /**
     * Re-rank the collapsed top by question shape, program links and value columns (see rerank.ts). On by
     * default in the editor (the agent's tasks and chat tools, on the personal memory and on a team space,
     * team-shapes.ts); the CLI, a hand-started MCP server and the
     * benches keep the fused ranking unless `--rerank` (search.DEFAULT_RERANK), so their figures stay
     * comparable with the grids.
     */
    rerank: z.boolean().default(true),
  }),
  addition: z.object({ policy: z.enum(ADDITION_POLICIES).default('strict') }),
  deletion: z.object({
    automatic: z.enum(AUTO_DELETION_POLICIES).default('none'),
    period: z.number().int().min(1).default(200),
    alpha: z.number().int().min(0).default(0),
    historyMinRetrievals: z.number().int().min(0).default(5),
    historyBetaStrict: z.number().min(0).max(1).default(0.7),
    historyBetaCoarse: z.number().min(0).max(1).default(0.3),
    forgettingThreshold: z.number().gt(0).lt(1).default(0.01),
    protectSeeds: z.boolean().default(false),
    minActiveRecords: z.number().int().min(0).default(DEFAULT_MIN_ACTIVE_RECORDS),
    periodicWindow: z.enum(PERIODIC_WINDOWS).default('sliding'),
    attribution: z.enum(ATTRIBUTIONS).default('shown'),
    followThreshold: z.number().min(0).max(1).default(DEFAULT_FOLLOW_THRESHOLD),
    periodicBounds: z.enum(PERIODIC_BOUNDS).default('half-open'),
    historyThreshold: z.enum(DELETION_THRESHOLDS).default('paper'),
    historyPerTask: z.enum(HISTORY_PER_TASK).default('all'),
    periodicGuard: z.enum(PERIODIC_GUARDS).default('none'),
    capacityRule: z.enum(CAPACITY_RULES).default('hard-cap'),
    /** What automatic deletion does with its candidates: `propose` (you confirm or keep), `immediate`, or `auto` (propose under strict addition). */
    review: z.enum(DELETION_REVIEW_SETTINGS).default('auto'),
  }),
  /** Maximum number of active records; 0 = unlimited. */
  capacity: z.number().int().min(0).default(0),
  runner: z.object({
    language: AgentLanguageSchema.default('python'),
    timeoutMs: z.number().int().min(100).max(600_000).default(10_000),
    memoryMb: z.number().int().min(16).max(16_384).default(256),
    /** "sandbox": Python only behind an OS boundary (refused where none exists); "none": unconfined, with a persistent warning. */
    isolation: z.enum(RUNNER_ISOLATIONS).default('sandbox'),
  }),
  agent: z.object({
    /** SQLite database the generated code queries; empty = the bundled MIMIC-III demo. */
    dataPath: z.string().trim().default(''),
    maxDebugRounds: z.number().int().min(0).max(20).default(5),
    /** Token budget of the coder's prompt (system, toolbox docs, demonstrations, question, debug turns). */
    promptBudgetTokens: z.number().int().min(500).max(1_000_000).default(DEFAULT_PROMPT_BUDGET),
  }),
  /** Memory database file; empty = one database per workspace (the extension's workspace storage). */
  databasePath: z.string().trim().default(''),
  /** The caches' byte budget in MB (memory-budget.ts: the one split); applied when the memory is opened. */
  memoryBudgetMB: MemoryBudgetMBSchema.default(DEFAULT_MEMORY_BUDGET_MB),
  misaligned: z.object({
    minInputSimilarity: z.number().min(0).max(1).default(DEFAULT_MISALIGNED.minInputSimilarity),
    maxOutputSimilarity: z.number().min(0).max(1).default(DEFAULT_MISALIGNED.maxOutputSimilarity),
  }),
  /** The memory as language-model tools for VS Code chat agents (memory_search / memory_record / memory_feedback). */
  tools: z.object({ enabled: z.boolean().default(true) }).prefault({}),
  /**
   * The team memory on PostgreSQL (docs/team-memory.md): `url` = postgres://user@host/db?sslmode=…
   * without a password (the password lives in SecretStorage); empty = no team memory.
   * `space` scopes the records (default: the workspace folder's name). Checked by core/team/team-config.ts.
   */
  team: z.object({
    url: z.string().trim().default(''),
    space: z.string().trim().default(''),
  }).prefault({}),
});
export type Settings = z.output<typeof SettingsSchema>;

/** The leaf keys of a settings object, dotted (`deletion.period`). */
type LeafKeys<T, P extends string = ''> = {
  [K in keyof T & string]: T[K] extends readonly unknown[] ? `${P}${K}` : T[K] extends object ? LeafKeys<T[K], `${P}${K}.`> : `${P}${K}`;
}[keyof T & string];
/** A setting key under `agentMemory.` (e.g. `deletion.period`), checked by the compiler. */
export type SettingKey = LeafKeys<Settings>;

/** Every leaf key under `agentMemory.`, in schema order: the one list of setting names (package.json must match it). */
export const SETTING_KEYS = leafKeys(SettingsSchema) as [SettingKey, ...SettingKey[]];
export const SettingKeySchema = z.enum(SETTING_KEYS);

/** The full id of a setting, for messages: settingId('capacity') → 'agentMemory.capacity'. */
export function settingId(key: SettingKey): `agentMemory.${SettingKey}` {
  return `agentMemory.${key}`;
}

function leafKeys(schema: z.ZodObject, prefix = ''): string[] {
  return Object.entries(schema.shape).flatMap(([name, field]) => {
    // A group with a prefault (`tools`, optional in hand-built settings objects) is still a group.
    const child = field instanceof z.ZodPrefault ? field.unwrap() : field;
    return child instanceof z.ZodObject ? leafKeys(child, `${prefix}${name}.`) : [`${prefix}${name}`];
  });
}

export interface ParsedSettings {
  settings: Settings;
  /** One line per setting that was invalid and replaced by its default. */
  problems: string[];
}

/**
 * Builds the settings object from a key reader (`agentMemory.` stripped). Invalid
 * values fall back to their default and are reported, so one typo never disables
 * the extension.
 *
 * @example
 * const { settings, problems } = parseSettings((key) => config.get(key));
 * settings.retrieval.k; // 4 unless configured
 */
export function parseSettings(read: (key: string) => unknown): ParsedSettings {
  const raw: Record<string, Record<string, unknown> | unknown> = {};
  for (const key of SETTING_KEYS) {
    const value = read(key);
    const [head, leaf] = key.split('.');
    if (leaf === undefined) {
      if (value !== undefined) raw[head] = value;
      continue;
    }
    const group = (raw[head] ??= {}) as Record<string, unknown>;
    if (value !== undefined) group[leaf] = value;
  }
  const problems: string[] = [];
  for (;;) {
    const parsed = SettingsSchema.safeParse(raw);
    if (parsed.success) return { settings: parsed.data, problems };
    const issue = parsed.error.issues[0];
    const path = issue.path.map(String);
    problems.push(`agentMemory.${path.join('.')}: ${plainMessage(issue)} (using the default)`);
    // Drop the offending value so its default applies, then parse again.
    let target = raw;
    for (const part of path.slice(0, -1)) target = (target[part] ?? {}) as Record<string, unknown>;
    const last = path[path.length - 1];
    if (last === undefined || !(last in target)) return { settings: SettingsSchema.parse({ ...emptyGroups() }), problems };
    delete target[last];
  }
}

function emptyGroups(): Record<string, unknown> {
  return Object.fromEntries(Object.entries(SettingsSchema.shape).filter(([, c]) => c instanceof z.ZodObject).map(([k]) => [k, {}]));
}
