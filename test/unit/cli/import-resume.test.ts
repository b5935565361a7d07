/**
 * `agent-memory import` of a large file as real child processes: progress goes to stderr and never
 * to stdout; a kill -9 in the middle and a second run import every line exactly once, saying it
 * resumed; a changed file or --restart starts from line 1; Ctrl-C stops after a committed batch;
 * a bad line far into the file imports nothing (or is skipped with --skip-invalid), as before.
 */
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { IMPORT_CHECKPOINT_META, readImportCheckpoint } from '../../../src/core/memory/io/import-checkpoint';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { runCli } from '../../support/team-processes';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const MAIN = path.join(ROOT, 'src', 'cli', 'main.ts');
const line = (id: string) => JSON.stringify({ id, question: `how many patients got drug ${id}?`, execution: { code: `answer = ${JSON.stringify(id)}`, language: 'python', outcome: 'success' }, status: 'active', provenance: 'import', createdTask: 0, createdAt: '2024-01-01T00:00:00.000Z' });
const idsOf = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}-${i + 1}`);
const writeLines = (file: string, ids: string[]) => fs.writeFileSync(file, ids.map(line).join('\n') + '\n');
/** The ids stored in `db`, every status. */
function storedIds(db: string): string[] {
  const store = MemoryStore.open(db);
  try {
    return (store.connectionForQueries().prepare('SELECT id FROM records').all() as { id: string }[]).map((r) => r.id);
  } finally {
    store.close();
  }
}

/**
 * Starts `import FILE --db DB` with a progress line after every batch, sends `signal` once a line says
 * at least `after` records are written, and resolves with what it printed and how it ended.
 */
function importUntil(file: string, db: string, after: number, signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // One process (node with tsx's loader, not the tsx launcher and its child): the signal reaches the import itself.
    const child = spawn(process.execPath, ['--require', 'tsx/cjs', MAIN, 'import', file, '--db', db, '--batch-lines', '200', '--progress-interval', '0'], { cwd: ROOT, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? os.tmpdir() } });
    let stdout = '';
    let stderr = '';
    let sent = false;
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      const written = [...stderr.matchAll(/([\d,]+) record\(s\) written/g)].map((m) => Number(m[1].replace(/,/g, '')));
      if (!sent && written.some((n) => n >= after)) {
        sent = true;
        child.kill(signal);
      }
    });
    child.on('close', (code, sig) => resolve({ code, signal: sig, stdout, stderr }));
  });
}

describe('agent-memory import of a large file: progress, kill -9 and resume (real child processes)', function () {
  this.timeout(300_000);
  let dir: string;
  before(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-import-resume-'))));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('prints progress on stderr only: stdout is the one result line, and no checkpoint is left', async () => {
    const file = path.join(dir, 'progress.jsonl');
    const db = path.join(dir, 'progress.sqlite');
    writeLines(file, idsOf(3000, 'p'));
    const r = await runCli(['import', file, '--db', db, '--batch-lines', '500', '--progress-interval', '0']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `imported 3000 record(s) into ${db}\n`);
    assert.match(r.stderr, /importing .*progress\.jsonl: line 500 of 3,000 read, 500 record\(s\) written \(\d+%\), [\d,]+ lines\/s, .* left/);
    assert.match(r.stderr, /line 3,000 of 3,000 read, 3,000 record\(s\) written \(100%\)/);
    const store = MemoryStore.open(db);
    assert.equal(store.getMeta(IMPORT_CHECKPOINT_META), undefined);
    store.close();
  });

  it('kill -9 mid-import, then the same command: says it resumes, and every line is there exactly once', async () => {
    const file = path.join(dir, 'big.jsonl');
    const db = path.join(dir, 'big.sqlite');
    const ids = idsOf(20_000, 'b');
    writeLines(file, ids);
    const killed = await importUntil(file, db, 1000, 'SIGKILL');
    assert.equal(killed.signal, 'SIGKILL', `the import was to be killed midway: ${killed.stderr.slice(-500)}`);
    assert.equal(killed.stdout, '', 'nothing on stdout before the end');
    const store = MemoryStore.open(db);
    const checkpoint = readImportCheckpoint(store)!;
    assert.ok(checkpoint.line >= 1000 && checkpoint.line < 20_000, `checkpoint at line ${checkpoint.line}`);
    assert.equal(store.counts().active, checkpoint.imported, 'the records are exactly the committed batches');
    store.close();

    const r = await runCli(['import', file, '--db', db]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, new RegExp(`resuming at line ${(checkpoint.line + 1).toLocaleString('en-US')} of .*big\\.jsonl`));
    assert.match(r.stdout, new RegExp(`^imported ${20_000 - checkpoint.imported} record\\(s\\) into .*; resumed at line`));
    const after = storedIds(db);
    assert.equal(after.length, 20_000);
    assert.deepEqual([...after].sort(), [...ids].sort(), 'each line of the file exactly once');
  });

  it('a changed file does not resume (from line 1), nor does --restart; Ctrl-C stops after a batch and resumes', async () => {
    const file = path.join(dir, 'change.jsonl');
    const db = path.join(dir, 'change.sqlite');
    writeLines(file, idsOf(20_000, 'c'));
    const killed = await importUntil(file, db, 400, 'SIGKILL');
    assert.equal(killed.signal, 'SIGKILL');

    const restart = await runCli(['import', file, '--db', db, '--restart']);
    assert.notEqual(restart.code, 0);
    assert.match(restart.stderr, /--restart: an interrupted import of .*change\.jsonl \(up to line [\d,]+\) is not resumed; importing .* from line 1/);
    assert.match(restart.stderr, /already exist in this memory \(first: 'c-1'\)/, 'from line 1: its first record is already there');

    const newIds = idsOf(5000, 'd');
    writeLines(file, newIds);
    const stopped = await importUntil(file, db, 1000, 'SIGINT');
    assert.equal(stopped.code, 130, stopped.stderr);
    assert.match(stopped.stderr, /is not that file as it was .*: importing from line 1/);
    assert.doesNotMatch(stopped.stderr, /resuming/);
    assert.match(stopped.stderr, /interrupted: lines up to [\d,]+ of .*change\.jsonl are imported; run the same command again to resume at line/);
    const resumed = await runCli(['import', file, '--db', db]);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stderr, /resuming at line/);
    const all = storedIds(db);
    assert.deepEqual(all.filter((id) => id.startsWith('d-')).sort(), [...newIds].sort(), 'the new file: every line once');
    assert.equal(new Set(all).size, all.length);
  });

  it('a bad line deep in the file imports nothing without --skip-invalid, and is skipped with it', async () => {
    const file = path.join(dir, 'bad.jsonl');
    const db = path.join(dir, 'bad.sqlite');
    const lines = idsOf(12_000, 'e').map(line);
    lines[10_999] = '{oops';
    fs.writeFileSync(file, lines.join('\n') + '\n');
    const refused = await runCli(['import', file, '--db', db, '--batch-lines', '1000']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /Line 11000: not valid JSON.*Nothing was imported/s);
    assert.equal(fs.existsSync(db), false, 'a refused import into a new file leaves no database');
    const r = await runCli(['import', file, '--db', db, '--batch-lines', '1000', '--skip-invalid']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `imported 11999 record(s) into ${db}\n`);
    assert.ok(r.stderr.includes(`${file}:11000: not valid JSON`), r.stderr);
    assert.match(r.stderr, /skipped 1 invalid line\(s\)/);
    assert.equal(storedIds(db).length, 11_999);
  });
});
