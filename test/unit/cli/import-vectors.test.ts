import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../../support/team-processes';

interface Line {
  id: string;
  embedderId?: string;
  embedding?: number[];
}

const lines = (jsonl: string): Line[] => jsonl.trim().split('\n').map((l) => JSON.parse(l) as Line);

describe('agent-memory import of another embedder’s vectors (real child processes)', function () {
  this.timeout(180_000);
  let dir: string;
  before(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-import-vec-'))));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('recomputes them with the memory’s built-in embedder (re-fitted, one transaction) instead of refusing', async () => {
    const fitted = path.join(dir, 'fitted.sqlite');
    const synthetic = path.join(dir, 'synthetic.sqlite');
    assert.equal((await runCli(['seed', '--db', fitted, '--count', '30'])).code, 0);
    assert.equal((await runCli(['seed', '--db', synthetic, '--synthetic', '50'])).code, 0);
    const source = lines((await runCli(['export', '--db', fitted])).stdout).slice(0, 5);
    const before = lines((await runCli(['export', '--db', synthetic])).stdout);
    assert.notEqual(source[0].embedderId, before[0].embedderId, 'the two memories must start with different embedders');
    const file = path.join(dir, 'five.jsonl');
    fs.writeFileSync(file, source.map((l) => JSON.stringify(l)).join('\n') + '\n');

    const r = await runCli(['import', file, '--db', synthetic]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`imported 5 record\\(s\\) into .*; its ${source[0].embedderId!} vectors were recomputed: the memory was re-fitted and re-embedded with hash-v1-384-fit-`));
    const after = lines((await runCli(['export', '--db', synthetic])).stdout);
    assert.equal(after.length, 55);
    const ids = new Set(after.map((l) => l.embedderId));
    assert.equal(ids.size, 1, `one embedder for every record, got ${[...ids].join(', ')}`);
    assert.notEqual([...ids][0], source[0].embedderId);
    for (const id of source.map((l) => l.id)) assert.ok(after.find((l) => l.id === id)?.embedding?.length === 384, `${id} has a vector`);
  });

  it('keeps them when they come from the memory’s own embedder (a round trip stays byte for byte)', async () => {
    const a = path.join(dir, 'a.sqlite');
    const b = path.join(dir, 'b.sqlite');
    assert.equal((await runCli(['seed', '--db', a, '--count', '12'])).code, 0);
    const first = (await runCli(['export', '--db', a])).stdout;
    const file = path.join(dir, 'a.jsonl');
    fs.writeFileSync(file, first);
    const r = await runCli(['import', file, '--db', b]);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout, /recomputed/);
    assert.equal((await runCli(['export', '--db', b])).stdout, first);
  });
});
