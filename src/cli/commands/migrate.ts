import * as fs from 'node:fs';
import { z } from 'zod';
import { AgentMemoryError } from '../../core/errors';
import { stderrLogger } from '../../core/logger';
import { describeConnection, isPostgresUrl, PASSWORD_ENV } from '../../core/memory/postgres/connection';
import { connectTeam } from '../team/team-target';
import { MemoryContent, readSqlite, readTeam, writeSqlite, writeTeam } from '../../core/memory/postgres/transfer';
import { MemoryStore } from '../../core/memory/sqlite/store';
import { HELP_SHOWN, parseCommandArgs, parseValues } from '../args';

export const summary = 'copy a whole memory between backends: migrate --from FILE|URL --to FILE|URL [--space NAME]';
const USAGE = `Usage: agent-memory migrate --from FILE|postgres://… --to FILE|postgres://… [--space NAME] [--from-space NAME] [--to-space NAME]

Copies every record (status, status before a delete, timestamps, provenance, vector, utilities,
merge count), the retrieval log, the task log and the audit trail from one memory to another:
a SQLite file or a space of a team memory on PostgreSQL (default space: "default"). The target
must be empty (a new file, or an unused space); the copy is one transaction.
The PostgreSQL password comes from ${PASSWORD_ENV}, never from a settings file.`;

const ArgsSchema = z.object({
  from: z.string({ message: 'give the source with --from FILE|URL' }).min(1),
  to: z.string({ message: 'give the target with --to FILE|URL' }).min(1),
  space: z.string().optional(),
  'from-space': z.string().optional(),
  'to-space': z.string().optional(),
});

async function read(target: string, space: string | undefined): Promise<MemoryContent> {
  if (isPostgresUrl(target)) {
    const team = await connectTeam(target, space, { maxConnections: 4 });
    try {
      return await readTeam(team);
    } finally {
      await team.close();
    }
  }
  if (!fs.existsSync(target)) throw new AgentMemoryError('NOT_FOUND', `No memory database at ${target}.`);
  const store = MemoryStore.open(target, { logger: stderrLogger('warn'), channel: 'cli' });
  try {
    return readSqlite(store);
  } finally {
    store.close();
  }
}

async function write(target: string, space: string | undefined, content: MemoryContent): Promise<void> {
  if (isPostgresUrl(target)) {
    const team = await connectTeam(target, space, { maxConnections: 4 });
    try {
      await writeTeam(team, content);
    } finally {
      await team.close();
    }
    return;
  }
  const store = MemoryStore.open(target, { logger: stderrLogger('warn'), channel: 'cli' });
  try {
    writeSqlite(store, content);
  } finally {
    store.close();
  }
}

/** `agent-memory migrate --from A --to B`: SQLite ↔ PostgreSQL (or file → file, space → space). */
export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs(argv, {
    usage: USAGE,
    options: { from: { type: 'string' }, to: { type: 'string' }, space: { type: 'string' }, 'from-space': { type: 'string' }, 'to-space': { type: 'string' } },
  });
  if (parsed === HELP_SHOWN) return 0;
  const args = parseValues(ArgsSchema, parsed.values, USAGE);
  const content = await read(args.from, args['from-space'] ?? args.space);
  await write(args.to, args['to-space'] ?? args.space, content);
  const name = (t: string): string => (isPostgresUrl(t) ? describeConnection(t) : t);
  process.stderr.write(
    `migrated ${content.records.length} record(s), ${content.retrievals.length} retrieval(s), ${content.tasks.length} task(s), ${content.audit.length} audit entr${content.audit.length === 1 ? 'y' : 'ies'} from ${name(args.from)} to ${name(args.to)}\n`,
  );
  return 0;
}
