import * as path from 'node:path';
import { z } from 'zod';
import { refitAndReembed } from '../../core/app/embedding';
import { stderrLogger } from '../../core/logger';
import { MemoryStore } from '../../core/memory/store';
import { HELP_SHOWN, parseCommandArgs, parseValues } from '../args';

export const summary = 're-fit the built-in embedder and re-embed every record (fixes an embedder mismatch)';

const USAGE = `Usage: agent-memory re-embed --db FILE

Re-fits the built-in embedder on all records and re-embeds every one of them
(one transaction); prints the number of records re-embedded.`;

const ArgsSchema = z.object({ db: z.string({ message: '--db FILE is required' }).min(1, '--db FILE is required') });

/** `agent-memory re-embed --db FILE`: prints the number of records re-embedded. */
export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs(argv, { usage: USAGE, options: { db: { type: 'string' } } });
  if (parsed === HELP_SHOWN) return 0;
  const { db } = parseValues(ArgsSchema, parsed.values, USAGE);
  const store = MemoryStore.open(path.resolve(db), { logger: stderrLogger('warn') });
  try {
    const { embedder, count } = refitAndReembed(store, 'user');
    process.stdout.write(`${count}\n`);
    process.stderr.write(`re-embedded ${count} record(s) with ${embedder.id}\n`);
    return 0;
  } finally {
    store.close();
  }
}
