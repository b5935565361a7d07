/**
 * `agent-memory review --db FILE|postgres://… [--space NAME] [--approve ID]… [--reject ID]… [--restore ID]…`:
 * a reviewer's step from the command line, on a SQLite memory or a team memory. Without an
 * action it prints the counts by status and the pending records (the queue). Each action is
 * one transaction, all of them together: an id that is missing or in the wrong state changes nothing at all.
 */
import * as fs from 'node:fs';
import { z } from 'zod';
import { AgentMemoryError } from '../../core/errors';
import { stderrLogger } from '../../core/logger';
import { describeConnection, isPostgresUrl, PASSWORD_ENV } from '../../core/memory/postgres/connection';
import { connectTeam } from '../team/team-target';
import { MemoryStore } from '../../core/memory/sqlite/store';
import type { MemoryRecord, RecordStatus } from '../../core/memory/types';
import { HELP_SHOWN, parseCommandArgs, parseValues, usageError } from '../args';
import { printable } from '../../core/printable';

export const summary = 'list pending records and approve, reject or restore them (SQLite file or team memory)';
const USAGE = `Usage: agent-memory review --db FILE|postgres://… [--space NAME] [--approve ID]… [--reject ID]… [--restore ID]… [--reason TEXT] [--json]

Without an action: prints the number of records by status and the pending ones (newest first).
  --approve ID   pending → active (retrievable)       (repeatable)
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
});

type Operation = 'approve' | 'reject' | 'restore';

/** The two backends, as far as a reviewer needs them. */
interface ReviewBackend {
  counts(): Promise<Record<RecordStatus, number>>;
  pending(limit: number): Promise<MemoryRecord[]>;
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
      transitionAll: (steps) => team.transitionSteps(steps, { trigger: 'user' }),
      close: () => team.close(),
    };
  }
  if (space) throw usageError('--space applies to a team memory (--db postgres://…) only.', USAGE);
  if (!fs.existsSync(db)) throw new AgentMemoryError('NOT_FOUND', `No memory database at ${db}; give an existing file or a postgres:// URL with --db.`);
  const store = MemoryStore.open(db, { logger: stderrLogger('warn') });
  return {
    counts: () => Promise.resolve(store.counts()),
    pending: (limit) => Promise.resolve(store.list({ status: 'pending', limit }).items),
    transitionAll: (steps) => Promise.resolve(store.atomically(() => steps.map((s) => store.transition(s.ids, s.operation, { trigger: 'user', reason: s.reason })))),
    close: () => Promise.resolve(store.close()),
  };
}

export async function run(argv: string[]): Promise<number> {
  const multiple = { type: 'string', multiple: true } as const;
  const parsed = parseCommandArgs(argv, {
    usage: USAGE,
    options: { db: { type: 'string' }, space: { type: 'string' }, approve: multiple, reject: multiple, restore: multiple, reason: { type: 'string' }, json: { type: 'boolean' } },
  });
  if (parsed === HELP_SHOWN) return 0;
  const args = parseValues(ArgsSchema, parsed.values, USAGE);
  const backend = await openBackend(args.db, args.space);
  const where = isPostgresUrl(args.db) ? describeConnection(args.db) : args.db;
  try {
    const steps = (['approve', 'reject', 'restore'] as const).filter((op) => args[op].length > 0).map((op) => ({ operation: op, ids: args[op], reason: args.reason ?? `agent-memory review --${op}` }));
    const changed: { operation: Operation; id: string; status: RecordStatus }[] = [];
    const done = steps.length > 0 ? await backend.transitionAll(steps) : [];
    steps.forEach((step, i) => {
      for (const r of done[i]) changed.push({ operation: step.operation, id: r.id, status: r.status });
    });
    const counts = await backend.counts();
    const pending = changed.length > 0 ? [] : await backend.pending(50);
    if (args.json) {
      process.stdout.write(JSON.stringify({ counts, changed, pending: pending.map((r) => ({ id: r.id, question: r.question, language: r.execution.language, createdAt: r.createdAt, metadata: r.metadata })) }) + '\n');
      return 0;
    }
    for (const c of changed) process.stdout.write(`${c.operation} ${c.id}: now ${c.status}\n`);
    process.stdout.write(`${where}: ${counts.active} active, ${counts.pending} pending, ${counts.deleted} deleted\n`);
    for (const r of pending) process.stdout.write(`  pending ${r.id}  ${printable(r.question.slice(0, 100), { oneLine: true })}\n`);
    return 0;
  } finally {
    await backend.close();
  }
}
