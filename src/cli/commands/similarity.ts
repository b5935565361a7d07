/**
 * `agent-memory similarity --lang LANGUAGE [--compat pycode_similar] REF_FILE CAND_FILE`
 * prints the code similarity of CAND_FILE relative to REF_FILE (4 decimals), nothing else.
 */
import { z } from 'zod';
import { CodeLanguageSchema, codeSimilarity } from '../../core/similarity/code';
import { HELP_SHOWN, parseCommandArgs, parseValues, usageError } from '../args';
import { readInputFile } from '../input-file';

export const summary = 'code similarity of CAND_FILE relative to REF_FILE (--lang LANGUAGE [--compat pycode_similar])';

const USAGE = `Usage: agent-memory similarity --lang LANGUAGE [--compat pycode_similar] REF_FILE CAND_FILE

Prints the code similarity of CAND_FILE relative to REF_FILE, in [0, 1] (4 decimals).
  --lang LANGUAGE   python and javascript have a structural measure; any other language
                    (go, rust, typescript, …) gets the token-level line diff
  --compat pycode_similar   the reference tool's exact scheme (python)`;

const ArgsSchema = z.object({
  lang: CodeLanguageSchema,
  compat: z.literal('pycode_similar').optional(),
  files: z.tuple([z.string().min(1), z.string().min(1)], { message: 'give REF_FILE and CAND_FILE' }),
});

function readSource(file: string, role: string): string {
  return readInputFile(file, `the ${role.toLowerCase()} file`, role === 'Reference' ? 'REF_FILE' : 'CAND_FILE').toString('utf8');
}

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs(argv, { usage: USAGE, options: { lang: { type: 'string' }, compat: { type: 'string' } }, allowPositionals: true });
  if (parsed === HELP_SHOWN) return 0;
  if (parsed.positionals.length !== 2) throw usageError(`Give REF_FILE and CAND_FILE (got ${parsed.positionals.length} file argument(s)).`, USAGE);
  const args = parseValues(ArgsSchema, { ...parsed.values, files: parsed.positionals }, USAGE);
  const reference = readSource(args.files[0], 'Reference');
  const candidate = readSource(args.files[1], 'Candidate');
  const score = codeSimilarity(reference, candidate, args.lang, { mode: args.compat ?? 'structural' });
  process.stdout.write(score.toFixed(4) + '\n');
  return 0;
}
