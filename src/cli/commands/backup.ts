import { z } from 'zod';
import { HELP_SHOWN, parseCommandArgs, parseValues } from '../args';
import { stderrLogger } from '../../core/logger';
import { backupDatabase } from '../../core/memory/io/backup';
import { isPostgresUrl, PASSWORD_ENV } from '../../core/memory/postgres/connection';
import { backupTeam } from '../../core/memory/postgres/team-backup';
import { requireFileDatabase } from '../db-target';
import { connectTeam, refuseSpaceOnFile } from '../team/team-target';

export const summary = 'copy a memory consistently, even while it is in use: backup --db FILE|postgres://… [--space NAME] --out FILE';
const USAGE = `Usage: agent-memory backup --db FILE|postgres://… [--space NAME] --out FILE

Copies the memory database with SQLite's online backup (a consistent snapshot even while
VS Code or another agent-memory process writes), checks the copy's integrity, and never
overwrites an existing file. Restore with: agent-memory restore --from FILE --db FILE
A team memory's space (password from ${PASSWORD_ENV}) is written as a SQLite memory file
(one consistent read: records, vectors, utilities, retrieval and task logs, audit),
integrity-checked; restore it into a space with: agent-memory restore --from FILE --db postgres://… --space NAME`;

const ArgsSchema = z.object({
  db: z.string({ message: 'give the memory database with --db' }).min(1, 'give the memory database with --db'),
  out: z.string({ message: 'give the backup file with --out' }).min(1, 'give the backup file with --out'),
  space: z.string().optional(),
});

/** `agent-memory backup --db FILE|URL --out FILE`: integrity-checked; never overwrites --out. */
export async function run(argv: string[]): Promise<number> {
  const args = parseCommandArgs(argv, { usage: USAGE, options: { db: { type: 'string' }, out: { type: 'string' }, space: { type: 'string' } } });
  if (args === HELP_SHOWN) return 0;
  const parsed = { data: parseValues(ArgsSchema, args.values, USAGE) };
  requireFileDatabase(parsed.data.out, 'backup', 'the backup is a SQLite file: give a file path with --out', 'a file for --out');
  let result;
  if (isPostgresUrl(parsed.data.db)) {
    const logger = stderrLogger('warn');
    const team = await connectTeam(parsed.data.db, parsed.data.space, { logger });
    try {
      result = await backupTeam(team, parsed.data.out, logger);
    } finally {
      await team.close();
    }
  } else {
    refuseSpaceOnFile(parsed.data.space, USAGE);
    result = await backupDatabase(parsed.data.db, parsed.data.out);
  }
  process.stdout.write(`backed up ${result.records} record(s) to ${result.file} (${result.bytes} bytes)\n`);
  return 0;
}
