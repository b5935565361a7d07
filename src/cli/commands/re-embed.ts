import * as path from 'node:path';
import { z } from 'zod';
import { refitAndReembed } from '../../core/app/embedding';
import { AgentMemoryError } from '../../core/errors';
import { stderrLogger } from '../../core/logger';
import { MemoryStore } from '../../core/memory/store';

export const summary = 're-fit the built-in embedder and re-embed every record (fixes an embedder mismatch)';

const ArgsSchema = z.object({ db: z.string().min(1) });

/** `agent-memory re-embed --db FILE`: prints the number of records re-embedded. */
export async function run(argv: string[]): Promise<number> {
  if (argv.length !== 2 || argv[0] !== '--db') throw new AgentMemoryError('INVALID_INPUT', 'Usage: agent-memory re-embed --db FILE');
  const { db } = ArgsSchema.parse({ db: argv[1] });
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
