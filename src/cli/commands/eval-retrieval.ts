/**
 * `agent-memory eval-retrieval --memory M.jsonl --queries Q.jsonl [--k 4]
 *   [--mode hybrid|vector|keyword|tfidf-baseline] [--backend store|in-process] [--json]
 *   [--explain] [--mask] [--unfitted] [--no-collapse] [--no-agreement] [--rerank [--rerank-parts slots,links,columns]
 *   [--values-from DB.sqlite]]`
 *
 * Loads M as active records into a temporary store (SQLite + sqlite-vec +
 * MiniSearch, the product's retrieval; `--backend in-process` swaps in the
 * brute-force reference), retrieves top-k for every question of Q and prints
 * `{n, hit_at_1, precision_at_k, distinct_at_k, answered_rate}` (a hit = a retrieved record with
 * the query's template; distinct_at_k = mean number of distinct normalised
 * programs in the top k). `--explain` prints, per query, the top hit and the
 * words the value masking masks in both questions. Ablations of the store
 * backend: `--mask` indexes and queries the value-masked questions,
 * `--unfitted` uses the unfitted hashing embedder (as the bench stream does),
 * `--no-collapse` keeps identical programs apart, `--no-agreement` leaves out the hybrid search's
 * agreement of programs (call-agreement.ts; not in team spaces). `--rerank` adds the re-ranking
 * stage over the collapsed top 10 (rerank.ts; off by default here, as in the CLI and
 * the benches; the editor's setting agentMemory.retrieval.rerank is on by default),
 * `--rerank-parts` picks its parts (`slots`, `links`, `columns`; default all)
 * for the ablation table, and `--values-from` gives the value columns the
 * values of the database the questions are about; the re-ranking applies only with them (without, `--rerank`
 * says so on stderr and the figures are the fused ones). `--backend team` loads the memory into a space of a
 * team memory on a throwaway PostgreSQL 15 + pgvector cluster it starts and removes (the space's shared,
 * unfitted embedder; hybrid or keyword mode; no `--mask`) and searches it as Run Task and `memory_search`
 * do on a team space (collapsed; `--rerank` re-ranked, team-shapes.ts). `--min-score X` (default
 * DEFAULT_MIN_RELEVANCE, as memory_search) keeps only records of relevance ≥ X (relevance.ts): a query left
 * with none is a miss, and `answered_rate` is the share that kept one (`--min-score 0`: every hit, the
 * figures before the floor). Query lines with `answerable: false` (CoNaLa's files) are scored apart.
 */
import { z } from 'zod';
import { RERANK_NEEDS_VALUES, RERANK_PART_NAMES, rerankApplies } from '../../core/memory/search/rerank';
import { DEFAULT_MIN_RELEVANCE } from '../../core/memory/search/relevance';
import { readDomainValues } from '../../core/data/domain-values-reader';
import { AgentMemoryError } from '../../core/errors';
import { HELP_SHOWN, parseCommandArgs, parseValues } from '../args';
import { DEFAULT_EVAL_K, type ExplainedHit, RETRIEVAL_BACKENDS, RETRIEVAL_MODES, type RetrievalBackend, createRetrievalBackend, evaluateRetrieval, loadEvalFile } from '../../core/bench/eval-retrieval';
import { assertTeamMode, TeamBackend } from '../../core/bench/team-retrieval-backend';
import { setupTeamMemory } from '../../core/memory/postgres/team-setup';
import { TeamMemoryStore } from '../../core/memory/postgres/team-store';
import { TEAM_DEFAULT_DIMENSION } from '../../core/memory/postgres/team-embedder';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../team/throwaway-postgres';

export const summary = 'measure retrieval quality (hit@1, precision@k) of a memory file against a query file';

const USAGE = `Usage: agent-memory eval-retrieval --memory M.jsonl --queries Q.jsonl [--k ${DEFAULT_EVAL_K}] [--mode ${RETRIEVAL_MODES.join('|')}] [--backend ${RETRIEVAL_BACKENDS.join('|')}] [--min-score X] [--json] [--explain] [--mask] [--unfitted] [--no-collapse] [--no-agreement] [--rerank [--rerank-parts ${RERANK_PART_NAMES.join(',')}]] [--values-from DB.sqlite]\n`;


