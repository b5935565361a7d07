/**
 * Shutdown benchmark: `npm run bench:shutdown -- --db FILE [--runs 3] [--json]`.
 *
 * Starts the real `agent-memory mcp --db FILE` (the bundle, dist/cli.js: run `npm run build`
 * first) as a child process, speaks MCP to it over stdio (initialize, one memory_search),
 * then stops it and measures, median of `runs` for each way of stopping (SIGTERM, SIGINT,
 * stdin closed):
 * - first_ms: from spawn to the search's answer; first_rss_mb: the server's RSS then;
 * - exit_ms: from the stop to the process's exit (500 ms after the answer, while the keyword
 *   worker is still loading or warming on a large memory).
 * Baseline in the same run: the same server on an empty memory (what starting and exiting a
 * Node process costs); ratios memory / empty are printed.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';
import { HELP_SHOWN, parseBenchArgs } from './args';
import { runMain } from './run-main';

const ROOT = path.resolve(__dirname, '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');
const STOPS = ['SIGTERM', 'SIGINT', 'stdin'] as const;
type StopHow = (typeof STOPS)[number];

const USAGE = `Usage: npm run bench:shutdown -- --db FILE [--runs 3] [--json]

Starts the bundled MCP server (dist/cli.js: npm run build first) on --db, answers one search,
stops it by SIGTERM, SIGINT and closed stdin, and prints the time to first answer and to exit
(median of --runs), beside the same server on an empty memory.`;
const ArgsSchema = z.object({
  db: z.string({ message: '--db FILE is required (e.g. agent-memory seed --db big.sqlite --synthetic 100000)' }).min(1),
  runs: z.coerce.number().int().min(1).max(20).default(3),
  json: z.boolean().default(false),
});

interface Sample {
  first_ms: number;
  first_rss_mb: number;
  exit_ms: number;
}

function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

/** One server: spawn, initialize, one search, stop `how`, wait for the exit. */
function measure(db: string, how: StopHow): Promise<Sample> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [CLI, 'mcp', '--db', db], { stdio: ['pipe', 'pipe', 'ignore'] });
    const send = (message: object): void => void child.stdin.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n');
    let buffer = '';
    let sample: Omit<Sample, 'exit_ms'> | undefined;
    let stoppedAt = 0;
    const guard = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the server did not ${sample ? 'exit within 60 s of ' + how : 'answer within 60 s'}`));
    }, 60_000 + (sample ? 0 : 120_000));
    child.on('error', reject);
    child.on('exit', () => {
      clearTimeout(guard);
      if (!sample) return reject(new Error('the server exited before answering'));
      resolve({ ...sample, exit_ms: performance.now() - stoppedAt });
    });
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
        const { id } = JSON.parse(buffer.slice(0, i)) as { id?: number };
        buffer = buffer.slice(i + 1);
        if (id === 1) {
          send({ method: 'notifications/initialized' });
          send({ id: 2, method: 'tools/call', params: { name: 'memory_search', arguments: { query: 'how many patients were prescribed aspirin since 2100?' } } });
        } else if (id === 2 && !sample) {
          sample = { first_ms: performance.now() - started, first_rss_mb: rssMb(child.pid!) };
          setTimeout(() => {
            stoppedAt = performance.now();
            if (how === 'stdin') child.stdin.end();
            else child.kill(how);
          }, 500);
        }
      }
    });
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench-shutdown', version: '1' } } });
  });
}

const median = (values: number[]): number => {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function series(db: string, runs: number): Promise<Record<StopHow, Sample>> {
  const out = {} as Record<StopHow, Sample>;
  for (const how of STOPS) {
    const samples: Sample[] = [];
    for (let r = 0; r < runs; r++) samples.push(await measure(db, how));
    out[how] = { first_ms: median(samples.map((s) => s.first_ms)), first_rss_mb: median(samples.map((s) => s.first_rss_mb)), exit_ms: median(samples.map((s) => s.exit_ms)) };
  }
  return out;
}

async function main(argv: string[]): Promise<number> {
  const args = parseBenchArgs(argv, { usage: USAGE, flags: ['json'], valued: ['db', 'runs'] }, ArgsSchema);
  if (args === HELP_SHOWN) return 0;
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
  if (!fs.existsSync(args.db)) throw new Error(`${args.db} does not exist (make one: agent-memory seed --db ${args.db} --synthetic 100000)`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-bench-shutdown-'));
  try {
    const baseline = await series(path.join(dir, 'empty.sqlite'), args.runs);
    const memory = await series(path.resolve(args.db), args.runs);
    const result = { db: path.resolve(args.db), runs: args.runs, load: os.loadavg()[0], memory, baseline };
    if (args.json) {
      process.stdout.write(JSON.stringify(result, null, 2) + '\n');
      return 0;
    }
    const row = (how: StopHow): string => {
      const m = memory[how];
      const b = baseline[how];
      return `| ${how} | ${m.exit_ms.toFixed(0)} ms | ${b.exit_ms.toFixed(0)} ms | ${(m.exit_ms / b.exit_ms).toFixed(1)}× | ${m.first_ms.toFixed(0)} ms | ${m.first_rss_mb.toFixed(0)} MB |`;
    };
    process.stdout.write(
      [
        `bench:shutdown ${result.db}, median of ${args.runs} run(s) per stop, load average ${result.load.toFixed(1)}`,
        '| stop | exit after stop | empty memory | ratio | first answer | RSS at first answer |',
        '|---|---:|---:|---:|---:|---:|',
        ...STOPS.map(row),
        '',
      ].join('\n'),
    );
    return 0;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) runMain('bench:shutdown', () => main(process.argv.slice(2)));
