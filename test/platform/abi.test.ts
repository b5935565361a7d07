/**
 * ABI independence: the linux-x64 binaries inside the packaged VSIX (better-sqlite3's Node-API
 * prebuild, the sqlite-vec loadable) load, open a real database file and answer a hybrid query
 * under Node 22 AND Node 24 (both installed from the npm registry, scripts/node-runtime.sh), from
 * the same files, with no rebuild; and the product's own CLI from the VSIX runs a hybrid
 * retrieval evaluation on both with the same results.
 *
 * The VSIX is $AGENT_MEMORY_E2E_VSIX (npm test packages it first) or packaged here.
 * Run: npx mocha --config test/platform/.mocharc.json
 */
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { REPO_ROOT } from '../support/code-server';

const RUNTIMES = ['22.23.3', '24.21.0'];
const PROBE = path.join(__dirname, 'support', 'abi-probe.cjs');

interface Probe {
  node: string;
  modules: string;
  napi: string;
  addons: string[];
  vecFile: string;
  dense: number[];
  keyword: number[];
  hybrid: number[];
}

function runtimeNode(version: string): string {
  const dir = execFileSync('bash', ['-c', 'source scripts/node-runtime.sh && node_runtime_dir "$1"', 'runtime', version], { cwd: REPO_ROOT, encoding: 'utf8' }).trim().split('\n').pop() ?? '';
  const node = path.join(dir, 'bin', 'node');
  assert.ok(fs.existsSync(node), `no Node ${version} runtime at ${node}`);
  return node;
}

function sha256(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

/** Every file below `dir` with its hash (to show nothing was built or changed). */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) {
      const file = path.join(entry.parentPath, entry.name);
      out.set(path.relative(dir, file), sha256(file));
    }
  }
  return out;
}

describe('packaged linux-x64 binaries: the same files under Node 22 and Node 24 (Node-API, no rebuild)', function () {
  let work: string;
  let ext: string;
  let nodes: Record<string, string>;
  before(() => {
    assert.equal(`${process.platform}-${process.arch}`, 'linux-x64', 'this suite checks the linux-x64 binaries; run it on a linux-x64 machine (npm test does)');
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'abi-'));
    let vsix = process.env.AGENT_MEMORY_E2E_VSIX;
    if (!vsix || !fs.existsSync(vsix)) {
      vsix = path.join(work, 'agent-memory.vsix');
      execFileSync('bash', ['scripts/package.sh', '--out', vsix, '--no-verify'], { cwd: REPO_ROOT, stdio: 'inherit' });
    }
    execFileSync('unzip', ['-q', vsix, '-d', path.join(work, 'vsix')]);
    ext = path.join(work, 'vsix', 'extension');
    nodes = Object.fromEntries(RUNTIMES.map((v) => [v, runtimeNode(v)]));
  });
  after(() => {
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it('loads them, opens a database file and answers the same hybrid query under both', () => {
    const before = snapshot(path.join(ext, 'node_modules', 'better-sqlite3'));
    const vecBefore = sha256(path.join(ext, 'native', 'sqlite-vec-linux-x64', 'vec0.so'));
    const results: Probe[] = [];
    for (const version of RUNTIMES) {
      // One database per runtime, then the other runtime reopens it: the file format is shared too.
      const out = execFileSync(nodes[version], [PROBE, ext, path.join(work, `db-${version}.sqlite`)], { encoding: 'utf8' });
      results.push(JSON.parse(out) as Probe);
    }
    const [n22, n24] = results;
    assert.equal(n22.node.split('.')[0], '22');
    assert.equal(n24.node.split('.')[0], '24');
    assert.notEqual(n22.modules, n24.modules, 'two different Node ABIs (NODE_MODULE_VERSION)');
    const prebuild = path.join(ext, 'node_modules', 'better-sqlite3', 'prebuilds', 'linux-x64.node');
    for (const r of results) {
      assert.deepEqual(r.addons, [prebuild], `Node ${r.node} loaded ${r.addons.join(', ')}`);
      assert.equal(r.vecFile, path.join(ext, 'native', 'sqlite-vec-linux-x64', 'vec0.so'));
      assert.equal(r.dense[0], 42, 'the query vector is record 42: its own nearest neighbour');
      assert.ok(r.keyword.length > 0 && r.keyword.every((id) => id % 8 === 6), `keyword hits are the danazol records: ${r.keyword.join(',')}`);
      assert.equal(r.hybrid.length, 5);
    }
    assert.deepEqual(n22.hybrid, n24.hybrid);
    assert.deepEqual(n22.dense, n24.dense);
    // Cross-open: Node 24 reads the file Node 22 wrote.
    const cross = JSON.parse(execFileSync(nodes['24.21.0'], [PROBE, ext, path.join(work, 'db-22.23.3.sqlite')], { encoding: 'utf8' })) as Probe;
    assert.deepEqual(cross.hybrid, n22.hybrid);
    assert.deepEqual(snapshot(path.join(ext, 'node_modules', 'better-sqlite3')), before, 'nothing was built or changed in the packaged module');
    assert.equal(sha256(path.join(ext, 'native', 'sqlite-vec-linux-x64', 'vec0.so')), vecBefore);
  });

  it("the VSIX's own CLI runs a hybrid retrieval evaluation under both, with the same results", () => {
    const memory = path.join(work, 'memory.jsonl');
    const queries = path.join(work, 'queries.jsonl');
    const drugs = ['aspirin', 'insulin', 'heparin', 'warfarin', 'metformin', 'danazol'];
    fs.writeFileSync(memory, drugs.map((d) => JSON.stringify({ question: `how many patients were prescribed ${d} last year?`, template: `count-${d}`, code: `select count(*) from prescriptions where drug = '${d}'` })).join('\n') + '\n');
    // Each query is a stored question: its own record must come first on both runtimes.
    fs.writeFileSync(queries, drugs.map((d) => JSON.stringify({ question: `how many patients were prescribed ${d} last year?`, template: `count-${d}`, code: '' })).join('\n') + '\n');
    const outputs = RUNTIMES.map((version) => {
      const r = spawnSync(nodes[version], [path.join(ext, 'dist', 'cli.js'), 'eval-retrieval', '--memory', memory, '--queries', queries, '--mode', 'hybrid', '--json'], { encoding: 'utf8', env: { ...process.env, AGENT_MEMORY_SQLITE_VEC: '' } });
      assert.equal(r.status, 0, `Node ${version}: exit ${r.status}\n${r.stderr}`);
      return JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as { n: number; mode: string; hit_at_1: number };
    });
    for (const o of outputs) {
      assert.equal(o.mode, 'hybrid');
      assert.equal(o.n, drugs.length);
      assert.equal(o.hit_at_1, 1, `hit@1 ${o.hit_at_1}`);
    }
    assert.deepEqual(outputs[0], outputs[1]);
  });
});
