import * as fs from 'node:fs';
import { z } from 'zod';
import { stderrLogger } from '../../core/logger';
import { refitAndReembed } from '../../core/app/embedding';
import { isEndpointEmbedderId } from '../../core/app/endpoint-embedding';
import { checkJsonl, importRecords, parseJsonl } from '../../core/memory/io/jsonl';
import type { JsonlRecord } from '../../core/memory/io/jsonl-format';
import { MemoryStore } from '../../core/memory/sqlite/store';
import { isPostgresUrl, PASSWORD_ENV } from '../../core/memory/postgres/connection';
import { importTeamJsonl } from '../../core/memory/postgres/team-jsonl';
import { HELP_SHOWN, parseCommandArgs, parseValues, usageError } from '../args';
import { readInputFile } from '../input-file';
import { connectTeam, refuseSpaceOnFile } from '../team/team-target';

export const summary = 'import records from a JSONL file: import FILE --db FILE|postgres://… [--space NAME] [--reason TEXT] [--skip-invalid]';
const USAGE = `Usage: agent-memory import FILE --db FILE|postgres://… [--space NAME] [--reason TEXT] [--skip-invalid]

Every line is checked first (valid UTF-8 and JSON, every field, ids without control characters
or path separators, size caps); any error names the line and field and nothing is written.
--skip-invalid imports the valid lines instead (still one transaction) and lists each skipped
line on stderr as FILE:LINE: the problem; a file with no valid line still imports nothing.
Secrets in the text are redacted before they are stored. Into a team memory's space (password
from ${PASSWORD_ENV}) the records go in one transaction, audited with who imported them.`;

const ArgsSchema = z.object({
  file: z.string({ message: 'give the JSONL file to import' }).min(1, 'give the JSONL file to import'),
  db: z.string({ message: 'give the memory database with --db' }).min(1, 'give the memory database with --db'),
  reason: z.string().optional(),
  space: z.string().optional(),
  'skip-invalid': z.boolean().default(false),
});

/**
 * `agent-memory import FILE --db DB`: validates every line (UTF-8, fields, caps) before
 * opening the database, then writes all records in one transaction. A failed import
 * writes nothing and, when DB did not exist, leaves no file behind.
 */
export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs(argv, { usage: USAGE, options: { db: { type: 'string' }, space: { type: 'string' }, reason: { type: 'string' }, 'skip-invalid': { type: 'boolean' } }, allowPositionals: true });
  if (parsed === HELP_SHOWN) return 0;
  if (parsed.positionals.length > 1) throw usageError(`Expected one FILE, got ${parsed.positionals.length}.`, USAGE);
  const args = parseValues(ArgsSchema, { ...parsed.values, file: parsed.positionals[0] }, USAGE);
  if (!isPostgresUrl(args.db)) refuseSpaceOnFile(args.space, USAGE);
  const records = readRecords(args.file, args['skip-invalid']);
  const reason = args.reason ?? `import of ${args.file}`;
  if (isPostgresUrl(args.db)) {
    const team = await connectTeam(args.db, args.space, { logger: stderrLogger('warn') });
    try {
      const { imported, redacted } = await importTeamJsonl(team, records, { reason });
      process.stdout.write(`imported ${imported} record(s) into space ${team.space} of ${team.where}${redacted > 0 ? ` (${redacted} secret(s) redacted)` : ''}\n`);
    } finally {
      await team.close();
    }
    return 0;
  }
  const existed = fs.existsSync(args.db);
  let store: MemoryStore | undefined;
  try {
    store = MemoryStore.open(args.db, { logger: stderrLogger('warn'), channel: 'cli' });
    const { imported, redacted, vectors } = importIntoFile(store, records, reason);
    process.stdout.write(`imported ${imported} record(s) into ${args.db}${redacted > 0 ? ` (${redacted} secret(s) redacted)` : ''}${vectors}\n`);
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

/**
 * The file's valid records. Without `skipInvalid` any bad line is an IMPORT error naming the lines
 * (nothing is written); with it each bad line goes to stderr as `FILE:LINE: problem` and is left out
 * (a file with no valid line is still an error).
 */
function readRecords(file: string, skipInvalid: boolean): JsonlRecord[] {
  const bytes = readInputFile(file, 'the JSONL file to import', 'FILE');
  if (!skipInvalid) return parseJsonl(bytes);
  const { records, problems } = checkJsonl(bytes);
  if (records.length === 0) return parseJsonl(bytes);
  for (const problem of problems) process.stderr.write(`${fileLine(file, problem)}\n`);
  if (problems.length > 0) process.stderr.write(`skipped ${problems.length} invalid line(s) of ${file}; importing the ${records.length} valid one(s)\n`);
  return records;
}

/** `Line 3: field 'question': is missing` as `memory.jsonl:3: field 'question': is missing` (the form editors jump to). */
function fileLine(file: string, problem: string): string {
  const m = /^Line (\d+): (.*)$/s.exec(problem);
  return m ? `${file}:${m[1]}: ${m[2]}` : `${file}: ${problem}`;
}

/**
 * The file's vectors are kept when they come from the memory's embedder (or the memory has none
 * yet: an export → import round trip stays byte for byte). Vectors of another embedder cannot be
 * mixed with the memory's, so they are recomputed as the editor's import does: with the built-in
 * embedder the memory is re-fitted and re-embedded in the same transaction; an endpoint-embedded
 * memory takes the records without vectors (keyword retrieval finds them) until `re-embed`.
 */
function importIntoFile(store: MemoryStore, records: JsonlRecord[], reason: string): { imported: number; redacted: number; vectors: string } {
  const file = records.find((r) => r.embedderId !== undefined);
  const memory = store.embedder;
  if (!file?.embedding || !memory || (file.embedderId === memory.id && file.embedding.length === memory.dimension)) {
    return { ...importRecords(store, records, { reason }), vectors: '' };
  }
  const from = `${file.embedderId} vectors`;
  if (isEndpointEmbedderId(memory.id)) {
    const result = importRecords(store, records, { reason, ignoreEmbeddings: true });
    return { ...result, vectors: `; its ${from} were left out, as this memory is embedded by ${memory.id}: run 'agent-memory re-embed --db … --model … --base-url …' to embed them (keyword retrieval finds them meanwhile)` };
  }
  return store.atomically(() => {
    const result = importRecords(store, records, { reason, ignoreEmbeddings: true });
    const { embedder } = refitAndReembed(store, 'import');
    return { ...result, vectors: `; its ${from} were recomputed: the memory was re-fitted and re-embedded with ${embedder.id}` };
  });
}
