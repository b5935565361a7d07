/**
 * An import with bad lines can import the good ones when asked: checkJsonl says which lines are
 * bad without writing, importJsonl({ skipInvalid }) writes the valid ones in one transaction, and
 * `agent-memory import --skip-invalid` lists each skipped line as FILE:LINE on stderr.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isAgentMemoryError } from '../../../src/core/errors';
import { checkJsonl, importJsonl } from '../../../src/core/memory/io/jsonl';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { runCli } from '../../support/team-processes';

const line = (id: string) => JSON.stringify({ id, question: `question ${id}?`, execution: { code: 'answer = 1', language: 'python', outcome: 'success' }, status: 'active', provenance: 'import', createdTask: 0, createdAt: '2024-01-01T00:00:00.000Z' });
/** Lines 1, 3 and 5 are valid; line 2 misses its question, line 4 is not JSON. */
const MIXED = [line('ok-1'), JSON.stringify({ ...(JSON.parse(line('no-question')) as object), question: undefined }), line('ok-2'), '{oops', line('ok-3')].join('\n') + '\n';

describe('JSONL import of a file with bad lines', () => {
  it('checkJsonl names each bad line and returns the valid records, writing nothing', () => {
    const { records, problems } = checkJsonl(MIXED);
    assert.deepEqual(records.map((r) => r.id), ['ok-1', 'ok-2', 'ok-3']);
    assert.equal(problems.length, 2);
    assert.match(problems[0], /^Line 2: field 'question': is missing/);
    assert.match(problems[1], /^Line 4: not valid JSON/);
  });

  it('without skipInvalid nothing is imported; with it the valid lines are, in one transaction, and the skipped ones are returned', () => {
    const store = MemoryStore.open(':memory:');
    assert.throws(() => importJsonl(store, MIXED), (e: unknown) => isAgentMemoryError(e, 'IMPORT') && e.details?.valid === 3 && e.details.lines === 2);
    assert.equal(store.counts().active, 0);
    const result = importJsonl(store, MIXED, { skipInvalid: true });
    assert.equal(result.imported, 3);
    assert.deepEqual(result.skipped.map((p) => p.slice(0, 7)), ['Line 2:', 'Line 4:']);
    assert.deepEqual(store.list({ status: 'active', sort: 'recency', limit: 10 }).items.map((r) => r.id).sort(), ['ok-1', 'ok-2', 'ok-3']);
    store.close();
  });

  it('a file with no valid line still imports nothing, even with skipInvalid', () => {
    const store = MemoryStore.open(':memory:');
    assert.throws(() => importJsonl(store, '{oops\n{"id": 1}\n', { skipInvalid: true }), (e: unknown) => isAgentMemoryError(e, 'IMPORT') && /Nothing was imported/.test(e.message));
    assert.equal(store.audit().length, 0);
    store.close();
  });

  describe('agent-memory import --skip-invalid (real child process)', function () {
    this.timeout(120_000);
    let dir: string;
    before(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-skip-invalid-'))));
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    it('without the flag refuses the file naming its lines; with it imports the 3 valid lines and lists the 2 skipped as FILE:LINE', async () => {
      const file = path.join(dir, 'mixed.jsonl');
      const db = path.join(dir, 'memory.sqlite');
      fs.writeFileSync(file, MIXED);
      const refused = await runCli(['import', file, '--db', db]);
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /Line 2: field 'question': is missing.*Line 4: not valid JSON.*Nothing was imported/s);
      assert.equal(fs.existsSync(db), false, 'a refused import into a new file leaves no database');

      const r = await runCli(['import', file, '--db', db, '--skip-invalid']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /imported 3 record\(s\)/);
      assert.ok(r.stderr.includes(`${file}:2: field 'question': is missing`), r.stderr);
      assert.ok(r.stderr.includes(`${file}:4: not valid JSON`), r.stderr);
      assert.match(r.stderr, /skipped 2 invalid line\(s\)/);
      const exported = (await runCli(['export', '--db', db])).stdout.trim().split('\n').map((l) => (JSON.parse(l) as { id: string }).id);
      assert.deepEqual(exported.sort(), ['ok-1', 'ok-2', 'ok-3']);
    });
  });
});
