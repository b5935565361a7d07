import * as fs from 'node:fs';
import { z } from 'zod';
import { stderrLogger } from '../../core/logger';
import { refitAndReembed } from '../../core/app/embedding';
import { isEndpointEmbedderId } from '../../core/app/endpoint-embedding';
import { checkJsonl, parseJsonl } from '../../core/memory/io/jsonl';
import type { JsonlRecord } from '../../core/memory/io/jsonl-format';
import { checkJsonlFile, DEFAULT_IMPORT_BATCH_LINES, type JsonlFileCheck, writeJsonlFile } from '../../core/memory/io/jsonl-file-import';
import { fileIdentity, type ImportCheckpoint, readImportCheckpoint, type VectorMode } from '../../core/memory/io/import-checkpoint';
import { MemoryStore } from '../../core/memory/sqlite/store';
import { isPostgresUrl, PASSWORD_ENV } from '../../core/memory/postgres/connection';
import { importTeamJsonl } from '../../core/memory/postgres/team-jsonl';
import { HELP_SHOWN, parseCommandArgs, parseValues, usageError } from '../args';
import { assertInputFile, readInputFile } from '../input-file';
import { count, ImportProgressLine } from '../import-progress';
import { connectTeam, refuseSpaceOnFile } from '../team/team-target';

/** Seconds between progress lines when stderr is not a terminal. */
const DEFAULT_PROGRESS_SECONDS = 5;

export const summary = 'import records from a JSONL file: import FILE --db FILE|postgres://… [--space NAME] [--reason TEXT] [--skip-invalid] [--batch-lines N] [--restart]';
const USAGE = `Usage: agent-memory import FILE --db FILE|postgres://… [--space NAME] [--reason TEXT] [--skip-invalid]
                            [--batch-lines ${DEFAULT_IMPORT_BATCH_LINES}] [--restart] [--progress-interval ${DEFAULT_PROGRESS_SECONDS}]

Every line is checked first (valid UTF-8 and JSON, every field, ids without control characters
or path separators, size caps); any error names the line and field and nothing is written.
--skip-invalid imports the valid lines instead and lists each skipped line on stderr as
FILE:LINE: the problem; a file with no valid line still imports nothing.
Secrets in the text are redacted before they are stored.
Into a memory file the records go in transactions of --batch-lines lines, each also recording
how far the import got: run the same command again after an interruption (Ctrl-C, a kill, a
crash) and it resumes after the last committed line ("resuming at line …"); a changed file or
--restart starts from line 1. Progress goes to stderr (rewritten in place on a terminal,
otherwise a line every --progress-interval seconds; 0: after every batch); stdout keeps the
one result line. Into a team memory's space (password from ${PASSWORD_ENV}) the records go
in one transaction, audited with who imported them.`;

/** Exit code of an import stopped by Ctrl-C (128 + SIGINT): what was committed stays, to resume. */
const EXIT_INTERRUPTED = 130;

const ArgsSchema = z.object({
  file: z.string({ message: 'give the JSONL file to import' }).min(1, 'give the JSONL file to import'),
  db: z.string({ message: 'give the memory database with --db' }).min(1, 'give the memory database with --db'),
  reason: z.string().optional(),
  space: z.string().optional(),
  'skip-invalid': z.boolean().default(false),
  'batch-lines': z.coerce.number().int().min(1).max(1_000_000).optional(),
  restart: z.boolean().default(false),
  'progress-interval': z.coerce.number().min(0).max(3600).default(DEFAULT_PROGRESS_SECONDS),
});
type Args = z.infer<typeof ArgsSchema>;

const WHAT = 'the JSONL file to import';

/**
 * `agent-memory import FILE --db DB`: into a memory file, checks every line (reading the file in
 * blocks) before opening the database, then writes batches with a resumable checkpoint
 * (importJsonlFile). Into a team space, one transaction. A failed import that committed nothing
 * writes nothing and, when DB did not exist, leaves no file behind.
 */
