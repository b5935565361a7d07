/**
 * `agent-memory similarity --lang python|javascript [--compat pycode_similar] REF_FILE CAND_FILE`
 * prints the code similarity of CAND_FILE relative to REF_FILE (4 decimals), nothing else.
 */
import * as fs from 'node:fs';
import { z } from 'zod';
import { AgentMemoryError } from '../../core/errors';
import { CodeLanguageSchema, codeSimilarity } from '../../core/similarity/code';

export const summary = 'code similarity of CAND_FILE relative to REF_FILE (--lang python|javascript [--compat pycode_similar])';

const USAGE = 'usage: agent-memory similarity --lang python|javascript [--compat pycode_similar] REF_FILE CAND_FILE';

const ArgsSchema = z.object({
  lang: CodeLanguageSchema,
  compat: z.literal('pycode_similar').optional(),
  files: z.tuple([z.string().min(1), z.string().min(1)]),
});

function parseArgs(argv: string[]): z.infer<typeof ArgsSchema> {
  const raw: { lang?: string; compat?: string; files: string[] } = { files: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.startsWith('--') ? arg.split(/=(.*)/s, 2) : [arg, undefined];
    if (flag === '--lang' || flag === '--compat') {
      const value = inline ?? argv[++i];
      if (value === undefined) throw new AgentMemoryError('INVALID_INPUT', `${flag} needs a value. ${USAGE}`);
      raw[flag === '--lang' ? 'lang' : 'compat'] = value;
    } else if (arg.startsWith('--')) {
      throw new AgentMemoryError('INVALID_INPUT', `Unknown option '${arg}'. ${USAGE}`);
    } else raw.files.push(arg);
  }
  const parsed = ArgsSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`).join('; ');
    throw new AgentMemoryError('INVALID_INPUT', `Invalid arguments (${problems}). ${USAGE}`);
  }
  return parsed.data;
}

function readSource(file: string, role: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new AgentMemoryError('NOT_FOUND', `${role} file not found: ${file}. Check the path.`);
    throw new AgentMemoryError('INVALID_INPUT', `Cannot read ${role.toLowerCase()} file ${file} (${code ?? 'error'}).`, undefined, { cause: error });
  }
}

export async function run(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  const reference = readSource(args.files[0], 'Reference');
  const candidate = readSource(args.files[1], 'Candidate');
  const score = codeSimilarity(reference, candidate, args.lang, { mode: args.compat ?? 'structural' });
  process.stdout.write(score.toFixed(4) + '\n');
  return 0;
}
