import * as fs from 'node:fs';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { AgentMemoryError } from '../../core/errors';
import { stderrLogger } from '../../core/logger';
import { exportJsonl } from '../../core/memory/jsonl';
import { MemoryStore } from '../../core/memory/store';
import { StatusSchema } from '../../core/memory/types';

export const summary = `export records as JSONL to stdout: export --db DB [--status ${StatusSchema.options.join(',')}] [--no-embeddings]`;
const USAGE = `Usage: agent-memory export --db DB [--status ${StatusSchema.options.join(',')}] [--no-embeddings]`;

const ArgsSchema = z.object({
  db: z.string().min(1, 'give the memory database with --db'),
  status: z.array(StatusSchema).optional(),
  embeddings: z.boolean(),
});

const CHUNK = 1 << 20;

/** `agent-memory export --db DB > out.jsonl`: one record per line, every field (status history and timestamps included). */
export async function run(argv: string[]): Promise<number> {
  const args = parse(argv);
  if (!args) return 0;
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

function parse(argv: string[]): z.infer<typeof ArgsSchema> | undefined {
  let values: { db?: string; status?: string; 'no-embeddings'?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({ args: argv, options: { db: { type: 'string' }, status: { type: 'string' }, 'no-embeddings': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new AgentMemoryError('INVALID_INPUT', `${(error as Error).message}. ${USAGE}`);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n\nWrites every record (or those with the given statuses, comma-separated) as one JSON line to\nstdout. Re-importing the file keeps each record's status, the status a restore returns a deleted\nrecord to, its timestamps and provenance.\n`);
    return undefined;
  }
  const status = values.status === undefined ? undefined : values.status.split(',').map((s) => s.trim()).filter(Boolean);
  const parsed = ArgsSchema.safeParse({ db: values.db ?? '', status, embeddings: !values['no-embeddings'] });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AgentMemoryError('INVALID_INPUT', `${issue.path.length ? `--${String(issue.path[0])}: ` : ''}${issue.message}. ${USAGE}`);
  }
  return parsed.data;
}
