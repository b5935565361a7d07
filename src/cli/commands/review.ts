/**
 * `agent-memory review --db FILE|postgres://… [--space NAME] [--approve ID]… [--reject ID]… [--restore ID]…`:
 * a reviewer's step from the command line, on a SQLite memory or a team memory. Without an
 * action it prints the counts by status and the pending records (the queue) with each one's
 * outcome. Each action is one transaction, all of them together: an id that is missing or in
 * the wrong state changes nothing at all. Approving a record whose code failed asks again: at a
 * terminal the reviewer confirms; otherwise the call is refused unless --approve-failed is given.
 */
import * as readline from 'node:readline/promises';
import * as fs from 'node:fs';
import { z } from 'zod';
import { AgentMemoryError } from '../../core/errors';
import { stderrLogger } from '../../core/logger';
import { describeConnection, isPostgresUrl, PASSWORD_ENV } from '../../core/memory/postgres/connection';
import { connectTeam } from '../team/team-target';
import { MemoryStore } from '../../core/memory/sqlite/store';
import { outcomeWorked, type MemoryRecord, type RecordStatus } from '../../core/memory/types';
import { HELP_SHOWN, parseCommandArgs, parseValues, usageError } from '../args';
import { printable } from '../../core/printable';

export const summary = 'list pending records and approve, reject or restore them (SQLite file or team memory)';
const USAGE = `Usage: agent-memory review --db FILE|postgres://… [--space NAME] [--approve ID]… [--approve-failed] [--reject ID]… [--restore ID]… [--reason TEXT] [--json]

Without an action: prints the number of records by status and the pending ones (newest first),
each with its outcome (success, or FAILED: error, timeout, no-answer).
  --approve ID   pending → active (retrievable)       (repeatable)
  --approve-failed  confirms approving records whose code failed (at a terminal you are
                 asked instead; without a terminal such an approval is refused without it)
  --reject ID    pending → deleted (restorable)        (repeatable)
  --restore ID   deleted → the status it had before    (repeatable)
  --space NAME   the team memory's space (default "default")
All the actions of one call are one transaction: one id that is missing or in the wrong
state changes nothing at all.
The team memory's password comes from ${PASSWORD_ENV} or PGPASSWORD, never from a file.`;

const Ids = z.array(z.string().min(1)).default([]);
const ArgsSchema = z.object({
  db: z.string({ message: 'give the memory with --db FILE|URL' }).min(1, 'give the memory with --db FILE|URL'),
  space: z.string().optional(),
  approve: Ids,
  reject: Ids,
  restore: Ids,
  reason: z.string().max(500).optional(),
  json: z.boolean().default(false),
  'approve-failed': z.boolean().default(false),
});

type Operation = 'approve' | 'reject' | 'restore';

/** The two backends, as far as a reviewer needs them. */
interface ReviewBackend {
  counts(): Promise<Record<RecordStatus, number>>;
  pending(limit: number): Promise<MemoryRecord[]>;
  getMany(ids: string[]): Promise<MemoryRecord[]>;
  /** Every step in one transaction: all of them or none. Returns each step's records. */
  transitionAll(steps: { ids: string[]; operation: Operation; reason: string }[]): Promise<MemoryRecord[][]>;
  close(): Promise<void>;
}

async function openBackend(db: string, space: string | undefined): Promise<ReviewBackend> {
  if (isPostgresUrl(db)) {
    const team = await connectTeam(db, space, { maxConnections: 1 });
    return {
      counts: () => team.counts(),
      pending: (limit) => team.listByStatus('pending', limit),
      getMany: (ids) => team.getMany(ids),
      transitionAll: (steps) => team.transitionSteps(steps, { trigger: 'user' }),
      close: () => team.close(),
    };
  }
  if (space) throw usageError('--space applies to a team memory (--db postgres://…) only.', USAGE);
  if (!fs.existsSync(db)) throw new AgentMemoryError('NOT_FOUND', `No memory database at ${db}; give an existing file or a postgres:// URL with --db.`);
  const store = MemoryStore.open(db, { logger: stderrLogger('warn'), channel: 'cli' });
  return {
    counts: () => Promise.resolve(store.counts()),
    pending: (limit) => Promise.resolve(store.list({ status: 'pending', limit }).items),
    getMany: (ids) => Promise.resolve(store.getMany(ids)),
    transitionAll: (steps) => Promise.resolve(store.atomically(() => steps.map((s) => store.transition(s.ids, s.operation, { trigger: 'user', reason: s.reason })))),
    close: () => Promise.resolve(store.close()),
  };
}

