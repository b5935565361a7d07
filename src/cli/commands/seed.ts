import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';
import { createApp } from '../../core/app';
import { DEFAULT_SEED_COUNT } from '../../core/data/ehr-tasks';
import { seedSynthetic } from '../../core/bench/seed-synthetic';
import { AgentMemoryError } from '../../core/errors';
import { stderrLogger } from '../../core/logger';
import { SettingsSchema } from '../../core/settings';

export const summary = 'seed a memory database with the EHR demo records (gold programs), or --synthetic N large test records';

const ArgsSchema = z.object({
  db: z.string().min(1, '--db FILE is required'),
  count: z.coerce.number().int().min(1).max(10_000).default(DEFAULT_SEED_COUNT),
  language: z.enum(['python', 'javascript']).default('python'),
  data: z.string().optional(),
  synthetic: z.coerce.number().int().min(1).max(1_000_000).optional(),
});

function parseArgs(argv: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (!flag.startsWith('--') || argv[i + 1] === undefined) throw new AgentMemoryError('INVALID_INPUT', `Unexpected argument '${flag}'. Usage: agent-memory seed --db FILE [--count 100] [--language python|javascript] [--data DIR] | --synthetic N`);
    out[flag.slice(2)] = argv[++i];
  }
  return out;
}

/** `agent-memory seed --db FILE [--count N] [--language L] [--data DIR] | --synthetic N`: prints the number of records added. */
export async function run(argv: string[]): Promise<number> {
  const parsed = ArgsSchema.safeParse(parseArgs(argv));
  if (!parsed.success) throw new AgentMemoryError('INVALID_INPUT', `${parsed.error.issues[0].path.join('.') || 'arguments'}: ${parsed.error.issues[0].message}`);
  const args = parsed.data;
  // Bundled (dist/cli.js) or from source (src/cli/commands/seed.ts): find the shipped data/ehr.
  const demoDataDir = args.data ?? [path.resolve(__dirname, '..', 'data', 'ehr'), path.resolve(__dirname, '..', '..', '..', 'data', 'ehr')].find((d) => fs.existsSync(d)) ?? 'data/ehr';
  if (args.synthetic !== undefined) {
    const added = seedSynthetic({ databasePath: path.resolve(args.db), tasksFile: path.join(demoDataDir, 'ehrsql-mimic3-tasks.jsonl'), count: args.synthetic, logger: stderrLogger('warn') });
    process.stdout.write(`${added}\n`);
    return 0;
  }
  const settings = SettingsSchema.parse({ model: {}, retrieval: {}, addition: {}, deletion: {}, runner: { language: args.language }, agent: {}, misaligned: {} });
  const app = await createApp({ databasePath: path.resolve(args.db), settings, demoDataDir, storageDir: os.tmpdir(), logger: stderrLogger('warn') });
  try {
    const added = await app.seedDemoMemory(args.count);
    process.stdout.write(`${added}\n`);
    return 0;
  } finally {
    app.dispose();
  }
}
