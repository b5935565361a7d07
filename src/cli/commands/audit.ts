import * as fs from 'node:fs';
import { z } from 'zod';
import { AgentMemoryError } from '../../core/errors';
import { stderrLogger } from '../../core/logger';
import type { AuditVerification } from '../../core/memory/audit-chain';
import { isPostgresUrl, PASSWORD_ENV } from '../../core/memory/postgres/connection';
import { verifyTeamAudit } from '../../core/memory/postgres/team-audit';
import { verifySqliteAudit } from '../../core/memory/sqlite/audit-verify';
import { openDatabase } from '../../core/memory/sqlite/database';
import { MemoryStore } from '../../core/memory/sqlite/store';
import { auditChannel } from '../../core/memory/audit-channel';
import { printable } from '../../core/printable';
import { HELP_SHOWN, parseCommandArgs, parseValues, usageError } from '../args';
import { connectTeam, refuseSpaceOnFile } from '../team/team-target';

export const summary = "verify a memory's audit hash chain, or list its entries: audit --db FILE|postgres://… [--space NAME] --verify|--list [--record ID] [--json]";
const USAGE = `Usage: agent-memory audit --db FILE|postgres://… [--space NAME] --verify [--json]
       agent-memory audit --db FILE|postgres://… [--space NAME] --list [--record ID] [--limit N] [--json]

--list prints the newest entries (of one record with --record), each with where it came from: on a
SQLite file the channel that wrote it (editor, cli, mcp; '-' for entries written before channels
were recorded), on a team memory the authenticated role and the client.

Recomputes the audit's hash chain (each entry carries the hash of the previous entry of its space)
and prints {"ok": bool, "entries": N, "first_bad": id|null}: the first entry edited, or following
one deleted, behind the application's back. Exit code 1 when the chain does not hold. A team
memory's space is read as the connecting role (password from ${PASSWORD_ENV}).`;

const ArgsSchema = z.object({
  db: z.string({ message: 'give the memory with --db FILE or postgres://…' }).min(1),
  space: z.string().optional(),
  verify: z.boolean().default(false),
  list: z.boolean().default(false),
  record: z.string().min(1).optional(),
  limit: z.coerce.number().int().positive().max(100_000).default(50),
  json: z.boolean().default(false),
});

/** One listed entry: the same fields from either backend; `from` is the channel (SQLite) or `user client` (team). */
interface ListedEntry {
  id: number;
  at: string;
  operation: string;
  recordId: string | null;
  trigger: string;
  reason: string;
  from: string;
}

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs(argv, { usage: USAGE, options: { db: { type: 'string' }, space: { type: 'string' }, verify: { type: 'boolean' }, list: { type: 'boolean' }, record: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean' } } });
  if (parsed === HELP_SHOWN) return 0;
  const args = parseValues(ArgsSchema, parsed.values, USAGE);
  if (args.verify === args.list) throw usageError('give one of --verify (check the chain) or --list (print the entries).', USAGE);
  if (args.list) return list(args);
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

async function list(args: z.infer<typeof ArgsSchema>): Promise<number> {
  let entries: ListedEntry[];
  const query = { recordId: args.record, limit: args.limit };
  if (isPostgresUrl(args.db)) {
    const team = await connectTeam(args.db, args.space, { logger: stderrLogger('warn') });
    try {
      entries = (await team.audit(query)).map((e) => ({ id: e.id, at: e.at, operation: e.operation, recordId: e.recordId, trigger: e.trigger, reason: e.reason, from: `${e.user} ${e.client}` }));
    } finally {
      await team.close();
    }
  } else {
    refuseSpaceOnFile(args.space, USAGE);
    if (!fs.existsSync(args.db)) throw new AgentMemoryError('NOT_FOUND', `No memory database at ${args.db}.`);
    const store = MemoryStore.open(args.db, { logger: stderrLogger('warn') });
    try {
      entries = store.audit(query).map((e) => ({ id: e.id, at: e.at, operation: e.operation, recordId: e.recordId, trigger: e.trigger, reason: e.reason, from: auditChannel(e) ?? '-' }));
    } finally {
      store.close();
    }
  }
  if (args.json) process.stdout.write(`${JSON.stringify(entries)}\n`);
  else for (const e of entries) process.stdout.write(`${e.id}  ${e.at}  ${e.operation} ${e.recordId ?? '-'}  by ${e.trigger} via ${e.from}  ${printable(e.reason.slice(0, 120), { oneLine: true })}\n`);
  return 0;
}