export async function run(argv: string[]): Promise<number> {
  const multiple = { type: 'string', multiple: true } as const;
  const parsed = parseCommandArgs(argv, {
    usage: USAGE,
    options: { db: { type: 'string' }, space: { type: 'string' }, approve: multiple, 'approve-failed': { type: 'boolean' }, reject: multiple, restore: multiple, reason: { type: 'string' }, json: { type: 'boolean' } },
  });
  if (parsed === HELP_SHOWN) return 0;
  const args = parseValues(ArgsSchema, parsed.values, USAGE);
  const backend = await openBackend(args.db, args.space);
  const where = isPostgresUrl(args.db) ? describeConnection(args.db) : args.db;
  try {
    await confirmFailedApprovals(await backend.getMany(args.approve), args['approve-failed']);
    const steps = (['approve', 'reject', 'restore'] as const).filter((op) => args[op].length > 0).map((op) => ({ operation: op, ids: args[op], reason: args.reason ?? `agent-memory review --${op}` }));
    const changed: { operation: Operation; id: string; status: RecordStatus }[] = [];
    const done = steps.length > 0 ? await backend.transitionAll(steps) : [];
    steps.forEach((step, i) => {
      for (const r of done[i]) changed.push({ operation: step.operation, id: r.id, status: r.status });
    });
    const counts = await backend.counts();
    const pending = changed.length > 0 ? [] : await backend.pending(50);
    if (args.json) {
      process.stdout.write(JSON.stringify({ counts, changed, pending: pending.map((r) => ({ id: r.id, question: r.question, language: r.execution.language, outcome: r.execution.outcome, createdAt: r.createdAt, metadata: r.metadata })) }) + '\n');
      return 0;
    }
    for (const c of changed) process.stdout.write(`${c.operation} ${c.id}: now ${c.status}\n`);
    process.stdout.write(`${where}: ${counts.active} active, ${counts.pending} pending, ${counts.deleted} deleted\n`);
    for (const r of pending) process.stdout.write(`  pending ${r.id}  ${outcomeLabel(r)}  ${printable(r.question.slice(0, 100), { oneLine: true })}\n`);
    return 0;
  } finally {
    await backend.close();
  }
}

/** A record's outcome as the queue shows it: a failure stands out. */
function outcomeLabel(r: MemoryRecord): string {
  return outcomeWorked(r.execution.outcome) ? r.execution.outcome : `FAILED (${r.execution.outcome})`;
}

/**
 * Approving a record whose code failed makes that code retrievable as a solution: asked again.
 * `--approve-failed` confirms up front; at a terminal the reviewer answers; otherwise the call is
 * refused (INVALID_STATE) before anything changes.
 */
async function confirmFailedApprovals(toApprove: readonly MemoryRecord[], confirmed: boolean): Promise<void> {
  const failed = toApprove.filter((r) => r.status === 'pending' && !outcomeWorked(r.execution.outcome));
  if (failed.length === 0 || confirmed) return;
  const list = failed.map((r) => `${r.id} (outcome ${r.execution.outcome}: ${printable(r.question.slice(0, 80), { oneLine: true })})`).join(', ');
  if (process.stdin.isTTY && process.stdout.isTTY) {
    const prompt = readline.createInterface({ input: process.stdin, output: process.stdout });
    try {
      const answer = await prompt.question(`${failed.length === 1 ? 'This record\'s code failed' : 'These records\' code failed'}: ${list}. Approve anyway, making the code retrievable? [y/N] `);
      if (/^y(es)?$/i.test(answer.trim())) return;
    } finally {
      prompt.close();
    }
    throw new AgentMemoryError('CANCELLED', 'Nothing was approved (the failed record was not confirmed); nothing changed.');
  }
  throw new AgentMemoryError(
    'INVALID_STATE',
    `Refusing to approve ${failed.length === 1 ? 'a record whose code failed' : `${failed.length} records whose code failed`}: ${list}. Approving makes the code retrievable as a solution; run again with --approve-failed to approve anyway, or --reject it. Nothing changed.`,
  );
}
