import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.join(__dirname, '..', '..', '..');
const SCRIPT = path.join(ROOT, 'scripts', 'check-docs-figures.mjs');
/** The figure tokens of the one-file README before it was split into docs/ (d0d8acb), written by the script's --write-tokens. */
const TOKENS = path.join(ROOT, 'test', 'fixtures', 'docs', 'readme-d0d8acb-figures.txt');

function check(args: string[]): { status: number | null; out: { tokens: number; missing: string[] } } {
  const run = spawnSync(process.execPath, [SCRIPT, ...args, '--json'], { encoding: 'utf8' });
  assert.equal(run.stderr, '');
  return { status: run.status, out: JSON.parse(run.stdout) as { tokens: number; missing: string[] } };
}

describe('no measured figure lost from the README (scripts/check-docs-figures.mjs)', () => {
  it('every figure of the old README is in README.md or docs/*.md', () => {
    const { status, out } = check(['--tokens', TOKENS]);
    assert.ok(out.tokens > 1000, `expected the old README's figures, read ${out.tokens}`);
    assert.deepEqual(out.missing, []);
    assert.equal(status, 0);
  });

  it('names a figure that is gone, and does not take it from a longer number', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-figures-'));
    try {
      fs.writeFileSync(path.join(dir, 'README.md'), 'p50 1.675 ms, RSS 852\nMB; 12.34 and 0.7590.\n');
      const tokens = path.join(dir, 'tokens.txt');
      fs.writeFileSync(tokens, ['1.675 ms', '852 MB', '2.34', '0.759', '39 min'].join('\n') + '\n');
      const { status, out } = check(['--tokens', tokens, '--root', dir]);
      assert.deepEqual(out.missing, ['2.34', '0.759', '39 min']);
      assert.equal(status, 1);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
