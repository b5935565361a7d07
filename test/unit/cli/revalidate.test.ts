/**
 * `agent-memory revalidate` as a real child process on the demo memory (100 seeded gold
 * programs) after a column the programs use is renamed in a copy of the MIMIC-III demo:
 * the programs that use it are reported failing and marked stale, memory_search and the
 * agent's retrieval skip them, the rest are unchanged. The timing is printed (a figure
 * measured on a shared machine, not asserted).
 */
import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { MemoryRetriever } from '../../../src/core/agent/retriever';
import { storeEmbedder } from '../../../src/core/app/embedding';
import { reviewQueries } from '../../../src/core/memory/sqlite/queries/review';
import { nullLogger } from '../../../src/core/logger';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { openToolMemory } from '../../../src/mcp/tool-memory';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const TSX = path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const DEMO_DB = path.join(ROOT, 'data', 'ehr', 'mimic3-demo.sqlite');

function cliSync(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [TSX, path.join(ROOT, 'src', 'cli', 'main.ts'), ...args], { encoding: 'utf8', cwd: ROOT });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Asynchronous, so mocha's timer keeps running while the child works. */
function cli(...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string; wallMs: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TSX, path.join(ROOT, 'src', 'cli', 'main.ts'), ...args], { cwd: ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr, wallMs: Date.now() - started }));
  });
}

describe('CLI: revalidate after schema drift', function () {
  this.timeout(240_000);
  let dir: string;
  let mem: string;
  let drifted: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-revalidate-'));
    mem = path.join(dir, 'memory.sqlite');
    const seeded = cliSync('seed', '--db', mem);
    assert.equal(seeded.status, 0, seeded.stderr);
    assert.equal(seeded.stdout.trim(), '100');
    // A copy of the demo data with prescriptions.drug renamed.
    drifted = path.join(dir, 'drifted.sqlite');
    fs.copyFileSync(DEMO_DB, drifted);
    const db = new Database(drifted);
    db.exec('ALTER TABLE prescriptions RENAME COLUMN drug TO drug_name');
    db.close();
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reports the programs that use the renamed column as failing, marks them stale, and retrieval no longer uses them', async () => {
    let store = MemoryStore.open(mem);
    const records = store.list({ status: 'active', limit: 1000 }).items;
    store.close();
    assert.equal(records.length, 100);
    // The column, not the word: 'nb drug withdrawal syndr' is a value inside an SQL string literal.
    const usesColumn = new Set(records.filter((r) => /\bdrug\b/.test(r.execution.code.replace(/'[^']*'/g, "''"))).map((r) => r.id));
    assert.ok(usesColumn.size > 0 && usesColumn.size < 100, `programs using prescriptions.drug: ${usesColumn.size}`);

    const r = await cli('revalidate', '--db', mem, '--data', drifted, '--json');
    assert.equal(r.status, 0, r.stderr);
    const report = JSON.parse(r.stdout) as { checked: number; unchanged: number; changed: number; failing: number; failing_ids: string[]; ms: number };
    process.stdout.write(`      revalidate: ${report.checked} programs in ${report.ms} ms (child process wall ${r.wallMs} ms, load average ${os.loadavg()[0].toFixed(1)})\n`);
    assert.deepEqual(Object.keys(report).sort(), ['changed', 'checked', 'failing', 'failing_ids', 'ms', 'unchanged']);
    assert.equal(report.checked, 100);
    assert.deepEqual(new Set(report.failing_ids), usesColumn, 'exactly the programs that use the renamed column fail');
    assert.equal(report.failing, usesColumn.size);
    assert.equal(report.unchanged, 100 - usesColumn.size, 'the rest give the answer they gave before');
    assert.equal(report.changed, 0);

    store = MemoryStore.open(mem);
    try {
      assert.deepEqual(reviewQueries(store).staleIds(), usesColumn, 'failing records are marked stale');
      const staleOne = records.find((rec) => usesColumn.has(rec.id))!;
      assert.ok(store.audit({ recordId: staleOne.id }).some((e) => e.operation === 'revalidate' && /stale/.test(e.reason)), 'the stale mark is audited');
      // The agent's read step: its own question no longer brings the stale record back.
      const retriever = MemoryRetriever.open(store, { file: null });
      const embedder = storeEmbedder(store, nullLogger);
      const demos = retriever.retrieve(staleOne.question, embedder.embedSync(staleOne.question), 8, { languages: ['python'] });
      assert.equal(demos.length, 8, 'K demonstrations still come back');
      assert.ok(demos.every((d) => !usesColumn.has(d.recordId)), 'no stale record is a demonstration');
      retriever.close();
    } finally {
      store.close();
    }

    // memory_search (the MCP tools' memory) skips them too.
    const memory = openToolMemory({ databasePath: mem, addition: 'strict', logger: nullLogger });
    try {
      for (const id of [...usesColumn].slice(0, 5)) {
        const question = records.find((rec) => rec.id === id)!.question;
        const found = await memory.tools.search({ query: question, k: 10 }, { via: 'mcp', name: 'test' });
        assert.ok(found.results.length > 0);
        assert.ok(found.results.every((x) => !usesColumn.has(x.id)), `memory_search returned no stale record for "${question}"`);
      }
    } finally {
      await memory.close();
    }
  });

  it('refuses a missing data file with a clear error', async () => {
    const r = await cli('revalidate', '--db', mem, '--data', path.join(dir, 'nope.sqlite'), '--json');
    assert.equal(r.status, 1);
    assert.match(r.stderr, /No database at .*nope\.sqlite/);
  });
});