const ArgsSchema = z.object({
  memory: z.string({ message: '--memory FILE is required' }).min(1),
  queries: z.string({ message: '--queries FILE is required' }).min(1),
  k: z.coerce.number().int('--k must be an integer').min(1, '--k must be ≥ 1').default(DEFAULT_EVAL_K),
  mode: z.enum(RETRIEVAL_MODES, { message: `--mode must be one of ${RETRIEVAL_MODES.join(', ')}` }).default('hybrid'),
  backend: z.enum(RETRIEVAL_BACKENDS, { message: `--backend must be one of ${RETRIEVAL_BACKENDS.join(', ')}` }).default('store'),
  json: z.boolean().default(false),
  explain: z.boolean().default(false),
  mask: z.boolean().default(false),
  unfitted: z.boolean().default(false),
  'no-collapse': z.boolean().default(false),
  'no-agreement': z.boolean().default(false),
  rerank: z.boolean().default(false),
  'rerank-parts': z
    .string()
    .default(RERANK_PART_NAMES.join(','))
    .transform((v) => v.split(',').map((p) => p.trim()).filter((p) => p !== ''))
    .pipe(z.array(z.enum(RERANK_PART_NAMES, { message: `--rerank-parts takes a comma-separated list of ${RERANK_PART_NAMES.join(', ')}` }))),
  /** The SQLite database the questions are about: its values by column feed the re-ranking's value columns. */
  'values-from': z.string().min(1, '--values-from takes the path of a SQLite database').optional(),
  'min-score': z.coerce.number({ message: '--min-score takes a number from 0 to 1' }).min(0, '--min-score must be from 0 to 1').max(1, '--min-score must be from 0 to 1').default(DEFAULT_MIN_RELEVANCE),
});

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs(argv, {
    usage: USAGE,
    options: { memory: { type: 'string' }, queries: { type: 'string' }, k: { type: 'string' }, mode: { type: 'string' }, backend: { type: 'string' },
      json: { type: 'boolean' },
      explain: { type: 'boolean' },
      mask: { type: 'boolean' },
      unfitted: { type: 'boolean' },
      'no-collapse': { type: 'boolean' },
      'no-agreement': { type: 'boolean' },
      rerank: { type: 'boolean' },
      'rerank-parts': { type: 'string' },
      'values-from': { type: 'string' },
      'min-score': { type: 'string' },
    },
  });
  if (parsed === HELP_SHOWN) return 0;
  const args = parseValues(ArgsSchema, parsed.values, USAGE);
  const memory = loadEvalFile(args.memory);
  const queries = loadEvalFile(args.queries);
  if (memory.length === 0) throw new AgentMemoryError('INVALID_INPUT', `${args.memory} has no records; the memory file needs at least one line.`);
  if (args.rerank && args['no-collapse']) throw new AgentMemoryError('INVALID_INPUT', '--rerank re-orders the collapsed top: drop --no-collapse or --rerank.');
  const parts = Object.fromEntries(RERANK_PART_NAMES.map((name) => [name, args['rerank-parts'].includes(name)])) as Record<(typeof RERANK_PART_NAMES)[number], boolean>;
  const rerank = args.rerank && Object.values(parts).some(Boolean) ? parts : false;
  if (args['values-from'] && !rerank && args['min-score'] === 0) throw new AgentMemoryError('INVALID_INPUT', '--values-from feeds the re-ranking\'s value columns and the relevance floor: add --rerank (with the columns part) or a --min-score above 0.');
  const domainValues = args['values-from'] ? readDomainValues(args['values-from']) : undefined;
  // Re-ranking applies only with the data's values (rerankApplies): said on stderr, so --json's stdout stays one line.
  if (rerank && args.mode === 'hybrid' && !args['no-collapse'] && !rerankApplies(domainValues)) process.stderr.write(`eval-retrieval: ${RERANK_NEEDS_VALUES}.\n`);
  const collapseOption = args['no-collapse'] ? false : undefined;
  let team: { cluster: ThrowawayPostgres; store: TeamMemoryStore } | undefined;
  let backend: RetrievalBackend & { readonly embedderId: string };
  if (args.backend === 'team') {
    const fileStoreOnly = [...(args.mask ? ['--mask'] : []), ...(args['no-agreement'] ? ['--no-agreement'] : [])];
    if (fileStoreOnly.length > 0) throw new AgentMemoryError('INVALID_INPUT', `${fileStoreOnly.join(' and ')} ${fileStoreOnly.length > 1 ? 'are ablations' : 'is an ablation'} of the file store: drop ${fileStoreOnly.length > 1 ? 'them' : 'it'} with --backend team.`);
    assertTeamMode(args.mode);
    const cluster = await startThrowawayPostgres();
    try {
      // With the HNSW index of the space's shared embedder's dimension, as `team-setup --dimension` builds it.
      await setupTeamMemory(cluster.ownerUrl, { dimensions: [TEAM_DEFAULT_DIMENSION] });
      team = { cluster, store: await TeamMemoryStore.connect({ url: cluster.appUrl, space: 'eval-retrieval', user: 'eval', client: 'eval-retrieval' }) };
    } catch (error) {
      cluster.stop();
      throw error;
    }
    backend = new TeamBackend(team.store, { collapse: collapseOption, rerank, domainValues });
  } else {
    backend = createRetrievalBackend(args.backend, { mask: args.mask, fit: !args.unfitted, collapse: collapseOption, rerank, domainValues, callAgreement: !args['no-agreement'] });
  }
  const explain = args.explain
    ? (e: ExplainedHit): void => {
        const list = (words: string[]): string => (words.length ? words.map((w) => `'${w}'`).join(', ') : 'none');
        process.stdout.write(
          args.json
            ? JSON.stringify({ explain: e }) + '\n'
            : `${e.sameTemplate ? 'same template ' : 'OTHER template'}  ${e.query}\n    masked in query: ${list(e.queryMasked)}\n    top hit: ${e.hitQuestion}\n    masked in hit:   ${list(e.hitMasked)}\n`,
        );
      }
    : undefined;
  let result: Awaited<ReturnType<typeof evaluateRetrieval>>;
  try {
    result = await evaluateRetrieval({ memory, queries, k: args.k, mode: args.mode, backend, explain, minScore: args['min-score'], valueTerms: domainValues ? (q) => domainValues.valueTerms(q) : undefined });
  } finally {
    await team?.store.close();
    team?.cluster.stop();
  }
  // Collapse (and so the re-ranking) is on by default in hybrid mode only.
  const collapse = !args['no-collapse'] && args.mode === 'hybrid';
  // rerank_applied: whether the re-ranking ran (asked for, collapsed, and with the data's values: rerankApplies).
  const ablations = { mask: args.mask, agreement: args.backend === 'store' && args.mode === 'hybrid' && !args['no-agreement'], fitted: args.backend !== 'team' && !args.unfitted, collapse, rerank: collapse ? rerank : false, rerank_applied: collapse && rerank !== false && rerankApplies(domainValues), domain_values: domainValues ? domainValues.size : 0 };
  if (args.json) {
    process.stdout.write(JSON.stringify({ ...result, backend: args.backend, embedder: backend.embedderId, ...ablations }) + '\n');
  } else {
    process.stdout.write(
      `mode ${result.mode}  n ${result.n}  k ${result.k}  hit@1 ${result.hit_at_1.toFixed(4)}  precision@${result.k} ${result.precision_at_k.toFixed(4)}  hit@${result.k} ${result.hit_at_k.toFixed(4)}  distinct@${result.k} ${result.distinct_at_k.toFixed(2)}  answered ${(result.answered_rate ?? 1).toFixed(4)} (min score ${args['min-score']})${result.unanswerable_n ? `  unanswerable ${result.unanswerable_n} (answered ${(result.unanswerable_answered_rate ?? 0).toFixed(4)})` : ''}  (backend ${args.backend}, embedder ${backend.embedderId})\n`,
    );
  }
  return 0;
}
