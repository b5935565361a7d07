import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { perFileVersion } from '../../../src/core/data/per-file-version';

describe('perFileVersion (a value kept while its file stays the same)', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'per-file-version-'));
    file = path.join(dir, 'data.bin');
    fs.writeFileSync(file, 'one');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('computes once per file version: again when the file changes', () => {
    let calls = 0;
    const sizeOf = perFileVersion((_file, size) => (calls++, size));
    assert.equal(sizeOf(file), 3);
    assert.equal(sizeOf(file), 3);
    assert.equal(calls, 1);
    fs.writeFileSync(file, 'three');
    assert.equal(sizeOf(file), 5);
    assert.equal(calls, 2);
  });

  it('keeps nothing after a throw, nor after a rejected promise: the next call tries again', async () => {
    let calls = 0;
    const flaky = perFileVersion(() => {
      calls++;
      if (calls === 1) throw new Error('busy');
      return calls === 2 ? Promise.reject(new Error('worker died')) : Promise.resolve('values');
    });
    assert.throws(() => flaky(file), /busy/);
    await assert.rejects(flaky(file), /worker died/);
    // The same promise while it is pending is shared; once it rejected, a new call reads again.
    assert.equal(await flaky(file), 'values');
    assert.equal(await flaky(file), 'values');
    assert.equal(calls, 3);
  });
});
