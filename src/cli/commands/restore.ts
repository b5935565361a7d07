import { z } from 'zod';
import { HELP_SHOWN, parseCommandArgs, parseValues, usageError } from '../args';
import { stderrLogger } from '../../core/logger';
import { restoreDatabase } from '../../core/memory/io/backup';
import { isPostgresUrl, PASSWORD_ENV } from '../../core/memory/postgres/connection';
import { restoreTeam } from '../../core/memory/postgres/team-backup';
import { requireFileDatabase } from '../db-target';
import { connectTeam, refuseSpaceOnFile } from '../team/team-target';

export const summary = 'restore a memory from a backup (checked first): restore --from FILE --db FILE|postgres://… [--space NAME] [--replace]';
const USAGE = `Usage: agent-memory restore --from BACKUP --db FILE
       agent-memory restore --from BACKUP --db postgres://… [--space NAME] [--replace]

Checks the backup (SQLite integrity check, an Agent Memory schema this build supports) before
touching anything; keeps the current database as FILE.before-restore-<time>.bak; then writes the
backup into FILE through SQLite (an open VS Code window sees the restored memory at its next query).
Refuses, changing nothing, when another process holds the database's write lock.
Into a team memory's space (password from ${PASSWORD_ENV}): the backup is written in one
transaction; a space that holds records or tasks is refused unless --replace, which replaces
its records, logs and audit in that same transaction (its addition policy and role memories stay).`;

const ArgsSchema = z.object({
  from: z.string({ message: 'give the backup file with --from' }).min(1, 'give the backup file with --from'),
  db: z.string({ message: 'give the memory database to restore with --db' }).min(1, 'give the memory database to restore with --db'),
  space: z.string().optional(),
  replace: z.boolean().default(false),
});

/** `agent-memory restore --from BACKUP --db FILE|URL`. */
export async function run(argv: string[]): Promise<number> {
  const args = parseCommandArgs(argv, { usage: USAGE, options: { from: { type: 'string' }, db: { type: 'string' }, space: { type: 'string' }, replace: { type: 'boolean' } } });
  if (args === HELP_SHOWN) return 0;
  const parsed = { data: parseValues(ArgsSchema, args.values, USAGE) };
  requireFileDatabase(parsed.data.from, 'restore', 'a backup is a SQLite file (agent-memory backup writes one): give its path with --from', 'a backup file for --from');
  if (isPostgresUrl(parsed.data.db)) {
    const logger = stderrLogger('warn');
    const team = await connectTeam(parsed.data.db, parsed.data.space, { logger });
    try {
      const r = await restoreTeam(team, parsed.data.from, { replace: parsed.data.replace, logger });
      process.stdout.write(`restored ${r.records} record(s) into space ${team.space} of ${team.where}${parsed.data.replace ? ` (replacing ${r.replaced} record(s))` : ''}\n`);
    } finally {
      await team.close();
    }
    return 0;
  }
  refuseSpaceOnFile(parsed.data.space, USAGE);
  if (parsed.data.replace) throw usageError('--replace applies to a team memory space; a file restore always keeps the previous file as .bak.', USAGE);
  const result = await restoreDatabase(parsed.data.from, parsed.data.db);
  process.stdout.write(`restored ${result.records} record(s) into ${parsed.data.db}${result.previous ? `; the previous database is kept as ${result.previous}` : ''}\n`);
  return 0;
}
