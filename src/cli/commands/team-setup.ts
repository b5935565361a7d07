import { z } from 'zod';
import { describeConnection, PASSWORD_ENV } from '../../core/memory/postgres/connection';
import { DEFAULT_APP_ROLE } from '../../core/memory/postgres/migrations';
import { setupTeamMemory } from '../../core/memory/postgres/team-setup';
import { HELP_SHOWN, parseCommandArgs, parseValues } from '../args';

export const summary = 'create or upgrade a team memory schema on PostgreSQL (as the owner role): team-setup --url URL';
const USAGE = `Usage: agent-memory team-setup --url postgres://OWNER@HOST/DB?sslmode=verify-full [--app-role ${DEFAULT_APP_ROLE}] [--dimension N [--space NAME]]

Run by an administrator as the schema owner role (password in ${PASSWORD_ENV}): applies the
team memory's migrations, grants the application role row access only (it cannot drop or alter
tables), with --dimension creates the HNSW index for vectors of N dimensions, and with --space
records the built-in hashing embedder of N dimensions as that space's shared embedder (every
client embeds questions and records with it). Then refreshes the planner statistics.
See docs/team-memory.md for the roles to create first.`;

const ArgsSchema = z.object({
  url: z.string({ message: 'give the owner connection with --url postgres://…' }).min(1),
  'app-role': z.string().optional(),
  dimension: z.coerce.number().int().min(1).max(2000).optional(),
  space: z.string().optional(),
}).refine((a) => a.space === undefined || a.dimension !== undefined, { message: '--space needs --dimension N (the shared embedder\'s dimension, e.g. 384)', path: ['space'] });

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs(argv, { usage: USAGE, options: { url: { type: 'string' }, 'app-role': { type: 'string' }, dimension: { type: 'string' }, space: { type: 'string' } } });
  if (parsed === HELP_SHOWN) return 0;
  const args = parseValues(ArgsSchema, parsed.values, USAGE);
  const r = await setupTeamMemory(args.url, { appRole: args['app-role'], dimensions: args.dimension ? [args.dimension] : [], space: args.space });
  const parts = [
    `version ${r.from} → ${r.to}`,
    ...(r.denseIndexes.length ? [`HNSW index for ${r.denseIndexes.join(', ')} dimensions`] : []),
    ...(r.sharedEmbedder ? [`space '${args.space}' embeds with ${r.sharedEmbedder}`] : []),
    r.statistics.refreshed ? 'planner statistics refreshed' : `planner statistics not refreshed (${r.statistics.reason})`,
  ];
  process.stderr.write(`team memory schema at ${describeConnection(args.url)}: ${parts.join(', ')}\n`);
  return 0;
}
