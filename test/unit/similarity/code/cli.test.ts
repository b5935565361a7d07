import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.join(__dirname, '..', '..', '..', '..');
const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'python-pairs.jsonl');

function cli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('npx', ['tsx', 'src/cli/main.ts', 'similarity', ...args], { cwd: ROOT, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('agent-memory similarity (CLI, child process)', function () {
  this.timeout(60000);
  let dir: string;
  let pair: { a: string; b: string; score_ab: number; score_ba: number };

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-sim-'));
    // a pair whose two directions differ, so argument order is checked too
    pair = fs.readFileSync(FIXTURE, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).find((p) => p.kind === 'insert' && p.score_ab !== p.score_ba);
    fs.writeFileSync(path.join(dir, 'a.py'), pair.a);
    fs.writeFileSync(path.join(dir, 'b.py'), pair.b);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('prints the oracle score alone in pycode_similar mode, in both directions', () => {
    const ab = cli(['--lang', 'python', '--compat', 'pycode_similar', path.join(dir, 'a.py'), path.join(dir, 'b.py')]);
    assert.equal(ab.status, 0, ab.stderr);
    assert.equal(ab.stdout, pair.score_ab.toFixed(4) + '\n');
    const ba = cli(['--lang=python', '--compat=pycode_similar', path.join(dir, 'b.py'), path.join(dir, 'a.py')]);
    assert.equal(ba.stdout, pair.score_ba.toFixed(4) + '\n');
  });

  it('fails clearly on a missing file and on bad arguments', () => {
    const missing = cli(['--lang', 'python', path.join(dir, 'a.py'), path.join(dir, 'nope.py')]);
    assert.notEqual(missing.status, 0);
    assert.equal(missing.stdout, '');
    assert.match(missing.stderr, /NOT_FOUND: No such file: .*nope\.py\. Give the candidate file with CAND_FILE\./);
    const folder = cli(['--lang', 'python', path.join(dir, 'a.py'), dir]);
    assert.equal(folder.status, 1);
    assert.match(folder.stderr, /IS_DIRECTORY: .* is a folder\. Give the candidate file with CAND_FILE\./);
    const badLang = cli(['--lang', 'not a language', path.join(dir, 'a.py'), path.join(dir, 'b.py')]);
    assert.equal(badLang.status, 2);
    assert.match(badLang.stderr, /INVALID_INPUT.*--lang/);
    const oneFile = cli(['--lang', 'python', path.join(dir, 'a.py')]);
    assert.equal(oneFile.status, 2);
    assert.match(oneFile.stderr, /REF_FILE and CAND_FILE/);
  });
});
