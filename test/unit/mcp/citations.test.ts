import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { nullLogger } from '../../../src/core/logger';
import { openToolMemory, type ToolMemory } from '../../../src/mcp/tool-memory';

const client = { via: 'mcp' as const, name: 'test' };
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

describe('memory_record citations, checked just in time by memory_search', () => {
  let dir: string;
  let memory: ToolMemory;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-cite-'));
    memory = openToolMemory({ databasePath: path.join(dir, 'memory.sqlite'), addition: 'all', logger: nullLogger });
  });
  afterEach(async () => {
    await memory.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('flags a record whose cited file changed, then vanished; a record whose files are as recorded has no warning', async () => {
    const file = path.join(dir, 'parse.go');
    fs.writeFileSync(file, 'package csv // v1');
    const recorded = await memory.tools.record({ question: 'sum the second CSV column in Go', code: 'func total() int { return 0 }', language: 'go', outcome: 'success', citations: [{ path: file, sha256: sha('package csv // v1') }] }, client);
    assert.equal(recorded.status, 'active');
    const hit = async () => (await memory.tools.search({ query: 'sum the second CSV column in Go' }, client)).results.find((r) => r.id === recorded.id)!;
    assert.deepEqual((await hit()).citations, [{ path: file, status: 'unchanged' }]);
    assert.equal((await hit()).warning, undefined);

    fs.writeFileSync(file, 'package csv // v2');
    assert.deepEqual((await hit()).citations, [{ path: file, status: 'changed' }]);
    assert.match((await hit()).warning ?? '', /may be out of date.*parse\.go \(changed\)/);

    fs.rmSync(file);
    assert.deepEqual((await hit()).citations, [{ path: file, status: 'missing' }]);
    assert.match((await hit()).warning ?? '', /parse\.go \(missing\)/);
  });

  it('refuses a citation without a SHA-256, naming the field, and writes nothing', async () => {
    await assert.rejects(
      () => memory.tools.record({ question: 'q', code: 'x', language: 'go', outcome: 'success', citations: [{ path: 'a.go', sha256: 'abc' }] }, client),
      /citations\.0\.sha256: sha256 must be the 64-hex-digit SHA-256.*Nothing was written/,
    );
    assert.equal(memory.store.counts().active, 0);
  });
});
