/**
 * Issue 38: an interrupted `bench:coldstart` left its baseline checkout `.bench-baseline/` in the
 * work tree. Its checkout now lives in a temp dir outside the tree (tempDirRemovedOnExit), removed
 * when the bench ends, fails or is interrupted. A real child process makes the dir and is then
 * interrupted (SIGINT, SIGTERM) or ends normally.
 */
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const MODULE = path.join(ROOT, 'src', 'cli', 'exit-cleanup.ts');

/** A child that makes the temp dir, writes a file into it, prints the dir, then waits (`wait`) or ends. */
function child(wait: boolean): { dir: Promise<string>; stop: (signal: NodeJS.Signals) => void; exit: Promise<number | null> } {
  const script = `const { tempDirRemovedOnExit } = require(${JSON.stringify(MODULE)});
const work = tempDirRemovedOnExit('am-exit-cleanup-');
require('node:fs').writeFileSync(require('node:path').join(work.dir, 'checkout.txt'), 'x');
console.log(work.dir);
${wait ? 'setInterval(() => undefined, 1000);' : ''}`;
  const p = spawn(process.execPath, ['--require', 'tsx/cjs', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const dir = new Promise<string>((resolve) => p.stdout.on('data', (d: Buffer) => (out += d.toString()).includes('\n') && resolve(out.trim())));
  return { dir, stop: (signal) => p.kill(signal), exit: new Promise((resolve) => p.on('close', (code) => resolve(code))) };
}

describe('temp dirs of the benches are removed however they end', function () {
  this.timeout(60_000);

  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    it(`interrupted by ${signal}: the dir is gone, exit code ${code}`, async () => {
      const c = child(true);
      const dir = await c.dir;
      assert.ok(dir.startsWith(os.tmpdir()) && !dir.startsWith(ROOT), `outside the work tree: ${dir}`);
      assert.ok(fs.existsSync(path.join(dir, 'checkout.txt')));
      c.stop(signal);
      assert.equal(await c.exit, code);
      assert.equal(fs.existsSync(dir), false);
    });
  }

  it('ending normally: the dir is gone, exit code 0', async () => {
    const c = child(false);
    const dir = await c.dir;
    assert.equal(await c.exit, 0);
    assert.equal(fs.existsSync(dir), false);
  });

  it('bench:coldstart extracts its baseline into such a dir, not into the work tree', () => {
    const source = fs.readFileSync(path.join(ROOT, 'src', 'cli', 'bench-coldstart.ts'), 'utf8');
    assert.match(source, /tempDirRemovedOnExit\('agent-memory-coldstart-'\)/);
    assert.match(source, /const oldRoot = path\.join\(work, 'baseline'\)/);
    assert.doesNotMatch(source, /path\.join\(ROOT, '\.bench-baseline'\)/);
  });
});
