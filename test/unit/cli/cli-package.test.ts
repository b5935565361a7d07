/**
 * The installable CLI: `npm run pack:cli` (scripts/pack-cli.mjs) packs the built bundle, the
 * package is installed with npm into an empty prefix, and the installed `agent-memory` works
 * there with no checkout: --help, seed, run, and mcp answering the SDK's own MCP client.
 * Needs the bundle (dist/cli.js: `npm run build`, which `npm test` runs first).
 */
import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

const ROOT = path.resolve(__dirname, '..', '..', '..');

describe('installable CLI package (npm pack → install into an empty prefix)', function () {
  this.timeout(600_000);
  let dir: string;
  let bin: string;
  const cwd = (): string => path.join(dir, 'elsewhere');
  const cli = (...args: string[]): string => execFileSync(bin, args, { cwd: cwd(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

  before(() => {
    assert.ok(fs.existsSync(path.join(ROOT, 'dist', 'cli.js')), 'dist/cli.js is built (npm run build)');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-cli-pack-'));
    const out = execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'pack-cli.mjs'), '--no-build', '--out', dir], { cwd: ROOT, encoding: 'utf8' });
    const tarball = out.trim().split('\n').pop()!;
    assert.ok(fs.existsSync(tarball), `the tarball exists (${tarball})`);
    const listing = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' }).split('\n');
    assert.ok(listing.includes('package/dist/cli.js') && listing.includes('package/dist/keyword-worker.js') && listing.includes('package/dist/domain-values-worker.js'), 'the bundle and its workers are packed');
    assert.ok(!listing.some((f) => f.startsWith('package/src/') || f.startsWith('package/test/')), 'no sources or tests are packed');
    assert.ok(['README.md', 'docs/mcp.md', 'docs/cli.md', 'docs/security.md'].every((f) => listing.includes(`package/${f}`)), 'the README and the docs pages it links are packed');
    const prefix = path.join(dir, 'prefix');
    execFileSync('npm', ['install', '--global', '--prefix', prefix, tarball, '--no-audit', '--no-fund', '--prefer-offline'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    bin = path.join(prefix, 'bin', 'agent-memory');
    fs.mkdirSync(cwd());
  });
  after(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is installed as `agent-memory` and answers --help', () => {
    assert.ok(fs.existsSync(bin));
    const help = cli('--help');
    for (const command of ['seed', 'mcp', 'run']) assert.match(help, new RegExp(`\\n  ${command} `));
  });

  it('seeds the demo memory from the packed EHR data and runs a program in the sandbox', () => {
    const seeded = spawnSync(bin, ['seed', '--db', 'memory.sqlite'], { cwd: cwd(), encoding: 'utf8' });
    assert.equal(seeded.status, 0, seeded.stderr);
    assert.equal(seeded.stdout.trim(), '100');
    // sqlite-vec is loaded by explicit path: the installed package's own sqlite-vec-<platform>.
    assert.doesNotMatch(seeded.stderr, /sqlite-vec is not available/, 'the installed CLI finds its sqlite-vec loadable');
    const data = path.join(path.dirname(path.dirname(bin)), 'lib', 'node_modules', 'agent-memory', 'data', 'ehr', 'mimic3-demo.sqlite');
    fs.writeFileSync(path.join(cwd(), 'count.py'), "answer = sql('select count(*) from admissions')\n");
    const run = JSON.parse(cli('run', '--language', 'python', '--db', data, '--code-file', 'count.py', '--json')) as { outcome: string; answer: unknown };
    assert.equal(run.outcome, 'success');
    const expected = execFileSync(process.execPath, ['-e', `const D=require(${JSON.stringify(path.join(ROOT, 'node_modules', 'better-sqlite3'))});const d=new D(${JSON.stringify(data)},{readonly:true});process.stdout.write(JSON.stringify(d.prepare('select count(*) c from admissions').get().c))`], { encoding: 'utf8' });
    assert.deepEqual(run.answer, [[Number(expected)]]);
  });

  it('re-ranks a task with the packed demo database\'s values, read by the packed worker thread: `agent-memory task --rerank`', () => {
    const r = spawnSync(bin, ['task', '--db', 'memory.sqlite', '--question', 'What was the last calculated total co2 value of patient 12?', '--rerank', '--json'], { cwd: cwd(), encoding: 'utf8', timeout: 100_000 });
    assert.equal(r.status, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /could not be read for re-ranking|worker script was not found/, 'the installed CLI finds dist/domain-values-worker.js');
    const result = JSON.parse(r.stdout.trim().split('\n')[0]) as { demonstrations: unknown[] };
    assert.ok(result.demonstrations.length > 0);
  });

  it('serves the memory to an MCP client: `agent-memory mcp --db X`', async () => {
    const transport = new StdioClientTransport({ command: bin, args: ['mcp', '--db', path.join(cwd(), 'memory.sqlite')], cwd: cwd(), stderr: 'pipe' });
    const client = new Client({ name: 'pack-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const result = (await client.callTool({ name: 'memory_search', arguments: { query: 'how many patients were admitted?', min_score: 0 } })) as CallToolResult;
      assert.ok(!result.isError);
      const out = result.structuredContent as { results: { question: string }[] };
      assert.equal(out.results.length, 4);
    } finally {
      await client.close();
    }
  });
});
