import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { nullLogger } from '../../../src/core/logger';
import { MAX_CITED_FILE_BYTES } from '../../../src/core/tools/citations';
import { openToolMemory, type ToolMemory } from '../../../src/mcp/tool-memory';

const client = { via: 'mcp' as const, name: 'test' };
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

describe('memory_record citations, checked just in time by memory_search', () => {
  let dir: string;
  let memory: ToolMemory;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-cite-'));
    memory = openToolMemory({ databasePath: path.join(dir, 'memory.sqlite'), addition: 'all', logger: nullLogger, citationRoot: dir });
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

  it('refuses a citation outside the workspace, naming it, and writes nothing', async () => {
    for (const outside of ['/etc/passwd', '../outside.txt']) {
      await assert.rejects(
        () => memory.tools.record({ question: 'q', code: 'x', language: 'go', outcome: 'success', citations: [{ path: outside, sha256: sha('') }] }, client),
        (e: unknown) => e instanceof Error && e.message.includes(`citations.0.path: ${outside} is outside the workspace`) && /Nothing was written/.test(e.message),
      );
    }
    assert.equal(memory.store.counts().active, 0);
  });

  it('never reads a pipe, a huge file or a file a link points to outside the workspace: "unchecked", and the search answers at once', async () => {
    const fifo = path.join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const big = path.join(dir, 'big.bin');
    fs.writeFileSync(big, Buffer.alloc(MAX_CITED_FILE_BYTES + 1));
    const outside = path.join(os.tmpdir(), `am-cite-outside-${process.pid}.txt`);
    fs.writeFileSync(outside, 'secret content');
    const link = path.join(dir, 'link.txt');
    fs.symlinkSync(outside, link);
    try {
      const citations = [fifo, big, link].map((p) => ({ path: p, sha256: sha('') }));
      const recorded = await memory.tools.record({ question: 'read the pipe and the big file', code: 'x', language: 'go', outcome: 'success', citations }, client);
      const started = Date.now();
      const hit = (await memory.tools.search({ query: 'read the pipe and the big file' }, client)).results.find((r) => r.id === recorded.id)!;
      assert.ok(Date.now() - started < 5000, 'the search did not wait on the pipe');
      assert.deepEqual(hit.citations, [fifo, big, link].map((p) => ({ path: p, status: 'unchecked' })));
      assert.match(hit.warning ?? '', /could not be checked/);
    } finally {
      fs.rmSync(outside, { force: true });
    }
  });
});
