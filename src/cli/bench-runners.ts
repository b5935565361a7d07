/**
 * Runner overhead benchmark: `npm run bench:runners [-- --runs N] [-- --json]`.
 *
 * Measures the wall time of `runner.run()` for a trivial program (`answer = 1`)
 * and for one `sql()` call, per language, for
 * - new: the sandboxed runners of this tree (JavaScript in QuickJS inside a warm
 *   host process; Python inside bubblewrap), and
 * - old: the runners of BASELINE_COMMIT (JavaScript in a fresh `node` process
 *   under the permission model; Python as a plain `python3` subprocess with audit
 *   hooks), extracted from git into .cache/ and run in this same process.
 * Old and new runs alternate, so both see the same machine load. Also reports the
 * new runners' first run (process start, interpreter probe). Prints medians, p90s
 * and the new/old ratio.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { createRunner, type CodeRunner, type RunLanguage } from '../core/agent/runners';
import { HELP_SHOWN, parseBenchArgs } from './args';
import { runMain } from './run-main';

/** The commit before the sandbox work (round 2 start). */
const BASELINE_COMMIT = '97d0e4e62bd7eadc8827d9359ec84d9ad1f8f185';
const BASELINE_FILES = ['src/core/errors.ts', 'src/core/logger.ts', 'src/core/agent/runners', 'src/core/agent/toolbox'];

const ROOT = path.resolve(__dirname, '../..');
const DB = path.join(ROOT, 'data/ehr/mimic3-demo.sqlite');
const USAGE = `Usage: npm run bench:runners -- [--runs 20] [--json]

Times runner.run() for a trivial program and for one sql() call, per language, for this tree's
sandboxed runners and the baseline commit's runners, alternating; prints medians, p90s and ratios.`;
const ArgsSchema = z.object({ runs: z.coerce.number().int().min(3).max(1000).default(20), json: z.boolean().default(false) });

/** Extracts the baseline runners into .cache/ (inside the repo, so node_modules resolve); undefined when git cannot. */
function baselineCreateRunner(): ((language: RunLanguage) => CodeRunner) | undefined {
  const dir = path.join(ROOT, '.cache', `bench-runners-${BASELINE_COMMIT.slice(0, 12)}`);
  try {
    for (const spec of BASELINE_FILES) {
      const files = execFileSync('git', ['ls-tree', '-r', '--name-only', BASELINE_COMMIT, spec], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n').filter(Boolean);
      for (const file of files) {
        const target = path.join(dir, file);
        fs.mkdirSync(path.dirname(target), { recursive: true });
        fs.writeFileSync(target, execFileSync('git', ['show', `${BASELINE_COMMIT}:${file}`], { cwd: ROOT }));
      }
    }
  } catch (error) {
    process.stderr.write(`bench:runners: the baseline (${BASELINE_COMMIT.slice(0, 12)}) is not available from git, so only new figures are shown: ${(error as Error).message}\n`);
    return undefined;
  }
  const mod = require(path.join(dir, 'src/core/agent/runners/index.ts')) as { createRunner: (language: RunLanguage) => CodeRunner };
  return (language) => mod.createRunner(language);
}

const PROGRAMS = { trivial: 'answer = 1', sql: 'answer = sql("select count(*) from patients")' } as const;

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

async function timed(runner: CodeRunner, language: RunLanguage, code: string): Promise<number> {
  const t = performance.now();
  const r = await runner.run({ language, databasePath: DB, code });
  const ms = performance.now() - t;
  if (r.outcome !== 'success') throw new Error(`bench:runners: ${language} run failed: ${JSON.stringify(r.error)}`);
  return ms;
}

interface Row {
  language: RunLanguage;
  program: keyof typeof PROGRAMS;
  newFirstMs: number;
  newMedianMs: number;
  newP90Ms: number;
  oldMedianMs?: number;
  oldP90Ms?: number;
  ratio?: number;
}

async function main(argv: string[]): Promise<number> {
  const args = parseBenchArgs(argv, { usage: USAGE, flags: ['json'], valued: ['runs'] }, ArgsSchema);
  if (args === HELP_SHOWN) return 0;
  const baseline = baselineCreateRunner();
  const rows: Row[] = [];
  for (const language of ['javascript', 'python'] as RunLanguage[]) {
    const fresh = createRunner(language);
    const old = baseline?.(language);
    try {
      let first = true;
      for (const program of Object.keys(PROGRAMS) as Array<keyof typeof PROGRAMS>) {
        const code = PROGRAMS[program];
        const newFirstMs = await timed(fresh, language, code);
        if (old && first) await timed(old, language, code); // warm the baseline's SQL helper too
        first = false;
        const news: number[] = [];
        const olds: number[] = [];
        for (let i = 0; i < args.runs; i++) {
          news.push(await timed(fresh, language, code));
          if (old) olds.push(await timed(old, language, code));
        }
        const row: Row = { language, program, newFirstMs, newMedianMs: quantile(news, 0.5), newP90Ms: quantile(news, 0.9) };
        if (old) Object.assign(row, { oldMedianMs: quantile(olds, 0.5), oldP90Ms: quantile(olds, 0.9), ratio: quantile(news, 0.5) / quantile(olds, 0.5) });
        rows.push(row);
      }
    } finally {
      fresh.dispose();
      old?.dispose();
    }
  }
  if (args.json) {
    process.stdout.write(JSON.stringify({ baseline: BASELINE_COMMIT, runs: args.runs, rows }, null, 2) + '\n');
    return 0;
  }
  const f = (x: number | undefined) => (x === undefined ? '-' : x.toFixed(1));
  process.stdout.write(`Runner overhead, wall ms per run.() (${args.runs} alternating runs each; old = ${BASELINE_COMMIT.slice(0, 12)})\n`);
  process.stdout.write('language    program  new first  new p50  new p90  old p50  old p90  new/old p50\n');
  for (const r of rows) {
    process.stdout.write(
      `${r.language.padEnd(11)} ${r.program.padEnd(8)} ${f(r.newFirstMs).padStart(9)} ${f(r.newMedianMs).padStart(8)} ${f(r.newP90Ms).padStart(8)} ${f(r.oldMedianMs).padStart(8)} ${f(r.oldP90Ms).padStart(8)} ${(r.ratio === undefined ? '-' : r.ratio.toFixed(2)).padStart(12)}\n`,
    );
  }
  return 0;
}

if (require.main === module) runMain('bench:runners', () => main(process.argv.slice(2)), { exit: true });