export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs(argv, {
    usage: USAGE,
    options: { db: { type: 'string' }, space: { type: 'string' }, reason: { type: 'string' }, 'skip-invalid': { type: 'boolean' }, 'batch-lines': { type: 'string' }, restart: { type: 'boolean' }, 'progress-interval': { type: 'string' } },
    allowPositionals: true,
  });
  if (parsed === HELP_SHOWN) return 0;
  if (parsed.positionals.length > 1) throw usageError(`Expected one FILE, got ${parsed.positionals.length}.`, USAGE);
  const args = parseValues(ArgsSchema, { ...parsed.values, file: parsed.positionals[0] }, USAGE);
  const reason = args.reason ?? `import of ${args.file}`;
  if (!isPostgresUrl(args.db)) {
    refuseSpaceOnFile(args.space, USAGE);
    return importIntoFile(args, reason);
  }
  if (args.restart || args['batch-lines'] !== undefined) throw usageError('--batch-lines and --restart apply to a memory file: a team import is one transaction.', USAGE);
  const records = readRecords(args.file, args['skip-invalid']);
  const team = await connectTeam(args.db, args.space, { logger: stderrLogger('warn') });
  try {
    const { imported, redacted } = await importTeamJsonl(team, records, { reason });
    process.stdout.write(`imported ${imported} record(s) into space ${team.space} of ${team.where}${redacted > 0 ? ` (${redacted} secret(s) redacted)` : ''}\n`);
  } finally {
    await team.close();
  }
  return 0;
}

/**
 * The file's valid records, all in memory (the team import). Without `skipInvalid` any bad line is an
 * IMPORT error naming the lines (nothing is written); with it each bad line goes to stderr as
 * `FILE:LINE: problem` and is left out (a file with no valid line is still an error).
 */
function readRecords(file: string, skipInvalid: boolean): JsonlRecord[] {
  const bytes = readInputFile(file, WHAT, 'FILE');
  if (!skipInvalid) return parseJsonl(bytes);
  const { records, problems } = checkJsonl(bytes);
  if (records.length === 0) return parseJsonl(bytes);
  reportSkipped(file, problems, records.length);
  return records;
}

function reportSkipped(file: string, problems: readonly string[], valid: number): void {
  for (const problem of problems) process.stderr.write(`${fileLine(file, problem)}\n`);
  if (problems.length > 0) process.stderr.write(`skipped ${problems.length} invalid line(s) of ${file}; importing the ${valid} valid one(s)\n`);
}

/** `Line 3: field 'question': is missing` as `memory.jsonl:3: field 'question': is missing` (the form editors jump to). */
function fileLine(file: string, problem: string): string {
  const m = /^Line (\d+): (.*)$/s.exec(problem);
  return m ? `${file}:${m[1]}: ${m[2]}` : `${file}: ${problem}`;
}

/**
 * Into a memory file: resumes the file's interrupted import if the memory records one (same
 * identity, no --restart), checks the lines from there, then writes them in batches.
 */
