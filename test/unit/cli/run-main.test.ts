import { strict as assert } from 'node:assert';
import { runMain } from '../../../src/cli/run-main';
import { usageError } from '../../../src/cli/args';
import { AgentMemoryError } from '../../../src/core/errors';

describe('runMain (the bench entry points’ shared tail)', () => {
  let written: string[];
  let original: typeof process.stderr.write;
  let exitCode: typeof process.exitCode;
  beforeEach(() => {
    written = [];
    original = process.stderr.write.bind(process.stderr);
    exitCode = process.exitCode;
    process.stderr.write = ((chunk: string) => written.push(String(chunk)) > 0);
  });
  afterEach(() => {
    process.stderr.write = original;
    process.exitCode = exitCode;
  });

  const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

  it('sets the exit code main returns and prints nothing', async () => {
    runMain('bench:x', () => Promise.resolve(3));
    await settle();
    assert.equal(process.exitCode, 3);
    assert.deepEqual(written, []);
  });

  it('prints a typed error with its code and exits 1', async () => {
    runMain('bench:x', () => Promise.reject(new AgentMemoryError('INVALID_INPUT', 'Bad --seeds; pass a whole number.')));
    await settle();
    assert.equal(process.exitCode, 1);
    assert.deepEqual(written, ['bench:x: INVALID_INPUT: Bad --seeds; pass a whole number.\n']);
  });

  it('prints any other error by its message', async () => {
    runMain('bench:x', () => Promise.reject(new Error('disk full')));
    await settle();
    assert.equal(process.exitCode, 1);
    assert.deepEqual(written, ['bench:x: disk full\n']);
  });

  it('prints a usage error as one line pointing at --help and exits 2', async () => {
    runMain('bench:x', () => Promise.reject(usageError("Unknown option '--bogus'", 'Usage: npm run bench:x -- [--json]\n\nDoes x.')));
    await settle();
    assert.equal(process.exitCode, 2);
    assert.deepEqual(written, ["bench:x: Unknown option '--bogus'. See: npm run bench:x -- --help\n"]);
  });

  it('a main that throws before its first await is reported the same way', async () => {
    runMain('bench:x', () => {
      throw new Error('sync failure');
    });
    await settle();
    assert.equal(process.exitCode, 1);
    assert.deepEqual(written, ['bench:x: sync failure\n']);
  });
});
