import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createRunner } from '../../../src/core/agent/runners';
import { checkSandbox } from '../../../src/core/agent/runners/python-sandbox';
import { isAgentMemoryError } from '../../../src/core/errors';

const DB = path.resolve(__dirname, '../../../data/ehr/mimic3-demo.sqlite');

describe('python isolation', function () {
  this.timeout(30_000);

  it('refuses to run when the sandbox cannot be set up, naming the cause and the setting', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-memory-isolation-'));
    try {
      await assert.rejects(checkSandbox({ executable: path.join(dir, 'no-such-python'), prefixes: [] }, dir), (e: unknown) =>
        isAgentMemoryError(e, 'RUNNER') && /could not set up the sandbox/.test(e.message) && /agentMemory\.runner\.isolation/.test(e.message),
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('sandboxed by default: the program sees an empty environment and none of the host filesystem', async () => {
    const runner = createRunner('python');
    try {
      const r = await runner.run({ language: 'python', databasePath: DB, code: "import os\nanswer = [sorted(os.environ), os.path.exists('/etc'), os.path.exists(" + JSON.stringify(DB) + '), os.getcwd()]' });
      assert.equal(r.outcome, 'success', JSON.stringify(r.error));
      const [env, etc, db, cwd] = r.answer as [string[], boolean, boolean, string];
      assert.deepEqual(env.filter((k) => !['HOME', 'LANG', 'LC_ALL', 'LC_CTYPE', 'PWD', 'TMPDIR', 'TZ'].includes(k)), []);
      assert.equal(etc, false);
      assert.equal(db, false);
      assert.equal(cwd, '/sandbox');
    } finally {
      runner.dispose();
    }
  });

  it('isolation "none" runs unconfined (the opt-in the setting documents)', async () => {
    const runner = createRunner('python', { isolation: 'none' });
    try {
      const r = await runner.run({ language: 'python', databasePath: DB, code: "import os\nanswer = os.path.exists('/etc')" });
      assert.equal(r.outcome, 'success', JSON.stringify(r.error));
      assert.equal(r.answer, true);
    } finally {
      runner.dispose();
    }
  });
});
