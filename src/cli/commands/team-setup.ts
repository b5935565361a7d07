import { z } from 'zod';
import { describeConnection, PASSWORD_ENV } from '../../core/memory/postgres/connection';
import { DEFAULT_APP_ROLE } from '../../core/memory/postgres/migrations';
import { setupTeamMemory } from '../../core/memory/postgres/team-setup';
import { HELP_SHOWN, parseCommandArgs, parseValues } from '../args';

export const summary = 'create or upgrade a team memory schema on PostgreSQL (as the owner role): team-setup --url URL';
const USAGE = `Usage: agent-memory team-setup --url postgres://OWNER@HOST/DB?sslmode=verify-full [--app-role ${DEFAULT_APP_ROLE}] [--dimension N]

Run by an administrator as the schema owner role (password in ${PASSWORD_ENV}): applies the
team memory's migrations, grants the application role row access only (it cannot drop or alter
tables), and with --dimension creates the HNSW index for vectors of N dimensions.
See docs/team-memory.md for the roles to create first.`;

const ArgsSchema = z.object({
  url: z.string({ message: 'give the owner connection with --url postgres://…' }).min(1),
  'app-role': z.string().optional(),
  dimension: z.coerce.number().int().min(1).max(2000).optional(),
});

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs(argv, { usage: USAGE, options: { url: { type: 'string' }, 'app-role': { type: 'string' }, dimension: { type: 'string' } } });
  if (parsed === HELP_SHOWN) return 0;
  const args = parseValues(ArgsSchema, parsed.values, USAGE);
  const r = await setupTeamMemory(args.url, { appRole: args['app-role'], dimensions: args.dimension ? [args.dimension] : [] });
  process.stderr.write(`team memory schema at ${describeConnection(args.url)}: version ${r.from} → ${r.to}${r.denseIndexes.length ? `, HNSW index for ${r.denseIndexes.join(', ')} dimensions` : ''}\n`);
  return 0;
}
