import * as fs from 'node:fs';
import { z } from 'zod';
import { AgentMemoryError } from '../../core/errors';
import { stderrLogger } from '../../core/logger';
import { exportJsonl, type ExportOptions } from '../../core/memory/io/jsonl';
import { isPostgresUrl, PASSWORD_ENV } from '../../core/memory/postgres/connection';
import { exportTeamJsonl } from '../../core/memory/postgres/team-jsonl';
import { MemoryStore } from '../../core/memory/sqlite/store';
import { StatusSchema } from '../../core/memory/types';
import { HELP_SHOWN, parseCommandArgs, parseValues } from '../args';
import { flushStdout } from '../stdout';
import { connectTeam, refuseSpaceOnFile } from '../team/team-target';

export const summary = `export records as JSONL to stdout: export --db FILE|postgres://… [--space NAME] [--status ${StatusSchema.options.join(',')}] [--no-embeddings]`;
const USAGE = `Usage: agent-memory export --db FILE|postgres://… [--space NAME] [--status ${StatusSchema.options.join(',')}] [--no-embeddings]

Writes every record (or those with the given statuses, comma-separated) as one JSON line to
stdout. Re-importing the file keeps each record's status, the status a restore returns a deleted
record to, its timestamps and provenance. A team memory's space (password from ${PASSWORD_ENV})
exports in the same format: the same records give the same bytes from either backend.`;

const ArgsSchema = z.object({
  db: z.string({ message: 'give the memory database with --db' }).min(1, 'give the memory database with --db'),
  status: z
    .string()
    .optional()
    .transform((s) => (s === undefined ? undefined : s.split(',').map((x) => x.trim()).filter(Boolean)))
    .pipe(z.array(StatusSchema).min(1, `give at least one of ${StatusSchema.options.join(', ')}`).optional()),
  'no-embeddings': z.boolean().default(false),
  space: z.string().optional(),
});

const CHUNK = 1 << 20;

/** `agent-memory export --db DB > out.jsonl`: one record per line, every field (status history and timestamps included). */
export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs(argv, { usage: USAGE, options: { db: { type: 'string' }, space: { type: 'string' }, status: { type: 'string' }, 'no-embeddings': { type: 'boolean' } } });
  if (parsed === HELP_SHOWN) return 0;
  const args = parseValues(ArgsSchema, parsed.values, USAGE);
  if (isPostgresUrl(args.db)) return exportTeam(args.db, args.space, { status: args.status, embeddings: !args['no-embeddings'] });
  refuseSpaceOnFile(args.space, USAGE);
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
      { status: args.status, embeddings: !args['no-embeddings'] },
    );
    process.stdout.write(buffer);
    await flushStdout();
    process.stderr.write(`exported ${count} record(s)\n`);
  } finally {
    store.close();
  }
  return 0;
}

async function exportTeam(url: string, space: string | undefined, options: ExportOptions): Promise<number> {
  const team = await connectTeam(url, space, { logger: stderrLogger('warn') });
  let buffer = '';
  try {
    const count = await exportTeamJsonl(
      team,
      (line) => {
        buffer += line;
        if (buffer.length >= CHUNK) {
          process.stdout.write(buffer);
          buffer = '';
        }
      },
      options,
    );
    process.stdout.write(buffer);
    await flushStdout();
    process.stderr.write(`exported ${count} record(s) from space ${team.space}\n`);
  } finally {
    await team.close();
  }
  return 0;
}
