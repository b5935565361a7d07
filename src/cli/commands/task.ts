/**
 * `agent-memory task --db FILE|postgres://… --question Q …`: the agent's task pipeline
 * (retrieve → generate · run · debug → evaluate → afterTask) on a memory, the same path
 * as the editor's "Run task". On a SQLite file it is the editor's app; on a team memory the
 * team adapter (src/core/memory/postgres/team-task-memory.ts).
 */
import * as path from 'node:path';
import { z } from 'zod';
import { createApp } from '../../core/app';
import type { AgentTaskResult } from '../../core/app/types';
import { readTaskStreamFile } from '../../core/app/task-stream-file';
import { DEMO_DATABASE_FILE } from '../../core/data/ehr-tasks';
import { stderrLogger } from '../../core/logger';
import { describeConnection, isPostgresUrl, looksLikeUrl, PASSWORD_ENV } from '../../core/memory/postgres/connection';
import { DEFAULT_BETA_STRICT, DEFAULT_MIN_ACTIVE_RECORDS, DEFAULT_MIN_RETRIEVALS } from '../../core/policy/deletion/types';
import { SettingsSchema } from '../../core/settings';
import { HELP_SHOWN, parseCommandArgs, parseValues, usageError } from '../args';
import { connectTeam, refuseSpaceOnFile } from '../team/team-target';
import { runTeamTasks } from '../../core/team/team-tasks';
import { assertDataDatabase } from '../../core/data/data-database';
import { readDomainValues } from '../../core/data/domain-values-reader';
import { bundledDataDir } from './seed';

export const summary = "run the agent on questions with a memory (SQLite file or postgres:// team memory): retrieve, generate, run, evaluate, add";

const USAGE = `Usage: agent-memory task --db FILE|postgres://… [--space NAME] (--question TEXT… | --tasks T.jsonl) [--language python|javascript]
  [--data DB] [--k N] [--rerank] [--model reuse|<endpoint base URL> --model-name M] [--team-sweep-period-ms N] [--json]

Runs the agent's task pipeline for each question, one after the other, as the editor does:
retrieves demonstrations from the memory, generates and runs a program against DB (default:
the bundled EHR demo database), evaluates it and applies the addition policy.
  --db FILE|URL      the memory: a SQLite file (created if missing), or a team memory URL
                     (password from ${PASSWORD_ENV}); on a team memory the space's addition
                     policy applies (strict: the agent's records wait for a reviewer)
  --space NAME       the team memory's space (default "default")
  --question TEXT    a question (repeatable)
  --tasks FILE       JSONL lines {"question", "answer"?}: an answer is the ground truth (Φ from it)
  --rerank           re-rank the demonstrations (agentMemory.retrieval.rerank), with the values of
                     DB (on a team memory the space's records are read once, before the first task)
  --model M          reuse (default; the offline model) or an OpenAI-compatible base URL
                     (API key from AGENT_MEMORY_API_KEY)
  The coder and debugger role memories (with a --model endpoint) are the space's on a team
  memory, and kept in FILE.roles/ beside a SQLite file.
  --team-sweep-period-ms N   on a team memory, run the team's deletion sweep after each task
                     (once per team per N ms, advisory lock; default: no sweep from this client)
  --json             one JSON line per task`;

