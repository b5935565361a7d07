import { parseArgs } from 'node:util';
import { z } from 'zod';
import { AgentMemoryError } from '../../core/errors';
import { backupDatabase } from '../../core/memory/backup';

export const summary = 'copy a memory database consistently, even while it is in use: backup --db FILE --out FILE';
const USAGE = 'Usage: agent-memory backup --db FILE --out FILE';

const ArgsSchema = z.object({
  db: z.string().min(1, 'give the memory database with --db'),
  out: z.string().min(1, 'give the backup file with --out'),
});

/** `agent-memory backup --db FILE --out FILE`: SQLite online backup, integrity-checked; never overwrites --out. */
export async function run(argv: string[]): Promise<number> {
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({ args: argv, options: { db: { type: 'string' }, out: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new AgentMemoryError('INVALID_INPUT', `${(error as Error).message}. ${USAGE}`);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n\nCopies the memory database with SQLite's online backup (a consistent snapshot even while\nVS Code or another agent-memory process writes), checks the copy's integrity, and never\noverwrites an existing file. Restore with: agent-memory restore --from FILE --db FILE\n`);
    return 0;
  }
  const parsed = ArgsSchema.safeParse({ db: values.db ?? '', out: values.out ?? '' });
  if (!parsed.success) throw new AgentMemoryError('INVALID_INPUT', `${parsed.error.issues[0].message}. ${USAGE}`);
  const result = await backupDatabase(parsed.data.db, parsed.data.out);
  process.stdout.write(`backed up ${result.records} record(s) to ${result.file} (${result.bytes} bytes)\n`);
  return 0;
}
