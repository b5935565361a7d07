import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { COMMANDS } from '../../../src/cli/commands';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const TSX = path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');

function cli(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [TSX, path.join(ROOT, 'src', 'cli', 'main.ts'), ...args], { encoding: 'utf8', cwd: ROOT });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('CLI: --help on every subcommand (real child processes)', function () {
  this.timeout(120_000);

  it('documents the commands and the exit codes in agent-memory --help', () => {
    const r = cli('--help');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^Usage: agent-memory <command>/);
    for (const name of Object.keys(COMMANDS)) assert.match(r.stdout, new RegExp(`^  ${name} `, 'm'));
    assert.match(r.stdout, /Exit codes:\n {2}0 {2}success\n {2}1 {2}.+\n {2}2 {2}usage error/);
  });

  for (const name of Object.keys(COMMANDS)) {
    it(`${name} --help exits 0 with a usage line`, () => {
      const r = cli(name, '--help');
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, new RegExp(`^Usage: agent-memory ${name}\\b`));
    });
  }

  it('redacts a secret an error message quotes (stderr is a log like any other)', () => {
    const key = 'sk-proj-' + 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd';
    const r = cli('export', '--db', path.join(ROOT, 'no-such-dir', key, 'memory.sqlite'));
    assert.equal(r.status, 1);
    assert.match(r.stderr, /NOT_FOUND: No memory database at .*\[redacted:openai-key\]/);
    assert.ok(!r.stderr.includes(key) && !r.stdout.includes(key), 'the key never reaches the terminal');
  });

  it('answers an unknown option or command with exit code 2 and the usage on stderr', () => {
    const option = cli('export', '--bogus');
    assert.equal(option.status, 2);
    assert.match(option.stderr, /Unknown option '--bogus'[\s\S]*Usage: agent-memory export/);
    assert.equal(option.stdout, '');
    const twice = cli('re-embed', '--db', 'a', '--db', 'b');
    assert.equal(twice.status, 2);
    assert.match(twice.stderr, /given twice/);
    assert.match(cli('version', '-h').stdout, /^Usage: agent-memory version/);
    assert.equal(cli('frobnicate').status, 2);
    assert.equal(cli().status, 2);
  });
});
