import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';
import { createApp } from '../../core/app';
import { DEFAULT_SEED_COUNT, DEMO_TASKS_FILE } from '../../core/data/ehr-tasks';
import { AgentMemoryError } from '../../core/errors';
import { isPostgresUrl, PASSWORD_ENV } from '../../core/memory/postgres/connection';
import { seedTeamDemo } from '../../core/memory/postgres/team-seed';
import { seedSynthetic } from '../../core/bench/seed-synthetic';
import { stderrLogger } from '../../core/logger';
import { SettingsSchema } from '../../core/settings';
import { HELP_SHOWN, parseCommandArgs, parseValues } from '../args';
import { connectTeam, refuseSpaceOnFile } from '../team/team-target';

export const summary = 'seed a memory database with the EHR demo records (gold programs), or --synthetic N large test records';

const ArgsSchema = z.object({
  db: z.string({ message: '--db FILE is required' }).min(1, '--db FILE is required'),
  count: z.coerce.number().int().min(1).max(10_000).default(DEFAULT_SEED_COUNT),
  language: z.enum(['python', 'javascript']).default('python'),
  data: z.string().optional(),
  synthetic: z.coerce.number().int().min(1).max(1_000_000).optional(),
  space: z.string().optional(),
});

const USAGE = `Usage: agent-memory seed --db FILE|postgres://… [--space NAME] [--count ${DEFAULT_SEED_COUNT}] [--language python|javascript] [--data DIR]
       agent-memory seed --db FILE --synthetic N [--data DIR]

Seeds the memory with the EHR demo records (gold programs); prints the number added
(records already seeded are skipped). On a team memory (password from ${PASSWORD_ENV}) the
records go into the space (default "default"), active, without vectors (keyword retrieval).
  --count N       how many demo records (1–10000)
  --language L    language of the seeded code
  --data DIR      folder with the demo data (default: the bundled data/ehr)
  --synthetic N   instead, add N large synthetic test records (1–1000000) built from the demo tasks`;

/** The shipped data/ehr folder, bundled (dist/cli.js) or from source (src/cli/commands/seed.ts). */
export function bundledDataDir(): string {
  return [path.resolve(__dirname, '..', 'data', 'ehr'), path.resolve(__dirname, '..', '..', '..', 'data', 'ehr')].find((d) => fs.existsSync(d)) ?? 'data/ehr';
}

/** `agent-memory seed --db FILE [--count N] [--language L] [--data DIR] | --synthetic N`: prints the number of records added. */
export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs(argv, { usage: USAGE, options: { db: { type: 'string' }, count: { type: 'string' }, language: { type: 'string' }, data: { type: 'string' }, synthetic: { type: 'string' }, space: { type: 'string' } } });
  if (parsed === HELP_SHOWN) return 0;
  const args = parseValues(ArgsSchema, parsed.values, USAGE);
  const demoDataDir = args.data ?? bundledDataDir();
  if (isPostgresUrl(args.db)) {
    if (args.synthetic !== undefined) {
      throw new AgentMemoryError('UNSUPPORTED', `--synthetic seeds a SQLite file only (nothing was done): for large test data in a team space run 'npm run bench:team -- --records N', or seed a file and copy it with 'agent-memory migrate --from FILE --to postgres://… --space NAME'.`);
    }
    const team = await connectTeam(args.db, args.space, { logger: stderrLogger('warn') });
    try {
      process.stdout.write(`${await seedTeamDemo(team, path.join(demoDataDir, DEMO_TASKS_FILE), args.count, args.language)}\n`);
    } finally {
      await team.close();
    }
    return 0;
  }
  refuseSpaceOnFile(args.space, USAGE);
  if (args.synthetic !== undefined) {
    const added = seedSynthetic({ databasePath: path.resolve(args.db), tasksFile: path.join(demoDataDir, 'ehrsql-mimic3-tasks.jsonl'), count: args.synthetic, logger: stderrLogger('warn') });
    process.stdout.write(`${added}\n`);
    return 0;
  }
  const settings = SettingsSchema.parse({ model: {}, retrieval: {}, addition: {}, deletion: {}, runner: { language: args.language }, agent: {}, misaligned: {} });
  const app = await createApp({ databasePath: path.resolve(args.db), channel: 'cli', settings, demoDataDir, storageDir: os.tmpdir(), logger: stderrLogger('warn') });
  try {
    const added = await app.seedDemoMemory(args.count);
    process.stdout.write(`${added}\n`);
    return 0;
  } finally {
    app.dispose();
  }
}
