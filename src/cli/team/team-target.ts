/**
 * How a CLI command opens a space of the team memory: the acting user and client for the
 * audit (`<os user>`, `cli@<host>`), the password from AGENT_MEMORY_PG_PASSWORD (or
 * PGPASSWORD) only, and `--space` refused on a SQLite file.
 *
 * @example
 * const team = await connectTeam(args.db, args.space);
 * try { … } finally { await team.close(); }
 */
import * as os from 'node:os';
import type { Logger } from '../../core/logger';
import { TeamMemoryStore } from '../../core/memory/postgres/team-store';
import { SpaceSchema, type TeamConnectionInput } from '../../core/memory/postgres/connection';
import { usageError } from '../args';

/** Who acts, for the team memory's audit. */
export function cliActor(): { user: string; client: string } {
  return { user: os.userInfo().username || 'unknown', client: `cli@${os.hostname()}` };
}

/** Connects to `url` (space `space`, default "default"). */
export function connectTeam(url: string, space: string | undefined, options: Partial<Pick<TeamConnectionInput, 'maxConnections' | 'retryMs'>> & { logger?: Logger } = {}): Promise<TeamMemoryStore> {
  const { logger, ...pool } = options;
  // An invalid --space is a usage error (exit 2), said before anything connects.
  const named = space === undefined ? undefined : SpaceSchema.safeParse(space);
  if (named && !named.success) return Promise.reject(usageError(`--space: ${named.error.issues[0]?.message ?? 'not a valid space name'}.`, 'Usage: agent-memory <command> --db postgres://… --space NAME'));
  return TeamMemoryStore.connect({ url, space, ...cliActor(), maxConnections: 2, retryMs: 5000, ...pool }, { logger });
}

/** A usage error when `--space` is given for a SQLite file. */
export function refuseSpaceOnFile(space: string | undefined, usage: string): void {
  if (space !== undefined) throw usageError('--space applies to a team memory (--db postgres://…) only.', usage);
}
