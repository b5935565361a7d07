import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isAgentMemoryError } from '../../../src/core/errors';
import { exportJsonl, importJsonl } from '../../../src/core/memory/io/jsonl';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { MemoryRecord } from '../../../src/core/memory/types';
import { sampleRecord, unitVector } from '../../support/records';

const REPO = path.resolve(__dirname, '..', '..', '..');

function exportText(store: MemoryStore, options = {}): string {
  let text = '';
  exportJsonl(store, (line) => (text += line), options);
  return text;
}

/** Every field export carries (stats and updatedAt are not part of the format). */
function portable(r: MemoryRecord) {
  return { id: r.id, question: r.question, execution: r.execution, status: r.status, provenance: r.provenance, createdTask: r.createdTask, createdAt: r.createdAt, metadata: r.metadata, embedderId: r.embedderId, embeddingDim: r.embeddingDim };
}

function fillVaried(store: MemoryStore): void {
  store.add(
    [
      sampleRecord({ id: 'plain', provenance: 'user', createdTask: 3, metadata: { template: 't1', nested: { a: [1, 'x'] } } }),
      sampleRecord({ id: 'pend', status: 'pending', provenance: 'agent', createdTask: 9 }),
    ],
    { trigger: 'user' },
  );
  store.add(
    [
      {
        id: 'full',
        question: 'what was the last heart rate of patient 3125?',
        execution: { code: 'answer = 1', language: 'javascript', outcome: 'error', answer: { rows: [[1, null]] }, outputExcerpt: 'Traceback…', demonstrationIds: ['plain', 'pend'], inputSimilarity: -0.25, outputSimilarity: 0.75 },
        status: 'active',
        provenance: 'seed',
        createdTask: 12,
        createdAt: '2024-03-01T10:00:00.000Z',
        metadata: { template: 't2' },
      },
      sampleRecord({ id: 'gone', createdTask: 4 }),
    ],
    { trigger: 'agent', embeddings: [unitVector(1, 32), unitVector(2, 32)], embedderId: 'hash-test-32' },
  );
  store.transition(['gone'], 'delete', { trigger: 'user' });
}

