import * as fs from 'node:fs';
import { z } from 'zod';
import { AgentMemoryError } from '../../core/errors';
import { stderrLogger } from '../../core/logger';
import { importJsonl } from '../../core/memory/jsonl';
import { MemoryStore } from '../../core/memory/store';
import { HELP_SHOWN, parseCommandArgs, parseValues, usageError } from '../args';

export const summary = 'import records from a JSONL file: import FILE --db DB [--reason TEXT]';

const USAGE = `Usage: agent-memory import FILE --db DB [--reason TEXT]

Validates every line of the JSONL file FILE, then writes all records in one transaction
(nothing is written when any line is invalid).
  --db DB          memory database
  --reason TEXT    reason written to the audit log`;

const ArgsSchema = z.object({
  file: z.string({ message: 'give the JSONL file to import' }).min(1, 'give the JSONL file to import'),
  db: z.string({ message: 'give the memory database with --db' }).min(1, 'give the memory database with --db'),
  reason: z.string().optional(),
});

/** `agent-memory import FILE --db DB`: validates every line, then writes all records in one transaction. */
export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs(argv, { usage: USAGE, options: { db: { type: 'string' }, reason: { type: 'string' } }, allowPositionals: true });
  if (parsed === HELP_SHOWN) return 0;
  if (parsed.positionals.length > 1) throw usageError(`Expected one FILE, got ${parsed.positionals.length}.`, USAGE);
  const args = parseValues(ArgsSchema, { ...parsed.values, file: parsed.positionals[0] }, USAGE);
  if (!fs.existsSync(args.file)) throw new AgentMemoryError('NOT_FOUND', `No such file: ${args.file}.`);
  const text = fs.readFileSync(args.file, 'utf8');
  const store = MemoryStore.open(args.db, { logger: stderrLogger('warn') });
  try {
    const { imported } = importJsonl(store, text, { reason: args.reason ?? `import of ${args.file}` });
    process.stdout.write(`imported ${imported} record(s) into ${args.db}\n`);
  } finally {
    store.close();
  }
  return 0;
}
