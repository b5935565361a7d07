/**
 * The typed `agentMemory.*` settings: one zod schema, one object. Editor-agnostic:
 * `vscode` module so it can be unit-tested in plain Node; src/vscode/settings.ts
 * feeds it from the workspace configuration.
 */
import { z } from 'zod';
import { RUNNER_ISOLATIONS } from './agent/runners/python-sandbox';

export const ADDITION_POLICIES = ['fixed', 'all', 'coarse', 'strict'] as const;
export const AUTO_DELETION_POLICIES = ['none', 'periodic', 'history', 'combined', 'forgetting'] as const;

/** Defaults follow the paper's EHR values (period 200, α 0, n 5, β 0.7 / 0.3). */
export const SettingsSchema = z.object({
  model: z.object({
    baseUrl: z.string().trim().default(''),
    name: z.string().trim().default(''),
  }),
  embedder: z.object({
    provider: z.enum(['builtin', 'endpoint']).default('builtin'),
    model: z.string().trim().default(''),
  }),
  retrieval: z.object({ k: z.number().int().min(1).max(32).default(4) }),
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
  }),
  /** Maximum number of active records; 0 = unlimited. */
  capacity: z.number().int().min(0).default(0),
  runner: z.object({
    language: z.enum(['python', 'javascript']).default('python'),
    timeoutMs: z.number().int().min(100).max(600_000).default(10_000),
    memoryMb: z.number().int().min(16).max(16_384).default(256),
    /** "sandbox": Python only behind an OS boundary (refused where none exists); "none": unconfined, with a persistent warning. */
    isolation: z.enum(RUNNER_ISOLATIONS).default('sandbox'),
  }),
  agent: z.object({
    /** SQLite database the generated code queries; empty = the bundled MIMIC-III demo. */
    dataPath: z.string().trim().default(''),
    maxDebugRounds: z.number().int().min(0).max(20).default(5),
  }),
  /** Memory database file; empty = one database per workspace (the extension's workspace storage). */
  databasePath: z.string().trim().default(''),
  misaligned: z.object({
    minInputSimilarity: z.number().min(0).max(1).default(0.6),
    maxOutputSimilarity: z.number().min(0).max(1).default(0.5),
  }),
});
export type Settings = z.output<typeof SettingsSchema>;

/** Every leaf key under `agentMemory.` (e.g. `deletion.period`), in schema order. */
export const SETTING_KEYS: readonly string[] = leafKeys(SettingsSchema);

function leafKeys(schema: z.ZodObject, prefix = ''): string[] {
  return Object.entries(schema.shape).flatMap(([name, child]) =>
    child instanceof z.ZodObject ? leafKeys(child, `${prefix}${name}.`) : [`${prefix}${name}`],
  );
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
    problems.push(`agentMemory.${path.join('.')}: ${issue.message} (using the default)`);
    // Drop the offending value so its default applies, then parse again.
    let target = raw as Record<string, unknown>;
    for (const part of path.slice(0, -1)) target = (target[part] ?? {}) as Record<string, unknown>;
    const last = path[path.length - 1];
    if (last === undefined || !(last in target)) return { settings: SettingsSchema.parse({ ...emptyGroups() }), problems };
    delete target[last];
  }
}

function emptyGroups(): Record<string, unknown> {
  return Object.fromEntries(Object.entries(SettingsSchema.shape).filter(([, c]) => c instanceof z.ZodObject).map(([k]) => [k, {}]));
}