async function importIntoFile(args: Args, reason: string): Promise<number> {
  assertInputFile(args.file, WHAT, 'FILE');
  const existed = fs.existsSync(args.db);
  const open = (): MemoryStore => MemoryStore.open(args.db, { logger: stderrLogger('warn'), channel: 'cli' });
  let store: MemoryStore | undefined = existed ? open() : undefined;
  const progress = new ImportProgressLine(process.stderr, args.file, args['progress-interval']);
  let stop = false;
  const onSigint = (): void => {
    stop = true;
  };
  try {
    const resume = store ? resumePoint(store, args) : undefined;
    progress.begin();
    const check = checkJsonlFile(args.file, { from: resume, skipInvalid: args['skip-invalid'], onProgress: (p) => progress.report(p) });
    progress.done();
    reportSkipped(args.file, check.problems, check.valid);
    store ??= open();
    const target = store;
    const vectors = resume?.vectors ?? vectorMode(target, check);
    let refitted = '';
    process.once('SIGINT', onSigint);
    progress.begin();
    const result = await writeJsonlFile(target, check, {
      reason,
      vectors,
      skipInvalid: args['skip-invalid'],
      batchLines: args['batch-lines'],
      before: resume,
      onProgress: (p) => progress.report(p),
      shouldStop: () => stop,
      finish: vectors === 'refit' ? () => (refitted = refitAndReembed(target, 'import').embedder.id) : undefined,
    });
    progress.done();
    if (result.stopped) {
      process.stderr.write(`interrupted: lines up to ${count(result.line)} of ${args.file} are imported; run the same command again to resume at line ${count(result.line + 1)}\n`);
      return EXIT_INTERRUPTED;
    }
    const before = resume ? `; resumed at line ${count(resume.line + 1)} (${resume.imported} record(s) imported before)` : '';
    process.stdout.write(`imported ${result.imported} record(s) into ${args.db}${result.redacted > 0 ? ` (${result.redacted} secret(s) redacted)` : ''}${vectorNote(target, check, vectors, refitted)}${before}\n`);
    return 0;
  } catch (error) {
    progress.done();
    const committed = store ? readImportCheckpoint(store) : undefined;
    store?.close();
    store = undefined;
    if (committed && committed.identity === fileIdentity(args.file)) process.stderr.write(`lines up to ${count(committed.line)} of ${args.file} are imported; once the problem is fixed, run the same command again to resume at line ${count(committed.line + 1)}\n`);
    else if (!committed && !existed) for (const f of [args.db, `${args.db}-wal`, `${args.db}-shm`]) fs.rmSync(f, { force: true });
    throw error;
  } finally {
    process.removeListener('SIGINT', onSigint);
    store?.close();
  }
}

/** Where to start: after the memory's checkpoint of this same file (said on stderr), else line 1 (saying why a checkpoint is not used). */
function resumePoint(store: MemoryStore, args: Args): ImportCheckpoint | undefined {
  const checkpoint = readImportCheckpoint(store);
  if (!checkpoint) return undefined;
  const at = `an interrupted import of ${checkpoint.file} (up to line ${count(checkpoint.line)})`;
  if (args.restart) {
    process.stderr.write(`--restart: ${at} is not resumed; importing ${args.file} from line 1\n`);
    return undefined;
  }
  if (checkpoint.identity !== fileIdentity(args.file)) {
    process.stderr.write(`${at} is recorded in ${args.db}, but ${args.file} is not that file as it was (size, modification time or content differ): importing from line 1\n`);
    return undefined;
  }
  process.stderr.write(`resuming at line ${count(checkpoint.line + 1)} of ${args.file} (${count(checkpoint.imported)} record(s) were imported before it was interrupted)\n`);
  return checkpoint;
}

/**
 * The file's vectors are kept when they come from the memory's embedder (or the memory has none
 * yet: an export → import round trip stays byte for byte). Vectors of another embedder cannot be
 * mixed with the memory's, so they are recomputed as the editor's import does: with the built-in
 * embedder the memory is re-fitted and re-embedded in the transaction that completes the import;
 * an endpoint-embedded memory takes the records without vectors (keyword retrieval finds them) until `re-embed`.
 */
function vectorMode(store: MemoryStore, check: JsonlFileCheck): VectorMode {
  const memory = store.embedder;
  if (!check.vectors || !memory || (check.vectors.embedderId === memory.id && check.vectors.dimension === memory.dimension)) return 'keep';
  return isEndpointEmbedderId(memory.id) ? 'drop' : 'refit';
}

function vectorNote(store: MemoryStore, check: JsonlFileCheck, vectors: VectorMode, refitted: string): string {
  const from = `${check.vectors?.embedderId ?? 'other'} vectors`;
  if (vectors === 'drop') return `; its ${from} were left out, as this memory is embedded by ${store.embedder?.id}: run 'agent-memory re-embed --db … --model … --base-url …' to embed them (keyword retrieval finds them meanwhile)`;
  if (vectors === 'refit') return `; its ${from} were recomputed: the memory was re-fitted and re-embedded with ${refitted}`;
  return '';
}
