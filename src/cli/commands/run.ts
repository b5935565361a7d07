import { z } from 'zod';
import { createRunner, DEFAULT_RUN_LIMITS, RUNNER_ISOLATIONS, type RunResult } from '../../core/agent/runners';
import { stderrLogger } from '../../core/logger';
import { HELP_SHOWN, parseCommandArgs, parseValues } from '../args';
import { readInputFile } from '../input-file';
import { printable } from '../../core/printable';
import { requireFileDatabase } from '../db-target';

export const summary = "run one program in the agent's sandbox (outcome, answer, stdout, error)";

const USAGE = `Usage: agent-memory run --language python|javascript --db FILE --code-file FILE [--timeout-ms N] [--memory-mb N] [--isolation sandbox|none] [--json]

Runs one program exactly as the agent does (same sandbox, toolbox and limits) and prints
its outcome, answer, stdout and error. Exit code 0 when the run succeeded, 1 otherwise.
  --language L      python or javascript
  --db FILE         the database the program queries
  --code-file FILE  the program
  --timeout-ms N    wall-clock limit (default ${DEFAULT_RUN_LIMITS.timeoutMs})
  --memory-mb N     memory limit (default ${DEFAULT_RUN_LIMITS.memoryMb})
  --isolation I     sandbox (default) or none
  --json            print the run result as JSON`;

const ArgsSchema = z.object({
  language: z.enum(['python', 'javascript']),
  db: z.string().min(1, 'give the database the program queries with --db'),
  codeFile: z.string().min(1, 'give the program with --code-file'),
  timeoutMs: z.coerce.number().int().min(50).max(600_000).default(DEFAULT_RUN_LIMITS.timeoutMs),
  memoryMb: z.coerce.number().int().min(32).max(16_384).default(DEFAULT_RUN_LIMITS.memoryMb),
  isolation: z.enum(RUNNER_ISOLATIONS).default('sandbox'),
  json: z.boolean().default(false),
});

/**
 * `agent-memory run --language python --db data/ehr/mimic3-demo.sqlite --code-file prog.py`:
 * runs one program exactly as the agent does (same sandbox, toolbox and limits).
 * Exit code 0 when the run succeeded, 1 otherwise.
 */
export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs(argv, {
    usage: USAGE,
    options: {
      language: { type: 'string' },
      db: { type: 'string' },
      'code-file': { type: 'string' },
      'timeout-ms': { type: 'string' },
      'memory-mb': { type: 'string' },
      isolation: { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  if (parsed === HELP_SHOWN) return 0;
  const v = parsed.values;
  const args = parseValues(
    ArgsSchema,
    { language: v.language, db: v.db ?? '', codeFile: v['code-file'] ?? '', timeoutMs: v['timeout-ms'], memoryMb: v['memory-mb'], isolation: v.isolation, json: v.json },
    USAGE,
  );
  const code = readInputFile(args.codeFile, 'the program', '--code-file').toString('utf8');
  const runner = createRunner(args.language, { logger: stderrLogger('warn'), isolation: args.isolation });
  try {
    requireFileDatabase(args.db, 'run', "--db is the SQLite data file the program queries, not a memory: give that file (to run the agent with a team memory use 'agent-memory task --db postgres://…')", 'a SQLite data file');
    const result = await runner.run({ language: args.language, databasePath: args.db, code, limits: { timeoutMs: args.timeoutMs, memoryMb: args.memoryMb } });
    process.stdout.write(args.json ? JSON.stringify(result) + '\n' : describe(result));
    return result.outcome === 'success' ? 0 : 1;
  } finally {
    runner.dispose();
  }
}

function describe(r: RunResult): string {
  const lines = [`outcome: ${r.outcome}${r.killedBy ? ` (killed: ${r.killedBy})` : ''} in ${r.durationMs} ms`, `answer: ${JSON.stringify(r.answer)}`];
  // What the code printed is hostile text: shown with its control characters escaped.
  if (r.error) lines.push(`error: ${r.error.kind}: ${printable(r.error.message)}${r.error.line ? ` (line ${r.error.line})` : ''}`);
  if (r.stdout) lines.push(`stdout${r.truncated ? ' (truncated)' : ''}:`, printable(r.stdout.replace(/\n$/, '')));
  if (r.stderr) lines.push('stderr:', printable(r.stderr.replace(/\n$/, '')));
  return lines.join('\n') + '\n';
}
