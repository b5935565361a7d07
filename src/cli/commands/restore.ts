import { parseArgs } from 'node:util';
import { z } from 'zod';
import { AgentMemoryError } from '../../core/errors';
import { restoreDatabase } from '../../core/memory/backup';

export const summary = 'replace a memory database by a backup (checked first; the old one is kept as .bak): restore --from FILE --db FILE';
const USAGE = 'Usage: agent-memory restore --from BACKUP --db FILE';

const ArgsSchema = z.object({
  from: z.string().min(1, 'give the backup file with --from'),
  db: z.string().min(1, 'give the memory database to restore with --db'),
});

/** `agent-memory restore --from BACKUP --db FILE`. */
export async function run(argv: string[]): Promise<number> {
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({ args: argv, options: { from: { type: 'string' }, db: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new AgentMemoryError('INVALID_INPUT', `${(error as Error).message}. ${USAGE}`);
  }
  if (values.help) {
    process.stdout.write(
      `${USAGE}\n\nChecks the backup (SQLite integrity check, an Agent Memory schema this build supports) before\ntouching anything; keeps the current database as FILE.before-restore-<time>.bak; then writes the\nbackup into FILE through SQLite (an open VS Code window sees the restored memory at its next query).\nRefuses, changing nothing, when another process holds the database's write lock.\n`,
    );
    return 0;
  }
  const parsed = ArgsSchema.safeParse({ from: values.from ?? '', db: values.db ?? '' });
  if (!parsed.success) throw new AgentMemoryError('INVALID_INPUT', `${parsed.error.issues[0].message}. ${USAGE}`);
  const result = await restoreDatabase(parsed.data.from, parsed.data.db);
  process.stdout.write(`restored ${result.records} record(s) into ${parsed.data.db}${result.previous ? `; the previous database is kept as ${result.previous}` : ''}\n`);
  return 0;
}
