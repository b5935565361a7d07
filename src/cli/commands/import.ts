import * as fs from 'node:fs';
import { z } from 'zod';
import { AgentMemoryError } from '../../core/errors';
import { stderrLogger } from '../../core/logger';
import { importJsonl } from '../../core/memory/jsonl';
import { MemoryStore } from '../../core/memory/store';

export const summary = 'import records from a JSONL file: import FILE --db DB [--reason TEXT]';

const ArgsSchema = z.object({
  file: z.string().min(1, 'give the JSONL file to import'),
  db: z.string().min(1, 'give the memory database with --db'),
  reason: z.string().optional(),
});

/** `agent-memory import FILE --db DB`: validates every line, then writes all records in one transaction. */
export async function run(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
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

function parseArgs(argv: string[]): z.infer<typeof ArgsSchema> {
  const positional: string[] = [];
  const named: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--db' || a === '--reason') named[a.slice(2)] = argv[++i] ?? '';
    else if (a.startsWith('--')) throw new AgentMemoryError('INVALID_INPUT', `Unknown option ${a}. Usage: agent-memory ${summary.split(': ')[1]}`);
    else positional.push(a);
  }
  const parsed = ArgsSchema.safeParse({ file: positional[0] ?? '', db: named.db ?? '', reason: named.reason });
  if (!parsed.success) throw new AgentMemoryError('INVALID_INPUT', `${parsed.error.issues[0].message}. Usage: agent-memory ${summary.split(': ')[1]}`);
  return parsed.data;
}
