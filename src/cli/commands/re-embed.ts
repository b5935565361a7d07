import * as path from 'node:path';
import { z } from 'zod';
import { refitAndReembed } from '../../core/app/embedding';
import { reembedWithEndpoint } from '../../core/app/endpoint-embedding';
import { stderrLogger } from '../../core/logger';
import { MemoryStore } from '../../core/memory/sqlite/store';
import { EMBEDDING_API_KEY_ENV, EndpointEmbedder } from '../../core/similarity/endpoint-embedder';
import { HELP_SHOWN, parseCommandArgs, parseValues } from '../args';
import { isPostgresUrl, PASSWORD_ENV } from '../../core/memory/postgres/connection';
import { reembedTeamSpace } from '../../core/memory/postgres/team-reembed';
import { usageError } from '../args';
import { connectTeam, refuseSpaceOnFile } from '../team/team-target';

export const summary = 're-embed every record: the built-in embedder (re-fitted), or an OpenAI-compatible embedding endpoint (--model, --base-url)';

const USAGE = `Usage: agent-memory re-embed --db FILE [--model NAME --base-url URL] [--batch N]
       agent-memory re-embed --db postgres://… [--space NAME] [--dimension N]

Without --model: re-fits the built-in embedder on all records and re-embeds
every one of them (one transaction, offline).

With --model and --base-url: re-embeds every record through that
OpenAI-compatible /embeddings endpoint (OpenAI, Azure, Ollama, llama.cpp);
the API key comes from the environment variable ${EMBEDDING_API_KEY_ENV}
(never from the command line). The vector dimension is the model's. The new
vectors are built apart and swapped in one transaction: until then, and after
Ctrl-C or a failure, the memory keeps its previous vectors; a run after a
cancel sends only the texts not embedded yet. Progress goes to stderr.

On a team memory (password from ${PASSWORD_ENV}): every record of the space gets
the vector of the space's shared built-in hashing embedder (its current dimension,
or N; default 384), and the space names it, in one transaction: every client then
searches both sides. A space migrated from a file (a fitted or endpoint embedder,
which clients cannot share) becomes searchable this way.

Prints the number of records re-embedded.`;

const ArgsSchema = z
  .object({
    db: z.string({ message: '--db FILE is required' }).min(1, '--db FILE is required'),
    space: z.string().optional(),
    dimension: z.coerce.number().int().min(8).max(4096).optional(),
    model: z.string().trim().min(1).optional(),
    'base-url': z.url({ protocol: /^https?$/, message: '--base-url must be an http(s) URL such as http://localhost:11434/v1' }).optional(),
    batch: z.coerce.number().int().min(1).max(2048).optional(),
  })
  .refine((a) => (a.model === undefined) === (a['base-url'] === undefined), { message: '--model and --base-url go together' });

/** `agent-memory re-embed --db FILE [--model NAME --base-url URL]`: prints the number of records re-embedded. */
export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs(argv, { usage: USAGE, options: { db: { type: 'string' }, space: { type: 'string' }, dimension: { type: 'string' }, model: { type: 'string' }, 'base-url': { type: 'string' }, batch: { type: 'string' } } });
  if (parsed === HELP_SHOWN) return 0;
  const args = parseValues(ArgsSchema, parsed.values, USAGE);
  const logger = stderrLogger('warn');
  if (isPostgresUrl(args.db)) {
    if (args.model || args.batch) throw usageError('--model, --base-url and --batch apply to a SQLite memory; a team space re-embeds with its shared built-in embedder (--dimension N).', USAGE);
    const team = await connectTeam(args.db, args.space, { logger });
    try {
      const result = await reembedTeamSpace(team, { dimension: args.dimension, onProgress: (done, total) => process.stderr.write(`\rembedding ${done}/${total}`) });
      process.stdout.write(`${result.count}\n`);
      process.stderr.write(`\nre-embedded ${result.count} record(s) of space '${team.space}' with ${result.embedderId}${result.previous && result.previous !== result.embedderId ? ` (was ${result.previous})` : ''}\n`);
      return 0;
    } finally {
      await team.close();
    }
  }
  refuseSpaceOnFile(args.space, USAGE);
  if (args.dimension !== undefined) throw usageError('--dimension applies to a team memory (--db postgres://…) only.', USAGE);
  const store = MemoryStore.open(path.resolve(args.db), { logger, channel: 'cli' });
  try {
    if (!args.model || !args['base-url']) {
      const { embedder, count } = refitAndReembed(store, 'user');
      process.stdout.write(`${count}\n`);
      process.stderr.write(`re-embedded ${count} record(s) with ${embedder.id}\n`);
      return 0;
    }
    const embedder = new EndpointEmbedder({
      baseURL: args['base-url'],
      model: args.model,
      apiKey: process.env[EMBEDDING_API_KEY_ENV] || undefined,
      ...(args.batch ? { batchSize: args.batch } : {}),
      cache: store.embeddingCache,
      logger,
    });
    const controller = new AbortController();
    const onSigint = () => controller.abort();
    process.once('SIGINT', onSigint);
    const started = performance.now();
    try {
      const result = await reembedWithEndpoint(store, embedder, {
        signal: controller.signal,
        logger,
        onProgress: ({ done, total }) => process.stderr.write(`\rembedding ${done}/${total}`),
      });
      process.stdout.write(`${result.count}\n`);
      const seconds = ((performance.now() - started) / 1000).toFixed(2);
      process.stderr.write(`\nre-embedded ${result.count} record(s) with ${result.embedderId} (${result.dimension} dimensions) in ${seconds} s: ${result.batches} request(s), ${result.cacheHits} from the cache\n`);
      return 0;
    } finally {
      process.off('SIGINT', onSigint);
    }
  } finally {
    store.close();
  }
}
