/**
 * Importing a JSONL file in batches with a checkpoint (in process, real SQLite files): the file is
 * read in blocks with every line and byte offset right across block edges, a stopped import leaves
 * exactly its committed batches and a checkpoint naming the next line, and resuming from it
 * imports the rest once; the checkpoint goes away with the import's last transaction.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isAgentMemoryError } from '../../../src/core/errors';
import { fileIdentity, IMPORT_CHECKPOINT_META, readImportCheckpoint } from '../../../src/core/memory/io/import-checkpoint';
import { checkJsonlFile, writeJsonlFile } from '../../../src/core/memory/io/jsonl-file-import';
import { jsonlFileLines } from '../../../src/core/memory/io/jsonl-file-lines';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';

const line = (id: string) => JSON.stringify({ id, question: `question ${id}?`, execution: { code: 'answer = 1', language: 'python', outcome: 'success' }, status: 'active', provenance: 'import', createdTask: 0, createdAt: '2024-01-01T00:00:00.000Z' });
const lines = (n: number, prefix = 'r') => Array.from({ length: n }, (_, i) => line(`${prefix}-${i + 1}`));

describe('JSONL file import in batches with a checkpoint', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-file-import-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads lines and their end offsets right whatever the block size, from the start or from an offset', () => {
    const file = path.join(dir, 'a.jsonl');
    const text = 'a\r\n\nbbb\nccccccccccccccccc\né\nlast';
    fs.writeFileSync(file, text);
    const expected = text.split('\n');
    for (const block of [1, 2, 3, 7, 64, 4096]) {
      const got = [...jsonlFileLines(file, 0, 0, block)];
      assert.deepEqual(got.map((l) => l.bytes.toString('utf8')), expected, `block ${block}`);
      assert.deepEqual(got.map((l) => l.lineNo), expected.map((_, i) => i + 1));
      // Each line's `next` is where the following line starts: reading from there gives the rest.
      for (const l of got) {
        const rest = [...jsonlFileLines(file, l.next, l.lineNo, block)].map((x) => x.bytes.toString('utf8'));
        assert.deepEqual(rest, expected.slice(l.lineNo), `block ${block} after line ${l.lineNo}`);
      }
    }
  });

  it('a stopped import keeps whole batches and a checkpoint; resuming imports each remaining line once and removes it', async () => {
    const file = path.join(dir, 'in.jsonl');
    const input = lines(1050);
    fs.writeFileSync(file, input.join('\n') + '\n');
    const store = MemoryStore.open(path.join(dir, 'm.sqlite'));
    let batches = 0;
    const first = await writeJsonlFile(store, checkJsonlFile(file), { reason: 'test', vectors: 'keep', batchLines: 100, shouldStop: () => ++batches === 3 });
    assert.deepEqual(first, { imported: 300, redacted: 0, line: 300, stopped: true });
    assert.equal(store.counts().active, 300);
    const checkpoint = readImportCheckpoint(store)!;
    assert.equal(checkpoint.line, 300);
    assert.equal(checkpoint.imported, 300);
    assert.equal(checkpoint.identity, fileIdentity(file));
    assert.equal(checkpoint.offset, Buffer.byteLength(input.slice(0, 300).join('\n') + '\n'));

    const rest = checkJsonlFile(file, { from: checkpoint });
    assert.equal(rest.valid, 750);
    const second = await writeJsonlFile(store, rest, { reason: 'test', vectors: 'keep', batchLines: 100, before: checkpoint });
    assert.deepEqual(second, { imported: 750, redacted: 0, line: 1050, stopped: false });
    const ids = store.list({ status: 'active', sort: 'recency', limit: 5000 }).items.map((r) => r.id).sort();
    assert.deepEqual(ids, input.map((l) => (JSON.parse(l) as { id: string }).id).sort());
    assert.equal(store.getMeta(IMPORT_CHECKPOINT_META), undefined, 'the completed import leaves no checkpoint');
    store.close();
  });

  it('checks the whole file before writing: a bad line, a duplicate id or an id already stored write nothing', async () => {
    const file = path.join(dir, 'bad.jsonl');
    const store = MemoryStore.open(path.join(dir, 'm.sqlite'));
    fs.writeFileSync(file, [...lines(500), '{oops', ...lines(10, 's')].join('\n'));
    assert.throws(() => checkJsonlFile(file), (e: unknown) => isAgentMemoryError(e, 'IMPORT') && /Line 501: not valid JSON/.test(e.message));
    assert.equal(checkJsonlFile(file, { skipInvalid: true }).valid, 510);
    fs.writeFileSync(file, [...lines(500), line('r-7')].join('\n'));
    assert.throws(() => checkJsonlFile(file), /Record 501 \(id 'r-7'\): duplicate id in the file \(also record 7\)/);
    fs.writeFileSync(file, lines(3, 'x').join('\n'));
    await writeJsonlFile(store, checkJsonlFile(file), { reason: 'test', vectors: 'keep' });
    fs.writeFileSync(file, [...lines(500), line('x-2')].join('\n'));
    await assert.rejects(writeJsonlFile(store, checkJsonlFile(file), { reason: 'test', vectors: 'keep', batchLines: 10 }), /already exist in this memory \(first: 'x-2'\)/);
    assert.equal(store.counts().active, 3, 'nothing of the second file was written');
    assert.equal(readImportCheckpoint(store), undefined);
    store.close();
  });

  it("a file's identity changes when it is edited, even keeping its size", () => {
    const file = path.join(dir, 'id.jsonl');
    fs.writeFileSync(file, lines(10).join('\n'));
    const before = fileIdentity(file);
    assert.equal(fileIdentity(file), before);
    const stat = fs.statSync(file);
    fs.writeFileSync(file, lines(10).join('\n').replace('r-1"', 'r-9"'));
    fs.utimesSync(file, stat.atime, stat.mtime);
    assert.equal(fs.statSync(file).size, stat.size);
    assert.notEqual(fileIdentity(file), before);
  });
});
