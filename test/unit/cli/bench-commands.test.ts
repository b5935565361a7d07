/**
 * Issue 38 part 4: every `npm run bench:*` (and data:paper-stream) behaves like a command. Each
 * script of package.json is spawned as npm runs it (a real child process through tsx):
 * `--help` prints its usage and exits 0 without running (nothing of a run on stdout or stderr,
 * nothing written), an unknown option is a usage error: exit 2, one line, no stack trace.
 */
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const TSX = path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');

/** The scripts the issue names; the test also checks package.json has no other bench it would miss. */
const EXPECTED = ['bench:adapt', 'bench:calibrate', 'bench:coldstart', 'bench:import', 'bench:mcp', 'bench:paper', 'bench:policies', 'bench:retrieval', 'bench:runners', 'bench:shutdown', 'bench:team', 'bench:utility', 'data:paper-stream'];

function benchScripts(): { name: string; file: string }[] {
  const scripts = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  return Object.entries(scripts)
    .filter(([name]) => name.startsWith('bench:') || name === 'data:paper-stream')
    .map(([name, command]) => {
      const m = /^tsx (src\/cli\/[\w-]+\.ts)$/.exec(command);
      assert.ok(m, `${name} runs one TypeScript entry point through tsx: ${command}`);
      return { name, file: m[1] };
    })
    .sort((a, b) => (a.name < b.name ? -1 : 1));
}

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The script as `npm run NAME -- ...args` runs it: tsx on its entry point, from the repository root. */
function run(file: string, args: string[]): Promise<Exit> {
  return new Promise((resolve, reject) => {
    // A stray password must not matter to a help or a usage error (and must not reach a real server).
    const env = { ...process.env, AGENT_MEMORY_PG_PASSWORD: undefined };
    const child = spawn(process.execPath, [TSX, file, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs `jobs` at most `width` at a time (the machine is shared; 24 tsx processes at once would crawl). */
async function pooled<T>(jobs: (() => Promise<T>)[], width: number): Promise<T[]> {
  const out: T[] = new Array<T>(jobs.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < jobs.length) {
        const i = next++;
        out[i] = await jobs[i]();
      }
    }),
  );
  return out;
}

describe('npm run bench:* behave like commands (--help, usage errors)', function () {
  this.timeout(300_000);
  const benches = benchScripts();
  let outDir: string;
  let help: Exit[];
  let bogus: Exit[];

  before(async () => {
    outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-bench-help-'));
    // data:paper-stream writes into --out when it runs: with --help the directory must stay empty.
    const helpArgs = (name: string) => (name === 'data:paper-stream' ? ['--help', '--out', outDir] : ['--help']);
    [help, bogus] = await Promise.all([
      pooled(benches.map((b) => () => run(b.file, helpArgs(b.name))), 2),
      pooled(benches.map((b) => () => run(b.file, ['--bogus'])), 2),
    ]);
  });
  after(() => fs.rmSync(outDir, { recursive: true, force: true }));

  it('covers every bench script of package.json', () => {
    assert.deepEqual(benches.map((b) => b.name), EXPECTED);
  });

  it('--help prints the usage and exits 0 without running anything', () => {
    benches.forEach((b, i) => {
      const r = help[i];
      assert.equal(r.code, 0, `${b.name} --help: exit ${r.code}\n${r.stderr}`);
      assert.match(r.stdout, new RegExp(`^Usage: npm run ${b.name} -- `), `${b.name} --help starts with its usage`);
      // The usage and its description, nothing of a run: no figures, no JSON line, no progress on stderr.
      assert.equal(r.stderr, '', `${b.name} --help wrote to stderr: ${r.stderr}`);
      assert.ok(r.stdout.split('\n').every((line) => !line.startsWith('{') && !/\d+(\.\d+)? ms\b/.test(line)), `${b.name} --help printed run output:\n${r.stdout}`);
      assert.ok(r.stdout.trim().split('\n').length >= 3, `${b.name} --help says what the bench does, below the usage line`);
    });
    assert.deepEqual(fs.readdirSync(outDir), [], 'data:paper-stream --help wrote nothing');
  });

  it('an unknown option is a usage error: exit 2, one line on stderr, no stack trace, nothing run', () => {
    benches.forEach((b, i) => {
      const r = bogus[i];
      assert.equal(r.code, 2, `${b.name} --bogus: exit ${r.code}\n${r.stderr}`);
      assert.equal(r.stdout, '', `${b.name} --bogus wrote to stdout`);
      const lines = r.stderr.trimEnd().split('\n');
      assert.equal(lines.length, 1, `${b.name} --bogus: one line, got:\n${r.stderr}`);
      assert.match(lines[0], new RegExp(`^${b.name}: Unknown option '--bogus'.* See: npm run ${b.name} -- --help$`));
      assert.doesNotMatch(r.stderr, /\n\s+at /, `${b.name} --bogus printed a stack trace`);
    });
  });
});
