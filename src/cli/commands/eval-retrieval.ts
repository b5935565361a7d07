/**
 * `agent-memory eval-retrieval --memory M.jsonl --queries Q.jsonl [--k 4]
 *   [--mode hybrid|vector|keyword|tfidf-baseline] [--backend store|in-process] [--json]`
 *
 * Loads M as active records into a temporary store (SQLite + sqlite-vec +
 * MiniSearch, the product's retrieval; `--backend in-process` swaps in the
 * brute-force reference), retrieves top-k for every question of Q and prints
 * `{n, hit_at_1, precision_at_k}` (a hit = a retrieved record with the query's
 * template).
 */
import { z } from 'zod';
import { AgentMemoryError } from '../../core/errors';
import { HELP_SHOWN, parseCommandArgs, parseValues } from '../args';
import { DEFAULT_EVAL_K, RETRIEVAL_BACKENDS, RETRIEVAL_MODES, createRetrievalBackend, evaluateRetrieval, loadEvalFile } from '../../core/bench/eval-retrieval';

export const summary = 'measure retrieval quality (hit@1, precision@k) of a memory file against a query file';

const USAGE = `Usage: agent-memory eval-retrieval --memory M.jsonl --queries Q.jsonl [--k ${DEFAULT_EVAL_K}] [--mode ${RETRIEVAL_MODES.join('|')}] [--backend ${RETRIEVAL_BACKENDS.join('|')}] [--json]\n`;

const ArgsSchema = z.object({
  memory: z.string({ message: '--memory FILE is required' }).min(1),
  queries: z.string({ message: '--queries FILE is required' }).min(1),
  k: z.coerce.number().int('--k must be an integer').min(1, '--k must be ≥ 1').default(DEFAULT_EVAL_K),
  mode: z.enum(RETRIEVAL_MODES, { message: `--mode must be one of ${RETRIEVAL_MODES.join(', ')}` }).default('hybrid'),
  backend: z.enum(RETRIEVAL_BACKENDS, { message: `--backend must be one of ${RETRIEVAL_BACKENDS.join(', ')}` }).default('store'),
  json: z.boolean().default(false),
});

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs(argv, {
    usage: USAGE,
    options: { memory: { type: 'string' }, queries: { type: 'string' }, k: { type: 'string' }, mode: { type: 'string' }, backend: { type: 'string' }, json: { type: 'boolean' } },
  });
  if (parsed === HELP_SHOWN) return 0;
  const args = parseValues(ArgsSchema, parsed.values, USAGE);
  const memory = loadEvalFile(args.memory);
  const queries = loadEvalFile(args.queries);
  if (memory.length === 0) throw new AgentMemoryError('INVALID_INPUT', `${args.memory} has no records; the memory file needs at least one line.`);
  const backend = createRetrievalBackend(args.backend);
  const result = await evaluateRetrieval({ memory, queries, k: args.k, mode: args.mode, backend });
  if (args.json) {
    process.stdout.write(JSON.stringify({ ...result, backend: args.backend, embedder: backend.embedderId }) + '\n');
  } else {
    process.stdout.write(
      `mode ${result.mode}  n ${result.n}  k ${result.k}  hit@1 ${result.hit_at_1.toFixed(4)}  precision@${result.k} ${result.precision_at_k.toFixed(4)}  (backend ${args.backend}, embedder ${backend.embedderId})\n`,
    );
  }
  return 0;
}
