import * as fs from 'node:fs';
import { z } from 'zod';
import { AgentMemoryError } from '../../core/errors';
import { stderrLogger } from '../../core/logger';
import { exportJsonl } from '../../core/memory/jsonl';
import { MemoryStore } from '../../core/memory/store';
import { StatusSchema } from '../../core/memory/types';

export const summary = 'export records as JSONL to stdout: export --db DB [--status active,pending,deleted] [--no-embeddings]';

const ArgsSchema = z.object({
  db: z.string().min(1, 'give the memory database with --db'),
  status: z.array(StatusSchema).optional(),
  embeddings: z.boolean(),
});

const CHUNK = 1 << 20;

/** `agent-memory export --db DB > out.jsonl`: one record per line, every field. */
export async function run(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  if (!fs.existsSync(args.db)) throw new AgentMemoryError('NOT_FOUND', `No memory database at ${args.db}.`);
  const store = MemoryStore.open(args.db, { logger: stderrLogger('warn') });
  let buffer = '';
  try {
    const count = exportJsonl(
      store,
      (line) => {
        buffer += line;
        if (buffer.length >= CHUNK) {
          process.stdout.write(buffer);
          buffer = '';
        }
      },
      { status: args.status, embeddings: args.embeddings },
    );
    process.stdout.write(buffer);
    process.stderr.write(`exported ${count} record(s)\n`);
  } finally {
    store.close();
  }
  return 0;
}

function parseArgs(argv: string[]): z.infer<typeof ArgsSchema> {
  let db = '';
  let status: string[] | undefined;
  let embeddings = true;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--db') db = argv[++i] ?? '';
    else if (a === '--status') status = (argv[++i] ?? '').split(',').filter(Boolean);
    else if (a === '--no-embeddings') embeddings = false;
    else throw new AgentMemoryError('INVALID_INPUT', `Unknown argument ${a}. Usage: agent-memory ${summary.split(': ')[1]}`);
  }
  const parsed = ArgsSchema.safeParse({ db, status, embeddings });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AgentMemoryError('INVALID_INPUT', `${issue.path.length ? `--${String(issue.path[0])}: ` : ''}${issue.message}. Usage: agent-memory ${summary.split(': ')[1]}`);
  }
  return parsed.data;
}
