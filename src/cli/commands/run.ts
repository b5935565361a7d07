import * as fs from 'node:fs';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { createRunner, DEFAULT_RUN_LIMITS, RUNNER_ISOLATIONS, type RunResult } from '../../core/agent/runners';
import { AgentMemoryError } from '../../core/errors';
import { stderrLogger } from '../../core/logger';

const USAGE = 'run --language python|javascript --db FILE --code-file FILE [--timeout-ms N] [--memory-mb N] [--isolation sandbox|none] [--json]';
export const summary = `run one program in the agent's sandbox and print its outcome, answer, stdout and error: ${USAGE}`;

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
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: argv,
      options: {
        language: { type: 'string' },
        db: { type: 'string' },
        'code-file': { type: 'string' },
        'timeout-ms': { type: 'string' },
        'memory-mb': { type: 'string' },
        isolation: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new AgentMemoryError('INVALID_INPUT', `${(error as Error).message}. Usage: agent-memory ${USAGE}`);
  }
  if (values.help === true) {
    process.stdout.write(`Usage: agent-memory ${USAGE}\n`);
    return 0;
  }
  const parsed = ArgsSchema.safeParse({
    language: values.language,
    db: values.db ?? '',
    codeFile: values['code-file'] ?? '',
    timeoutMs: values['timeout-ms'],
    memoryMb: values['memory-mb'],
    isolation: values.isolation,
    json: values.json,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AgentMemoryError('INVALID_INPUT', `${issue.path.length ? `--${String(issue.path[0])}: ` : ''}${issue.message}. Usage: agent-memory ${USAGE}`);
  }
  const args = parsed.data;
  if (!fs.existsSync(args.codeFile)) throw new AgentMemoryError('NOT_FOUND', `No program at ${args.codeFile}; give an existing file with --code-file.`);
  const code = fs.readFileSync(args.codeFile, 'utf8');
  const runner = createRunner(args.language, { logger: stderrLogger('warn'), isolation: args.isolation });
  try {
    const result = await runner.run({ language: args.language, databasePath: args.db, code, limits: { timeoutMs: args.timeoutMs, memoryMb: args.memoryMb } });
    process.stdout.write(args.json ? JSON.stringify(result) + '\n' : describe(result));
    return result.outcome === 'success' ? 0 : 1;
  } finally {
    runner.dispose();
  }
}

function describe(r: RunResult): string {
  const lines = [`outcome: ${r.outcome}${r.killedBy ? ` (killed: ${r.killedBy})` : ''} in ${r.durationMs} ms`, `answer: ${JSON.stringify(r.answer)}`];
  if (r.error) lines.push(`error: ${r.error.kind}: ${r.error.message}${r.error.line ? ` (line ${r.error.line})` : ''}`);
  if (r.stdout) lines.push(`stdout${r.truncated ? ' (truncated)' : ''}:`, r.stdout.replace(/\n$/, ''));
  if (r.stderr) lines.push('stderr:', r.stderr.replace(/\n$/, ''));
  return lines.join('\n') + '\n';
}
