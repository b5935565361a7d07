import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createRunner, type CodeRunner, type RunLanguage, type RunResult } from '../../../src/core/agent/runners';

const DB = path.resolve(__dirname, '../../../data/ehr/mimic3-demo.sqlite');
const SHORT = { timeoutMs: 1500 };

/** Each limit, proven with real child processes, for both languages. */
for (const language of ['javascript', 'python'] as RunLanguage[]) {
  describe(`${language} runner limits`, function () {
    this.timeout(15_000);
    let runner: CodeRunner;
    const run = (code: string, limits: Record<string, number> = SHORT, signal?: AbortSignal): Promise<RunResult> =>
      runner.run({ code, language, databasePath: DB, limits }, signal);
    const js = language === 'javascript';

    before(() => {
      runner = createRunner(language);
    });
    after(() => runner.dispose());

    it('kills an infinite loop within the time limit', async () => {
      const r = await run(js ? 'while (true) {}' : 'while True:\n    pass');
      assert.equal(r.outcome, 'timeout');
      assert.equal(r.killedBy, 'timeout');
      // Killed by the limit, not before it (how long the kill takes is a benchmark's business, not a test's).
      assert.ok(r.durationMs >= SHORT.timeoutMs * 0.9, `ran ${r.durationMs} ms of its ${SHORT.timeoutMs} ms`);
    });

    it('stops a memory hog', async function () {
      this.timeout(40_000); // two runs of up to 8 s each, slower on a loaded machine (QuickJS is an interpreter)
      const code = js
        ? 'const keep = []; for (;;) keep.push(new Array(1e5).fill(Math.random()));'
        : 'keep = []\nwhile True:\n    keep.append(bytearray(10 ** 7))';
      const r = await run(code, { timeoutMs: 8000, memoryMb: 96 });
      assert.equal(r.outcome, 'error', JSON.stringify(r.error));
      assert.equal(r.killedBy, 'memory', JSON.stringify(r));
      assert.equal(r.answer, null);
      if (js) {
        // Binary buffers count against the same capped WebAssembly memory.
        const buffers = await run('const keep = []; for (;;) keep.push(new Uint8Array(2e7).fill(1));', { timeoutMs: 8000, memoryMb: 64 });
        assert.equal(buffers.killedBy, 'memory', JSON.stringify(buffers.error));
        assert.equal(buffers.outcome, 'error');
      }
    });

    it('refuses a file write outside the working dir (Python: allows one inside)', async () => {
      const target = path.join(os.tmpdir(), `agent-memory-escape-${process.pid}-${language}.txt`);
      fs.rmSync(target, { force: true });
      const outside = await run(
        js
          ? `require('fs').writeFileSync(${JSON.stringify(target)}, 'x'); answer = 'wrote'`
          : `open(${JSON.stringify(target)}, 'w').write('x')\nanswer = 'wrote'`,
      );
      assert.equal(outside.outcome, 'error');
      assert.match(outside.error?.kind ?? '', js ? /ReferenceError/ : /PermissionError/);
      assert.equal(outside.error?.line, 1);
      assert.equal(fs.existsSync(target), false);
      if (js) return; // JavaScript has no file access at all
      const inside = await run("open('scratch.txt', 'w').write('kept')\nanswer = open('scratch.txt').read()");
      assert.equal(inside.outcome, 'success', JSON.stringify(inside.error));
      assert.equal(inside.answer, 'kept');
    });

    it('refuses to spawn a process', async () => {
      const marker = path.join(os.tmpdir(), `agent-memory-spawned-${process.pid}-${language}`);
      fs.rmSync(marker, { force: true });
      const attempts = js
        ? [
            `require('child_process').execSync('touch ${marker}')`,
            `require('child_process').spawnSync('/bin/sh', ['-c', 'touch ${marker}'])`,
            `new (require('worker_threads').Worker)('1', { eval: true })`,
          ]
        : [
            `import subprocess\nsubprocess.run(['touch', '${marker}'])`,
            `import os\nos.system('touch ${marker}')`,
            `import os\npid = os.fork()`,
          ];
      for (const code of attempts) {
        const r = await run(code);
        assert.equal(r.outcome, 'error', code);
        assert.match(r.error?.kind ?? '', js ? /ReferenceError/ : /PermissionError/, `${code}: ${JSON.stringify(r.error)}`);
      }
      assert.equal(fs.existsSync(marker), false);
    });

    it('truncates huge output and kills the writer', async () => {
      const r = await run(js ? "for (;;) console.log('x'.repeat(1000))" : "while True:\n    print('x' * 1000)", {
        timeoutMs: 8000,
        outputBytes: 4096,
      });
      assert.equal(r.truncated, true);
      assert.equal(r.killedBy, 'output');
      assert.equal(r.outcome, 'error');
      assert.ok(Buffer.byteLength(r.stdout) + Buffer.byteLength(r.stderr) <= 4096);
      assert.ok(r.stdout.startsWith('xxxx'));
    });

    it('is cancelled through an AbortSignal', async () => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 300);
      const r = await run(js ? 'while (true) {}' : 'while True:\n    pass', { timeoutMs: 20_000 }, controller.signal);
      assert.equal(r.killedBy, 'cancel', 'cancelled, not timed out: the 20 s limit never fired');
      assert.equal(r.outcome, 'error');
    });

    it('still runs normally after all of the above (the host survived)', async () => {
      const r = await run('answer = sql("select count(*) from patients")');
      assert.equal(r.outcome, 'success', JSON.stringify(r.error));
      assert.deepEqual(r.answer, [[100]]);
    });
  });
}

describe('javascript runner: runaway SQL', function () {
  this.timeout(15_000);
  it('kills a never-ending query with the run, then serves the next query', async () => {
    const runner = createRunner('javascript');
    try {
      const endless = await runner.run({
        language: 'javascript',
        databasePath: DB,
        limits: SHORT,
        code: "answer = sql('with recursive c(x) as (select 1 union all select x + 1 from c) select count(*) from c')",
      });
      assert.equal(endless.outcome, 'timeout');
      const next = await runner.run({ language: 'javascript', databasePath: DB, code: "answer = sql('select count(*) from admissions')" });
      assert.equal(next.outcome, 'success', JSON.stringify(next.error));
      assert.equal(typeof (next.answer as number[][])[0][0], 'number');
    } finally {
      runner.dispose();
    }
  });
});
