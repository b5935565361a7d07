import * as fs from 'node:fs';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { AgentMemoryError } from '../../core/errors';
import { stderrLogger } from '../../core/logger';
import { importRecords, parseJsonl } from '../../core/memory/jsonl';
import { MemoryStore } from '../../core/memory/store';

export const summary = 'import records from a JSONL file: import FILE --db DB [--reason TEXT]';
const USAGE = 'Usage: agent-memory import FILE --db DB [--reason TEXT]';

const ArgsSchema = z.object({
  file: z.string().min(1, 'give the JSONL file to import'),
  db: z.string().min(1, 'give the memory database with --db'),
  reason: z.string().optional(),
});

/**
 * `agent-memory import FILE --db DB`: validates every line (UTF-8, fields, caps) before
 * opening the database, then writes all records in one transaction. A failed import
 * writes nothing and, when DB did not exist, leaves no file behind.
 */
export async function run(argv: string[]): Promise<number> {
  const args = parse(argv);
  if (!args) return 0;
  if (!fs.existsSync(args.file)) throw new AgentMemoryError('NOT_FOUND', `No such file: ${args.file}.`);
  const records = parseJsonl(fs.readFileSync(args.file));
  const existed = fs.existsSync(args.db);
  let store: MemoryStore | undefined;
  try {
    store = MemoryStore.open(args.db, { logger: stderrLogger('warn') });
    const { imported, redacted } = importRecords(store, records, { reason: args.reason ?? `import of ${args.file}` });
    process.stdout.write(`imported ${imported} record(s) into ${args.db}${redacted > 0 ? ` (${redacted} secret(s) redacted)` : ''}\n`);
  } catch (error) {
    store?.close();
    store = undefined;
    if (!existed) for (const f of [args.db, `${args.db}-wal`, `${args.db}-shm`]) fs.rmSync(f, { force: true });
    throw error;
  } finally {
    store?.close();
  }
  return 0;
}

function parse(argv: string[]): z.infer<typeof ArgsSchema> | undefined {
  let values: { db?: string; reason?: string; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: argv, options: { db: { type: 'string' }, reason: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: true }));
  } catch (error) {
    throw new AgentMemoryError('INVALID_INPUT', `${(error as Error).message}. ${USAGE}`);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n\nEvery line is checked first (valid UTF-8 and JSON, every field, ids without control characters\nor path separators, size caps); any error names the line and field and nothing is written.\nSecrets in the text are redacted before they are stored.\n`);
    return undefined;
  }
  const parsed = ArgsSchema.safeParse({ file: positionals[0] ?? '', db: values.db ?? '', reason: values.reason });
  if (!parsed.success) throw new AgentMemoryError('INVALID_INPUT', `${parsed.error.issues[0].message}. ${USAGE}`);
  return parsed.data;
}
