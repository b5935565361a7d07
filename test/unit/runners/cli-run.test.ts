import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cliRun, DEMO_DB } from '../security/attack-support';

describe('agent-memory run', function () {
  this.timeout(60_000);

  it('prints usage for --help and exits 0', async () => {
    const r = await cliRun(['--help'], {});
    assert.equal(r.code, 0);
    assert.match(r.output, /^Usage: agent-memory run --language python\|javascript --db FILE --code-file FILE/);
  });

  it('runs a program in the sandbox and prints the result as JSON; a failing run exits 1', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-memory-cli-run-'));
    try {
      const ok = path.join(dir, 'ok.py');
      fs.writeFileSync(ok, 'print("hello")\nanswer = sql("select count(*) from patients")\n');
      const r = await cliRun(['--language', 'python', '--db', DEMO_DB, '--code-file', ok, '--json'], {});
      assert.equal(r.code, 0, r.output);
      const result = JSON.parse(r.output.trim().split('\n').pop() ?? '') as { outcome: string; answer: unknown; stdout: string };
      assert.equal(result.outcome, 'success');
      assert.deepEqual(result.answer, [[100]]);
      assert.equal(result.stdout, 'hello\n');
      const bad = path.join(dir, 'bad.js');
      fs.writeFileSync(bad, 'while (true) {}\n');
      const t = await cliRun(['--language', 'javascript', '--db', DEMO_DB, '--code-file', bad, '--timeout-ms', '500'], {});
      assert.equal(t.code, 1, t.output);
      assert.match(t.output, /^outcome: timeout/m);
      const missing = await cliRun(['--language', 'ruby', '--db', DEMO_DB, '--code-file', bad], {});
      assert.equal(missing.code, 2, 'an invalid argument is a usage error (exit code 2)');
      assert.match(missing.output, /--language/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
