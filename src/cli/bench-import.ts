/**
 * Import benchmark: `npx tsx src/cli/bench-import.ts [--n 100000] [--vectors] [--batch-lines N] [--baseline COMMIT] [--json]`.
 *
 * Writes --n synthetic records (SyntheticRecords: EHRSQL question variants, ids `syn-N`) as a JSONL
 * file in a temp dir (outside the work tree; removed on exit or Ctrl-C), with vectors of the built-in
 * embedder when --vectors, then runs `agent-memory import FILE --db NEW` as a child process (node +
 * tsx's loader, one process) under /usr/bin/time and reports its total time, lines/s and peak RSS.
 * With --baseline, the same file is imported by that commit's tree too (extracted with `git archive`
 * into the temp dir), in the same run: the figures side by side.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';
import { HashingEmbedder } from '../core/similarity/hashing-embedder';
import { DEMO_TASKS_FILE } from '../core/data/ehr-tasks';
import { SyntheticRecords } from '../core/bench/synthetic-records';
import { HELP_SHOWN, parseBenchArgs } from './args';
import { tempDirRemovedOnExit } from './exit-cleanup';
import { runMain } from './run-main';

const ROOT = path.resolve(__dirname, '..', '..');

const ArgsSchema = z.object({
  n: z.coerce.number().int().positive().max(10_000_000).default(100_000),
  vectors: z.boolean().default(false),
  'batch-lines': z.coerce.number().int().positive().optional(),
  baseline: z.string().min(1).optional(),
  json: z.boolean().default(false),
});

const USAGE = `Usage: npm run bench:import -- [--n 100000] [--vectors] [--batch-lines N] [--baseline COMMIT] [--json]

Writes --n synthetic JSONL lines (with built-in-embedder vectors when --vectors) to a temp dir and
times \`agent-memory import\` of them into a new memory: total seconds, lines/s, peak RSS (MB).
--baseline COMMIT imports the same file with that commit's tree as well.`;

interface ImportRun {
  tree: string;
  seconds: number;
  lines_per_s: number;
  peak_rss_mb: number;
  exit_code: number;
}

/** The synthetic file, written 1,000 lines at a time (the generator never holds more). */
function writeSyntheticFile(file: string, n: number, vectors: boolean): number {
  const gen = SyntheticRecords.fromFile(path.join(ROOT, 'data', 'ehr', DEMO_TASKS_FILE), 42);
  const embedder = vectors ? new HashingEmbedder() : undefined;
  const fd = fs.openSync(file, 'w');
  const createdAt = new Date('2026-01-01T00:00:00.000Z').toISOString();
  try {
    for (let done = 0; done < n; ) {
      const batch = gen.records(Math.min(1000, n - done));
      const text = batch
        .map((r) => {
          const line: Record<string, unknown> = { ...r, createdAt, updatedAt: createdAt };
          if (embedder) Object.assign(line, { embedding: Array.from(embedder.embedSync(r.question)), embedderId: embedder.id });
          return JSON.stringify(line);
        })
        .join('\n');
      fs.writeSync(fd, text + '\n');
      done += batch.length;
    }
  } finally {
    fs.closeSync(fd);
  }
  return fs.statSync(file).size;
}

/** `agent-memory import` of `file` from the tree at `root`, under /usr/bin/time (%e seconds, %M peak KB). */
function timeImport(tree: string, root: string, file: string, db: string, n: number, batchLines: number | undefined): ImportRun {
  const cli = ['--require', path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cjs', 'index.cjs'), path.join(root, 'src', 'cli', 'main.ts'), 'import', file, '--db', db];
  if (batchLines !== undefined && tree === 'this') cli.push('--batch-lines', String(batchLines));
  const timeFile = `${db}.time`;
  let exitCode = 0;
  try {
    execFileSync('/usr/bin/time', ['-o', timeFile, '-f', '%e %M', process.execPath, ...cli], { cwd: root, stdio: ['ignore', 'ignore', 'ignore'], maxBuffer: 1 << 26 });
  } catch (error) {
    exitCode = (error as { status?: number }).status ?? 1;
  }
  const [seconds, kb] = fs.readFileSync(timeFile, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
  return { tree, seconds, lines_per_s: Math.round(n / seconds), peak_rss_mb: Math.round(kb / 1024), exit_code: exitCode };
}

async function main(argv: string[]): Promise<number> {
  const args = parseBenchArgs(argv, { usage: USAGE, flags: ['json', 'vectors'], valued: ['n', 'batch-lines', 'baseline'] }, ArgsSchema);
  if (args === HELP_SHOWN) return 0;
  const { dir, remove } = tempDirRemovedOnExit('agent-memory-bench-import-');
  try {
    const file = path.join(dir, 'synthetic.jsonl');
    const bytes = writeSyntheticFile(file, args.n, args.vectors);
    const runs = [timeImport('this', ROOT, file, path.join(dir, 'this.sqlite'), args.n, args['batch-lines'])];
    if (args.baseline) {
      const oldRoot = path.join(dir, 'baseline');
      fs.mkdirSync(oldRoot);
      fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(oldRoot, 'node_modules'), 'dir');
      execFileSync('bash', ['-c', `git -C ${JSON.stringify(ROOT)} archive ${args.baseline} src data/ehr/${DEMO_TASKS_FILE} | tar -x -C ${JSON.stringify(oldRoot)}`]);
      runs.push(timeImport(`baseline ${args.baseline}`, oldRoot, file, path.join(dir, 'baseline.sqlite'), args.n, undefined));
    }
    const result = { n: args.n, vectors: args.vectors, file_mb: Math.round(bytes / 1e6), load: os.loadavg().map((l) => Number(l.toFixed(2))), cpus: os.cpus().length, runs };
    if (args.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    else {
      process.stdout.write(`import of ${args.n} synthetic lines (${result.file_mb} MB${args.vectors ? ', with vectors' : ''}), load ${result.load.join(' ')} on ${result.cpus} CPUs\n`);
      for (const r of runs) process.stdout.write(`  ${r.tree}: ${r.seconds} s, ${r.lines_per_s} lines/s, peak RSS ${r.peak_rss_mb} MB${r.exit_code ? ` (exit ${r.exit_code})` : ''}\n`);
    }
    return runs.some((r) => r.exit_code !== 0) ? 1 : 0;
  } finally {
    remove();
  }
}

if (require.main === module) runMain('bench:import', () => main(process.argv.slice(2)));
