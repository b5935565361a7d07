/**
 * Argument parsing for every `agent-memory` subcommand: `node:util` parseArgs
 * (strict: unknown options and missing values are errors), `--help`/`-h` on
 * every command, and one usage-error type that `main` turns into exit code 2.
 *
 * @example
 * const parsed = parseCommandArgs(argv, { usage: USAGE, options: { db: { type: 'string' } } });
 * if (parsed === HELP_SHOWN) return 0;
 * const { db } = parseValues(ArgsSchema, parsed.values, USAGE);
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { z } from 'zod';
import { AgentMemoryError, isAgentMemoryError } from '../core/errors';
import { plainMessage } from '../core/plain-message';

/** Exit codes of the CLI (documented in `agent-memory --help`). */
export const EXIT = {
  ok: 0,
  /** The operation failed (the message on stderr says why and what to do). */
  failure: 1,
  /** Usage error: unknown command or option, missing or invalid argument. */
  usage: 2,
} as const;

export const HELP_SHOWN = Symbol('help shown');

type Options = NonNullable<ParseArgsConfig['options']>;

export interface CommandArgsSpec<O extends Options> {
  /** Full usage text, first line `Usage: agent-memory <command> …`. */
  usage: string;
  options: O;
  /** Positional arguments allowed (default none). */
  allowPositionals?: boolean;
}

/** A usage error: printed with the command's usage, exit code 2. */
export function usageError(message: string, usage: string): AgentMemoryError {
  return new AgentMemoryError('INVALID_INPUT', `${message}\n${usage.trimEnd()}`, { usage: true });
}

export function isUsageError(error: unknown): boolean {
  return isAgentMemoryError(error, 'INVALID_INPUT') && error.details?.usage === true;
}

export interface ParsedCommandArgs {
  /** Option values as parseArgs gives them (validate them with parseValues). */
  values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  positionals: string[];
}

/** parseArgs with `--help`; prints the usage and returns HELP_SHOWN when asked for help. */
export function parseCommandArgs<O extends Options>(argv: string[], spec: CommandArgsSpec<O>): ParsedCommandArgs | typeof HELP_SHOWN {
  const options: Options = { ...spec.options, help: { type: 'boolean', short: 'h' } };
  let parsed: ParsedCommandArgs & { tokens: { kind: string; name?: string }[] };
  try {
    parsed = parseArgs({ args: argv, options, strict: true, allowPositionals: spec.allowPositionals ?? false, tokens: true });
  } catch (error) {
    throw usageError(friendlyParseError((error as Error).message), spec.usage);
  }
  const seen = new Set<string>();
  for (const token of parsed.tokens) {
    if (token.kind !== 'option' || !token.name) continue;
    if (seen.has(token.name) && !options[token.name]?.multiple) throw usageError(`Option '--${token.name}' given twice.`, spec.usage);
    seen.add(token.name);
  }
  if (parsed.values.help) {
    process.stdout.write(spec.usage.endsWith('\n') ? spec.usage : `${spec.usage}\n`);
    return HELP_SHOWN;
  }
  return parsed;
}

/** parseArgs' messages, said the way the rest of the CLI says them. */
function friendlyParseError(message: string): string {
  const name = /'(--?[\w-]+)/.exec(message)?.[1];
  if (name && /argument missing|argument is ambiguous/.test(message)) return `${name} needs a value.`;
  if (name && /does not take an argument/.test(message)) return `${name} takes no value.`;
  return message.split('\n')[0];
}

/** Validates parsed values with zod; each option's problem (one per option) becomes a usage error. */
export function parseValues<S extends z.ZodType>(schema: S, values: unknown, usage: string): z.infer<S> {
  const parsed = schema.safeParse(values);
  if (parsed.success) return parsed.data;
  const byOption = new Map<string, z.core.$ZodIssue>();
  for (const issue of parsed.error.issues) {
    const name = typeof issue.path[0] === 'string' ? `--${issue.path[0].replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}` : 'arguments';
    const seen = byOption.get(name);
    // Of two upper bounds (an integer's implicit safe-integer one and the option's own), the option's says more.
    if (!seen || (seen.code === 'too_big' && issue.code === 'too_big' && Number(issue.maximum) < Number(seen.maximum))) byOption.set(name, issue);
  }
  const problems = [...byOption].map(([name, issue]) => `${name}: ${plainMessage(issue)}`).join('; ');
  throw usageError(`Invalid arguments (${problems}).`, usage);
}

/** The options of an `npm run bench:*` script: `flags` take no value, `valued` take one (a string for `schema` to coerce). */
export interface BenchArgsSpec {
  usage: string;
  flags?: readonly string[];
  valued?: readonly string[];
}

/**
 * A bench's arguments, as strict as a subcommand's: `--help` prints the usage (HELP_SHOWN: the
 * bench returns 0 without running), an unknown option or a bad value is a usage error (exit 2).
 *
 * @example
 * const o = parseBenchArgs(argv, { usage: USAGE, flags: ['json'], valued: ['runs'] }, ArgsSchema);
 * if (o === HELP_SHOWN) return 0;
 */
export function parseBenchArgs<S extends z.ZodType>(argv: string[], spec: BenchArgsSpec, schema: S): z.infer<S> | typeof HELP_SHOWN {
  const options: Options = {};
  for (const name of spec.flags ?? []) options[name] = { type: 'boolean' };
  for (const name of spec.valued ?? []) options[name] = { type: 'string' };
  const parsed = parseCommandArgs(argv, { usage: spec.usage, options });
  if (parsed === HELP_SHOWN) return HELP_SHOWN;
  return parseValues(schema, parsed.values, spec.usage);
}
