import { z } from 'zod';
import { describeConnection, PASSWORD_ENV } from '../../core/memory/postgres/connection';
import { grantSpaceRole, SPACE_LEVELS } from '../../core/memory/postgres/team-members';
import { HELP_SHOWN, parseCommandArgs, parseValues } from '../args';

export const summary = "give a role a level in a team space (agent or reviewer), or take it back: team-grant --url OWNER_URL --role ROLE --space NAME --as agent|reviewer [--revoke]";
const USAGE = `Usage: agent-memory team-grant --url postgres://OWNER@HOST/DB?sslmode=verify-full --role ROLE --space NAME --as agent|reviewer [--revoke] [--json]

Run by the schema owner (password in ${PASSWORD_ENV}). The role must exist (CREATE ROLE … LOGIN).
  agent     searches, records (pending under the strict policy, whatever it sends), gives feedback, reads the space
  reviewer  also approves, rejects, restores, deletes, purges, sets the policy, restores with --replace, revalidates
A role may hold different levels in different spaces; --revoke takes back the level named. Idempotent.
The server enforces it (row-level security and the owner's functions): see docs/team-threat-model.md.`;

const ArgsSchema = z.object({
  url: z.string({ message: 'give the owner connection with --url postgres://…' }).min(1),
  role: z.string({ message: 'give the role with --role NAME' }).min(1),
  space: z.string({ message: 'give the space with --space NAME' }).min(1),
  as: z.enum(SPACE_LEVELS, { message: '--as is agent or reviewer' }),
  revoke: z.boolean().default(false),
  json: z.boolean().default(false),
});

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs(argv, {
    usage: USAGE,
    options: { url: { type: 'string' }, role: { type: 'string' }, space: { type: 'string' }, as: { type: 'string' }, revoke: { type: 'boolean' }, json: { type: 'boolean' } },
  });
  if (parsed === HELP_SHOWN) return 0;
  const args = parseValues(ArgsSchema, parsed.values, USAGE);
  const r = await grantSpaceRole(args.url, { role: args.role, space: args.space, level: args.as, revoke: args.revoke });
  if (args.json) process.stdout.write(`${JSON.stringify(r)}\n`);
  else process.stdout.write(`${r.role} in space '${r.space}' of ${describeConnection(args.url)}: ${r.level ?? 'no level'}${r.changed ? '' : ' (unchanged)'}\n`);
  return 0;
}