const ArgsSchema = z
  .object({
    db: z.string({ message: 'give the memory with --db FILE|URL' }).min(1),
    space: z.string().optional(),
    question: z.array(z.string().min(1)).default([]),
    tasks: z.string().min(1).optional(),
    language: z.enum(['python', 'javascript']).default('python'),
    data: z.string().min(1).optional(),
    k: z.coerce.number().int().min(1).max(32).default(4),
    rerank: z.boolean().default(false),
    model: z.string().default('reuse'),
    'model-name': z.string().min(1).optional(),
    'team-sweep-period-ms': z.coerce.number().int().min(0).optional(),
    json: z.boolean().default(false),
  })
  .superRefine((a, ctx) => {
    if ((a.question.length > 0) === (a.tasks !== undefined)) ctx.addIssue({ code: 'custom', path: ['question'], message: 'give --question (repeatable) or --tasks FILE, not both' });
    if (a.model !== 'reuse' && (!/^https?:\/\//.test(a.model) || !a['model-name'])) ctx.addIssue({ code: 'custom', path: ['model'], message: "--model is 'reuse' or an http(s) base URL with --model-name" });
  });

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs(argv, {
    usage: USAGE,
    options: {
      db: { type: 'string' }, space: { type: 'string' }, question: { type: 'string', multiple: true }, tasks: { type: 'string' }, language: { type: 'string' }, data: { type: 'string' },
      k: { type: 'string' }, rerank: { type: 'boolean' }, model: { type: 'string' }, 'model-name': { type: 'string' }, 'team-sweep-period-ms': { type: 'string' }, json: { type: 'boolean' },
    },
  });
  if (parsed === HELP_SHOWN) return 0;
  const args = parseValues(ArgsSchema, parsed.values, USAGE);
  const logger = stderrLogger('warn');
  const items: { question: string; answer?: unknown }[] = args.tasks ? readTaskStreamFile(args.tasks) : args.question.map((question) => ({ question }));
  const dataDir = bundledDataDir();
  if (args.data !== undefined && looksLikeUrl(args.data)) throw usageError(`--data takes the SQLite file the questions are about, not a URL (${describeConnection(args.data)}).`, USAGE);
  const dataPath = path.resolve(args.data ?? path.join(dataDir, DEMO_DATABASE_FILE));
  assertDataDatabase(dataPath);
  const endpoint = args.model === 'reuse' ? undefined : { baseURL: args.model, model: args['model-name']!, apiKey: process.env.AGENT_MEMORY_API_KEY || undefined };
  const print = (r: AgentTaskResult): void => {
    process.stdout.write(args.json ? `${JSON.stringify(r)}\n` : describe(r));
  };
  if (isPostgresUrl(args.db)) {
    const team = await connectTeam(args.db, args.space, { logger });
    try {
      const period = args['team-sweep-period-ms'];
      const sweep = period === undefined ? null : { periodMs: period, minActiveRecords: DEFAULT_MIN_ACTIVE_RECORDS, minRetrievals: DEFAULT_MIN_RETRIEVALS, maxMeanUtility: DEFAULT_BETA_STRICT };
      const rerank = args.rerank ? { domainValues: readDomainValues(dataPath) } : undefined;
      await runTeamTasks(team, items, { language: args.language, dataPath, k: args.k, endpoint, sweep, rerank, logger, onResult: print });
      const counts = await team.counts();
      process.stderr.write(`${describeConnection(args.db)} space ${team.space}: ${counts.active} active, ${counts.pending} pending, ${counts.deleted} deleted\n`);
    } finally {
      await team.close();
    }
    return 0;
  }
  refuseSpaceOnFile(args.space, USAGE);
  if (args['team-sweep-period-ms'] !== undefined) throw usageError('--team-sweep-period-ms applies to a team memory only (a SQLite memory uses its deletion settings).', USAGE);
  const settings = SettingsSchema.parse({
    model: endpoint ? { baseUrl: endpoint.baseURL, name: endpoint.model } : {}, retrieval: { k: args.k, rerank: args.rerank }, addition: {}, deletion: {}, runner: { language: args.language }, agent: { dataPath }, misaligned: {},
  });
  const app = await createApp({ databasePath: path.resolve(args.db), channel: 'cli', settings, apiKey: endpoint?.apiKey, demoDataDir: dataDir, storageDir: `${path.resolve(args.db)}.roles`, logger });
  try {
    for (const item of items) print(await app.runTask(item.question, { groundTruth: item.answer }));
  } finally {
    app.dispose();
  }
  return 0;
}

function describe(r: AgentTaskResult): string {
  const shown = r.demonstrations.filter((d) => d.shown).length;
  const added = r.addition.recordId ? `record ${r.addition.recordId} ${r.addition.status ?? ''}`.trim() : `not added (${r.addition.reason})`;
  return `task ${r.taskIndex}: ${r.outcome}, answer ${JSON.stringify(r.answer)}, verdict ${r.verdict.kind}; ${r.demonstrations.length} demonstration(s), ${shown} shown; ${added}\n`;
}
