/**
 * What `--db` (and the other database options) name: a SQLite file or a `postgres://`
 * team memory. Commands that work on a SQLite file only refuse a URL with a typed error
 * that says what to do instead, rather than creating a file named after the URL.
 *
 * @example
 * const db = requireFileDatabase(args.db, 'export', `run 'agent-memory migrate --from URL --to FILE' and export FILE`);
 */
import { AgentMemoryError } from '../core/errors';
import { describeConnection, isPostgresUrl } from '../core/memory/postgres/connection';

/** Commands that take a team memory URL where they take a database file. */
export const TEAM_COMMANDS = ['task', 'seed', 'export', 'import', 'backup', 'restore', 'review', 'revalidate', 're-embed', 'mcp', 'migrate', 'team-setup', 'team-grant', 'audit'] as const;

/** Workaround for a SQLite-only command: copy the team memory to a file first. */
export const VIA_MIGRATE = "copy the team memory to a file with 'agent-memory migrate --from postgres://… --to FILE' and give FILE";

/** `target` when it is a file path; UNSUPPORTED (nothing done) when it is a postgres:// URL. `kind`: what the option names. */
export function requireFileDatabase(target: string, command: string, instead: string = VIA_MIGRATE, kind = 'a SQLite memory file'): string {
  if (!isPostgresUrl(target)) return target;
  throw new AgentMemoryError(
    'UNSUPPORTED',
    `'agent-memory ${command}' works on ${kind} only, not on the team memory at ${describeConnection(target)}: ${instead}. ` +
      `Commands that take a postgres:// URL: ${TEAM_COMMANDS.join(', ')}. Nothing was done.`,
  );
}
