import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { exportJsonl } from '../../../../src/core/memory/io/jsonl';
import { setupTeamMemory } from '../../../../src/core/memory/postgres/team-setup';
import { dumpMemory, readSqlite } from '../../../../src/core/memory/postgres/transfer';
import { MemoryStore } from '../../../../src/core/memory/sqlite/store';
import { TaskLog } from '../../../../src/core/memory/sqlite/task-log';
import { usePostgres } from '../../../support/postgres';
import { sampleRecord, unitVector } from '../../../support/records';

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');
const TSX = path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');

/** The real CLI in a child process; the password goes in the environment only. */
function cli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [TSX, path.join(ROOT, 'src', 'cli', 'main.ts'), ...args], { cwd: ROOT, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A memory exercising every field: all statuses, restore targets, vectors, Φ, merges, odd text. */
function buildMemory(file: string): void {
  const store = MemoryStore.open(file);
  const tasks = new TaskLog(store);
  const inputs = [
    sampleRecord({ id: 'active-1', metadata: { template: 't1', nested: { a: [1, 2.5, null] } } }),
    sampleRecord({ id: 'pending-1', status: 'pending', provenance: 'agent', question: 'ünïcödé ✓ question with "quotes"\nand a newline' }),
    sampleRecord({ id: 'to-reject', status: 'pending', provenance: 'agent', question: 'rejected one' }),
    sampleRecord({ id: 'to-delete', question: 'deleted one', createdAt: '2024-01-02T03:04:05.678Z' }),
    sampleRecord({ id: 'js', question: 'a javascript one', execution: { code: 'answer = 1/3', language: 'javascript', outcome: 'error', outputExcerpt: 'boom', inputSimilarity: 0.123456789, outputSimilarity: 1 / 3 } }),
  ];
  store.add(inputs, { trigger: 'user', embeddings: inputs.map((_, i) => unitVector(i + 1)), embedderId: 'test-16' });
  store.transition(['to-reject'], 'reject', { trigger: 'user', reason: 'wrong' });
  store.transition(['to-delete'], 'delete', { trigger: 'rule:history', reason: 'low utility', evidence: { 'to-delete': { meanUtility: 0.1 } } });
  for (let t = 0; t < 3; t++) {
    const task = tasks.begin(`question ${t}`);
    tasks.logRetrievals(task, [{ recordId: 'active-1', rank: 0, inputSimilarity: 0.9 - t / 10 }, { recordId: 'js', rank: 1, inputSimilarity: null }]);
    tasks.setUtility(task, t === 1 ? 0 : 1, 'strict');
    tasks.setOutputSimilarity(task, 'active-1', 0.7);
    tasks.finish(task, { language: 'python', code: 'answer = 2', answer: [[2]], outcome: 'success', evaluator: 'strict' });
  }
  store.close();
}

describe('agent-memory migrate: SQLite → PostgreSQL → SQLite (real server, real CLI)', function () {
  this.timeout(120_000);
  const pg = usePostgres();
  let dir: string;

  before(async () => {
    await setupTeamMemory(pg().ownerUrl, { dimensions: [16] });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-memory-migrate-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('round-trips every record, utility, retrieval, task and audit entry: the exports are byte-identical', async () => {
    const a = path.join(dir, 'a.sqlite');
    const b = path.join(dir, 'b.sqlite');
    buildMemory(a);
    const password = decodeURIComponent(new URL(pg().appUrl).password);
    const url = pg().appUrl.replace(`:${encodeURIComponent(password)}@`, '@');
    const env = { AGENT_MEMORY_PG_PASSWORD: password };
    const up = await cli(['migrate', '--from', a, '--to', url, '--space', 'moved'], env);
    assert.equal(up.code, 0, up.stderr);
    assert.match(up.stderr, /migrated 5 record\(s\), 6 retrieval\(s\), 3 task\(s\)/);
    const down = await cli(['migrate', '--from', url, '--from-space', 'moved', '--to', b], env);
    assert.equal(down.code, 0, down.stderr);
    // Into a space that is not empty: refused, nothing written.
    const again = await cli(['migrate', '--from', a, '--to', url, '--space', 'moved'], env);
    assert.equal(again.code === 0, false);
    assert.match(again.stderr, /not empty/);
    for (const out of [up, down, again]) assert.ok(!(out.stdout + out.stderr).includes(password), 'the password leaked into the CLI output');

    const original = MemoryStore.open(a);
    const back = MemoryStore.open(b);
    try {
      const dumpA = dumpMemory(readSqlite(original));
      const dumpB = dumpMemory(readSqlite(back));
      assert.equal(dumpB, dumpA);
      assert.ok(dumpA.includes('"status_before_delete":"pending"') && dumpA.includes('"utility_count":3'));
      const lines = (s: MemoryStore): string => {
        let out = '';
        exportJsonl(s, (l) => (out += l));
        return out;
      };
      assert.equal(lines(back), lines(original));
      // The copy is a working memory: its vector index holds the active records.
      assert.ok(back.vectors.candidates(unitVector(1), 3).map((rid) => back.idOf(rid)).includes('active-1'));
      assert.ok(!fs.readFileSync(b).includes(password));
    } finally {
      original.close();
      back.close();
    }
  });
});
