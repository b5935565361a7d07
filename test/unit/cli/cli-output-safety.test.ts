import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { sampleRecord } from '../../support/records';
import { cliArgv, runCli } from '../../support/team-processes';

interface Ended {
  code: number | null;
  stderr: string;
}

function runWith(args: string[], stdout: 'pipe' | number, onStdout?: (child: ReturnType<typeof spawn>) => void): Promise<Ended> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, cliArgv(args), { stdio: ['ignore', stdout, 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    onStdout?.(child);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

const sha = (file: string): string => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

describe('the CLI never reports an output it could not write, and never writes into a foreign database (real child processes)', function () {
  this.timeout(120_000);
  let dir: string;
  let db: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-output-'));
    db = path.join(dir, 'memory.sqlite');
    const store = MemoryStore.open(db);
    try {
      // Enough bytes that the export outlives a reader that stops after its first chunk.
      store.add(Array.from({ length: 400 }, (_, i) => sampleRecord({ id: `r${i}`, question: `question ${i} ${'x'.repeat(4000)}` })), { trigger: 'user' });
    } finally {
      store.close();
    }
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('export to a full disk: DISK_FULL, exit 1, no success line and no stack trace', async () => {
    const full = fs.openSync('/dev/full', 'w');
    const r = await runWith(['export', '--db', db], full);
    fs.closeSync(full);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /agent-memory: DISK_FULL: .*what was written is incomplete/);
    assert.doesNotMatch(r.stderr, /exported \d+ record/);
    assert.doesNotMatch(r.stderr, /^\s+at /m);
  });

  it('export into a pipe its reader closes: OUTPUT (EPIPE), exit 1, no success line and no stack trace', async () => {
    const r = await runWith(['export', '--db', db], 'pipe', (child) => {
      child.stdout?.once('data', () => child.stdout?.destroy());
    });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /agent-memory: OUTPUT: The reader of standard output closed it .*EPIPE/);
    assert.doesNotMatch(r.stderr, /exported \d+ record/);
    assert.doesNotMatch(r.stderr, /^\s+at /m);
  });

  it("import, seed and export refuse another program's SQLite database and leave it byte for byte", async () => {
    const data = path.join(dir, 'clinical.sqlite');
    fs.copyFileSync(path.resolve(__dirname, '../../../data/ehr/mimic3-demo.sqlite'), data);
    const before = sha(data);
    const jsonl = path.join(dir, 'one.jsonl');
    const exported = await runCli(['export', '--db', db]);
    fs.writeFileSync(jsonl, exported.stdout.split('\n')[0] + '\n');
    for (const args of [['import', jsonl, '--db', data], ['seed', '--db', data, '--count', '3'], ['export', '--db', data]]) {
      const r = await runCli(args);
      assert.equal(r.code, 1, `${args[0]}: ${r.stderr}`);
      assert.match(r.stderr, /NOT_A_DATABASE: .*clinical\.sqlite is a SQLite database of another program \(tables: .*\), not an Agent Memory database; nothing was written to it/);
      assert.equal(r.stdout, '');
    }
    assert.equal(sha(data), before);
    assert.deepEqual(fs.readdirSync(dir).filter((f) => f.startsWith('clinical')), ['clinical.sqlite']);
  });
});
