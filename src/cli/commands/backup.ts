import { z } from 'zod';
import { HELP_SHOWN, parseCommandArgs, parseValues } from '../args';
import { backupDatabase } from '../../core/memory/backup';
import { requireFileDatabase } from '../db-target';

export const summary = 'copy a memory database consistently, even while it is in use: backup --db FILE --out FILE';
const USAGE = `Usage: agent-memory backup --db FILE --out FILE

Copies the memory database with SQLite's online backup (a consistent snapshot even while
VS Code or another agent-memory process writes), checks the copy's integrity, and never
overwrites an existing file. Restore with: agent-memory restore --from FILE --db FILE`;

const ArgsSchema = z.object({
  db: z.string({ message: 'give the memory database with --db' }).min(1, 'give the memory database with --db'),
  out: z.string({ message: 'give the backup file with --out' }).min(1, 'give the backup file with --out'),
});

/** `agent-memory backup --db FILE --out FILE`: SQLite online backup, integrity-checked; never overwrites --out. */
export async function run(argv: string[]): Promise<number> {
  const args = parseCommandArgs(argv, { usage: USAGE, options: { db: { type: 'string' }, out: { type: 'string' } } });
  if (args === HELP_SHOWN) return 0;
  const parsed = { data: parseValues(ArgsSchema, args.values, USAGE) };
  requireFileDatabase(parsed.data.db, 'backup', 'back up the PostgreSQL server with pg_dump (or copy the space to a file with agent-memory migrate)');
  requireFileDatabase(parsed.data.out, 'backup', 'back up the PostgreSQL server with pg_dump (or copy the space to a file with agent-memory migrate)');
  const result = await backupDatabase(parsed.data.db, parsed.data.out);
  process.stdout.write(`backed up ${result.records} record(s) to ${result.file} (${result.bytes} bytes)\n`);
  return 0;
}
