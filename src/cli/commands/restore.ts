import { z } from 'zod';
import { HELP_SHOWN, parseCommandArgs, parseValues } from '../args';
import { restoreDatabase } from '../../core/memory/backup';
import { requireFileDatabase } from '../db-target';

export const summary = 'replace a memory database by a backup (checked first; the old one is kept as .bak): restore --from FILE --db FILE';
const USAGE = `Usage: agent-memory restore --from BACKUP --db FILE

Checks the backup (SQLite integrity check, an Agent Memory schema this build supports) before
touching anything; keeps the current database as FILE.before-restore-<time>.bak; then writes the
backup into FILE through SQLite (an open VS Code window sees the restored memory at its next query).
Refuses, changing nothing, when another process holds the database's write lock.`;

const ArgsSchema = z.object({
  from: z.string({ message: 'give the backup file with --from' }).min(1, 'give the backup file with --from'),
  db: z.string({ message: 'give the memory database to restore with --db' }).min(1, 'give the memory database to restore with --db'),
});

/** `agent-memory restore --from BACKUP --db FILE`. */
export async function run(argv: string[]): Promise<number> {
  const args = parseCommandArgs(argv, { usage: USAGE, options: { from: { type: 'string' }, db: { type: 'string' } } });
  if (args === HELP_SHOWN) return 0;
  const parsed = { data: parseValues(ArgsSchema, args.values, USAGE) };
  requireFileDatabase(parsed.data.db, 'restore', "restore into a file, then copy it to a new space with 'agent-memory migrate --from FILE --to postgres://… --space NAME'");
  requireFileDatabase(parsed.data.from, 'restore');
  const result = await restoreDatabase(parsed.data.from, parsed.data.db);
  process.stdout.write(`restored ${result.records} record(s) into ${parsed.data.db}${result.previous ? `; the previous database is kept as ${result.previous}` : ''}\n`);
  return 0;
}
