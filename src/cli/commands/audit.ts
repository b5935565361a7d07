import * as fs from 'node:fs';
import { z } from 'zod';
import { AgentMemoryError } from '../../core/errors';
import { stderrLogger } from '../../core/logger';
import type { AuditVerification } from '../../core/memory/audit-chain';
import { isPostgresUrl, PASSWORD_ENV } from '../../core/memory/postgres/connection';
import { verifyTeamAudit } from '../../core/memory/postgres/team-audit';
import { verifySqliteAudit } from '../../core/memory/sqlite/audit-verify';
import { openDatabase } from '../../core/memory/sqlite/database';
import { HELP_SHOWN, parseCommandArgs, parseValues, usageError } from '../args';
import { connectTeam, refuseSpaceOnFile } from '../team/team-target';

export const summary = "verify a memory's audit hash chain: audit --db FILE|postgres://… [--space NAME] --verify [--json]";
const USAGE = `Usage: agent-memory audit --db FILE|postgres://… [--space NAME] --verify [--json]

Recomputes the audit's hash chain (each entry carries the hash of the previous entry of its space)
and prints {"ok": bool, "entries": N, "first_bad": id|null}: the first entry edited, or following
one deleted, behind the application's back. Exit code 1 when the chain does not hold. A team
memory's space is read as the connecting role (password from ${PASSWORD_ENV}).`;

const ArgsSchema = z.object({
  db: z.string({ message: 'give the memory with --db FILE or postgres://…' }).min(1),
  space: z.string().optional(),
  verify: z.boolean().default(false),
  json: z.boolean().default(false),
});

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs(argv, { usage: USAGE, options: { db: { type: 'string' }, space: { type: 'string' }, verify: { type: 'boolean' }, json: { type: 'boolean' } } });
  if (parsed === HELP_SHOWN) return 0;
  const args = parseValues(ArgsSchema, parsed.values, USAGE);
  if (!args.verify) throw usageError('audit checks the chain: give --verify.', USAGE);
  let result: AuditVerification;
  if (isPostgresUrl(args.db)) {
    const team = await connectTeam(args.db, args.space, { logger: stderrLogger('warn') });
    try {
      result = await verifyTeamAudit(team);
    } finally {
      await team.close();
    }
  } else {
    refuseSpaceOnFile(args.space, USAGE);
    if (!fs.existsSync(args.db)) throw new AgentMemoryError('NOT_FOUND', `No memory database at ${args.db}.`);
    // Opened for writing: a memory of an older schema gets its chain (migration) before it is checked.
    const db = openDatabase(args.db, { logger: stderrLogger('warn') });
    try {
      result = verifySqliteAudit(db);
    } finally {
      db.close();
    }
  }
  if (args.json) process.stdout.write(`${JSON.stringify(result)}\n`);
  else process.stdout.write(result.ok ? `audit chain holds: ${result.entries} entries\n` : `audit chain broken at entry ${result.first_bad} (${result.entries} entries): an entry was edited or deleted outside the application\n`);
  return result.ok ? 0 : 1;
}
