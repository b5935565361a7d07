import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { workerBootstrap } from '../../../src/core/worker-script';

describe('worker bootstrap (real worker threads)', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-worker-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a worker whose entry cannot load sets its failed state itself, so a caller blocked on that slot wakes at once', async () => {
    fs.writeFileSync(path.join(dir, 'broken-worker.js'), "throw new Error('cannot load');\n");
    const shared = new SharedArrayBuffer(16);
    const state = new Int32Array(shared);
    const worker = new Worker(workerBootstrap(dir, 'broken-worker', { slot: 1, value: 2 }), { eval: true, workerData: { shared } });
    const errored = new Promise<Error>((resolve) => worker.once('error', resolve));
    const started = Date.now();
    // The main thread blocks as the keyword search does; its 'error' handler cannot run meanwhile.
    const woke = Atomics.wait(state, 1, 0, 20_000);
    const waited = Date.now() - started;
    assert.notEqual(woke, 'timed-out');
    assert.ok(waited < 10_000, `woke after ${waited} ms`);
    assert.equal(Atomics.load(state, 1), 2);
    assert.match((await errored).message, /cannot load/);
  });

  it('loads a TypeScript entry with the tsx this code was loaded with, whatever the working directory', () => {
    fs.writeFileSync(path.join(dir, 'entry.ts'), 'export {};\n');
    const code = workerBootstrap(dir, 'entry');
    assert.doesNotMatch(code, /require\('tsx\/cjs'\)/);
    assert.match(code, /require\("\/[^"]*tsx[^"]*"\);require\("[^"]*entry\.ts"\);/);
  });
});
