import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { createRunner, DEFAULT_RUN_LIMITS, RUNNER_ISOLATIONS, type CodeRunner, type RunLanguage } from '../../core/agent/runners';
import { AgentMemoryError } from '../../core/errors';
import { stderrLogger } from '../../core/logger';
import { isPostgresUrl, PASSWORD_ENV } from '../../core/memory/postgres/connection';
import { teamRevalidationSource } from '../../core/memory/postgres/team-revalidation';
import type { TeamMemoryStore } from '../../core/memory/postgres/team-store';
import { MemoryStore } from '../../core/memory/sqlite/store';
import { DEFAULT_REVALIDATION_CONCURRENCY, revalidate } from '../../core/revalidation/revalidate';
import { HELP_SHOWN, parseCommandArgs, parseValues } from '../args';
import { requireFileDatabase } from '../db-target';
import { connectTeam, refuseSpaceOnFile } from '../team/team-target';

export const summary = "re-run every record's program against the data: unchanged, answer changed, or now failing (marked stale)";

const USAGE = `Usage: agent-memory revalidate --db MEM|postgres://… [--space NAME] --data DB [--json] [--changed-only] [--concurrency N] [--timeout-ms N] [--isolation sandbox|none]

Re-runs the program of every active record that succeeded when recorded, in the agent's
sandbox, against the database DB. Each ends as unchanged, answer changed (data drift,
still valid) or now failing (schema drift): failing records are marked stale and are not
retrieved as demonstrations (by the agent or memory_search) until approved again or re-run
clean. Exit code 0 (also when records fail: see the report), 1 when it could not run.
  --db MEM|URL      the memory database, or a team memory URL (password from ${PASSWORD_ENV};
                    the checks and stale marks are the space's, seen by every client)
  --space NAME      the team memory's space (default "default")
  --data DB         the SQLite database the programs query
  --json            print {checked, unchanged, changed, failing, failing_ids, ms}
  --changed-only    only records whose stored data fingerprint differs from DB's
  --concurrency N   programs run at once (default ${DEFAULT_REVALIDATION_CONCURRENCY})
  --timeout-ms N    wall-clock limit per program (default ${DEFAULT_RUN_LIMITS.timeoutMs})
  --isolation I     sandbox (default) or none`;

const ArgsSchema = z.object({
  db: z.string().min(1, 'give the memory database with --db'),
  space: z.string().optional(),
  data: z.string().min(1, 'give the database the programs query with --data'),
  json: z.boolean().default(false),
  changedOnly: z.boolean().default(false),
  concurrency: z.coerce.number().int().min(1).max(16).default(DEFAULT_REVALIDATION_CONCURRENCY),
  timeoutMs: z.coerce.number().int().min(50).max(600_000).default(DEFAULT_RUN_LIMITS.timeoutMs),
  isolation: z.enum(RUNNER_ISOLATIONS).default('sandbox'),
});

/** `agent-memory revalidate --db MEM --data DB [--json]`: prints the report (JSON with --json). */
export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs(argv, {
    usage: USAGE,
    options: {
      db: { type: 'string' },
      space: { type: 'string' },
      data: { type: 'string' },
      json: { type: 'boolean' },
      'changed-only': { type: 'boolean' },
      concurrency: { type: 'string' },
      'timeout-ms': { type: 'string' },
      isolation: { type: 'string' },
    },
  });
  if (parsed === HELP_SHOWN) return 0;
  const v = parsed.values;
  const args = parseValues(
    ArgsSchema,
    { db: v.db ?? '', space: v.space, data: v.data ?? '', json: v.json, changedOnly: v['changed-only'], concurrency: v.concurrency, timeoutMs: v['timeout-ms'], isolation: v.isolation },
    USAGE,
  );
  const team = isPostgresUrl(args.db);
  if (!team) refuseSpaceOnFile(args.space, USAGE);
  requireFileDatabase(args.data, 'revalidate', 'give the SQLite data file the programs query with --data', 'a SQLite data file for --data');
  if (!team && !fs.existsSync(args.db)) throw new AgentMemoryError('NOT_FOUND', `No memory database at ${args.db}; give an existing file with --db.`);
  const logger = stderrLogger('warn');
  let teamStore: TeamMemoryStore | undefined;
  let store: MemoryStore | undefined;
  if (team) teamStore = await connectTeam(args.db, args.space, { logger });
  else store = MemoryStore.open(path.resolve(args.db), { logger, channel: 'cli' });
  const runners = new Map<RunLanguage, CodeRunner>();
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  process.once('SIGINT', stop);
  try {
    const report = await revalidate(teamStore ? teamRevalidationSource(teamStore) : store!, {
      dataPath: path.resolve(args.data),
      runner: (language) => {
        let r = runners.get(language);
        if (!r) runners.set(language, (r = createRunner(language, { logger, isolation: args.isolation })));
        return r;
      },
      signal: controller.signal,
      concurrency: args.concurrency,
      onlyIfChanged: args.changedOnly,
      limits: { timeoutMs: args.timeoutMs },
    });
    const { checked, unchanged, changed, failing, failing_ids, ms } = report;
    if (args.json) process.stdout.write(`${JSON.stringify({ checked, unchanged, changed, failing, failing_ids, ms })}\n`);
    else {
      const lines = [`checked ${checked} in ${ms} ms${report.cancelled ? ' (cancelled)' : ''}: ${unchanged} unchanged, ${changed} answer changed, ${failing} now failing (marked stale)`];
      for (const id of failing_ids) lines.push(`  stale: ${id}`);
      process.stdout.write(`${lines.join('\n')}\n`);
    }
    return 0;
  } finally {
    process.off('SIGINT', stop);
    for (const r of runners.values()) r.dispose();
    store?.close();
    await teamStore?.close();
  }
}