describe('JSONL import/export', () => {
  it('round-trips every field, embeddings included, into a fresh store', () => {
    const a = MemoryStore.open(':memory:');
    fillVaried(a);
    const text = exportText(a);
    assert.equal(text.trim().split('\n').length, 4);
    const b = MemoryStore.open(':memory:');
    assert.deepEqual(importJsonl(b, text), { imported: 4, redacted: 0, skipped: [] });
    for (const id of ['plain', 'pend', 'full', 'gone']) {
      assert.deepEqual(portable(b.require(id)), portable(a.require(id)), id);
      const ea = a.getEmbedding(id);
      const eb = b.getEmbedding(id);
      assert.deepEqual(eb && Buffer.from(eb.buffer), ea && Buffer.from(ea.buffer), `embedding of ${id}`);
    }
    assert.deepEqual(b.embedder, { id: 'hash-test-32', dimension: 32 });
    // Only the active record with a vector is in the vector index.
    assert.deepEqual(b.vectors.candidates(unitVector(1, 32), 10), [b.ridOf('full')]);
    // Re-exporting the copy gives the same lines (order may differ: records without vectors are written first).
    assert.deepEqual(exportText(b).split('\n').sort(), text.split('\n').sort());
    a.close();
    b.close();
  });

  it('writes an audit entry with trigger import for every record', () => {
    const a = MemoryStore.open(':memory:');
    fillVaried(a);
    const b = MemoryStore.open(':memory:');
    importJsonl(b, exportText(a), { reason: 'restore' });
    const entries = b.audit();
    assert.equal(entries.length, 4);
    assert.ok(entries.every((e) => e.operation === 'import' && e.trigger === 'import' && e.reason === 'restore'));
    a.close();
    b.close();
  });

  it('filters the export by status', () => {
    const a = MemoryStore.open(':memory:');
    fillVaried(a);
    const ids = exportText(a, { status: ['active'] }).trim().split('\n').map((l) => (JSON.parse(l) as { id: string }).id);
    assert.deepEqual(ids.sort(), ['full', 'plain']);
    a.close();
  });

  it('reports an invalid line with its number and field, and writes nothing', () => {
    const a = MemoryStore.open(':memory:');
    fillVaried(a);
    const lines = exportText(a).trim().split('\n');
    const bad = JSON.parse(lines[2]) as { execution: { outcome: string } };
    bad.execution.outcome = 'exploded';
    lines[2] = JSON.stringify(bad);
    const b = MemoryStore.open(':memory:');
    assert.throws(
      () => importJsonl(b, lines.join('\n')),
      (e: unknown) => isAgentMemoryError(e, 'IMPORT') && /^Line 3: field 'execution.outcome'/.test(e.message) && /Nothing was imported/.test(e.message),
    );
    assert.throws(() => importJsonl(b, lines[0] + '\n{not json\n'), /Line 2: not valid JSON/);
    // The parser quotes the line: a terminal escape in it is shown escaped, never sent raw to a toast or terminal.
    assert.throws(() => importJsonl(b, '\u0001\u001b[2Jhello\u0007\n'), (e: unknown) => e instanceof Error && e.message.includes('\\u001b[2J') && !/[\u0000-\u001f]/.test(e.message));
    assert.deepEqual(b.counts(), { pending: 0, active: 0, deleted: 0 });
    assert.equal(b.audit().length, 0);
    a.close();
    b.close();
  });

  it('refuses ids that already exist and vectors of another embedder, writing nothing', () => {
    const a = MemoryStore.open(':memory:');
    fillVaried(a);
    const text = exportText(a);
    const b = MemoryStore.open(':memory:');
    b.add([sampleRecord({ id: 'plain' })], { trigger: 'user' });
    assert.throws(() => importJsonl(b, text), /already exist/);
    assert.equal(b.counts().active, 1);
    const c = MemoryStore.open(':memory:');
    c.add([sampleRecord({ id: 'x' })], { trigger: 'user', embeddings: [unitVector(3, 32)], embedderId: 'other-embedder' });
    assert.throws(() => importJsonl(c, text), (e: unknown) => isAgentMemoryError(e, 'EMBEDDER_MISMATCH'));
    assert.equal(c.counts().active + c.counts().pending + c.counts().deleted, 1);
    for (const s of [a, b, c]) s.close();
  });

  it('CLI: export to stdout, then import into a fresh database', function () {
    this.timeout(30_000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jsonl-cli-'));
    try {
      const src = path.join(dir, 'a.sqlite');
      const a = MemoryStore.open(src);
      fillVaried(a);
      const expected = exportText(a);
      a.close();
      const cli = (args: string[]) => spawnSync(process.execPath, ['--require', 'tsx/cjs', path.join(REPO, 'src', 'cli', 'main.ts'), ...args], { cwd: REPO, encoding: 'utf8' });
      const out = cli(['export', '--db', src]);
      assert.equal(out.status, 0, out.stderr);
      assert.equal(out.stdout, expected);
      const file = path.join(dir, 'out.jsonl');
      fs.writeFileSync(file, out.stdout);
      const dst = path.join(dir, 'b.sqlite');
      const imp = cli(['import', file, '--db', dst]);
      assert.equal(imp.status, 0, imp.stderr);
      assert.match(imp.stdout, /imported 4 record/);
      const b = MemoryStore.open(dst);
      assert.deepEqual(b.counts(), { pending: 1, active: 2, deleted: 1 });
      b.close();
      fs.writeFileSync(file, out.stdout.replace('"question":"what was the last heart rate of patient 3125?"', '"question":""'));
      const bad = cli(['import', file, '--db', path.join(dir, 'c.sqlite')]);
      assert.equal(bad.status, 1);
      assert.match(bad.stderr, /Line 3: field 'question'/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
