import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isAgentMemoryError } from '../../../src/core/errors';
import { exportJsonl, importJsonl, JSONL_LIMITS } from '../../../src/core/memory/io/jsonl';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { sampleRecord, unitVector } from '../../support/records';

const REPO = path.resolve(__dirname, '..', '..', '..');
const cli = (args: string[]) => spawnSync(process.execPath, ['--require', 'tsx/cjs', path.join(REPO, 'src', 'cli', 'main.ts'), ...args], { cwd: REPO, encoding: 'utf8' });

function exportText(store: MemoryStore, status?: ('pending' | 'active' | 'deleted')[]): string {
  let text = '';
  exportJsonl(store, (line) => (text += line), status ? { status } : {});
  return text;
}

/** pending, active, rejected (deleted from pending), deleted (from active), mixed vectors, every provenance. */
function lifecycleStore(): MemoryStore {
  const store = MemoryStore.open(':memory:');
  store.add([sampleRecord({ id: 'p1', status: 'pending', provenance: 'agent', createdTask: 5 }), sampleRecord({ id: 'rej', status: 'pending', provenance: 'agent', createdTask: 6 })], { trigger: 'agent' });
  store.add([sampleRecord({ id: 'a1', provenance: 'seed', createdAt: '2024-01-01T00:00:00.000Z' }), sampleRecord({ id: 'del', provenance: 'user' })], { trigger: 'user', embeddings: [unitVector(1), unitVector(2)], embedderId: 'h16' });
  store.add([sampleRecord({ id: 'imp', provenance: 'import' })], { trigger: 'user' });
  store.transition(['rej'], 'reject', { trigger: 'user' });
  store.transition(['del'], 'delete', { trigger: 'user' });
  return store;
}

const bytesOf = (lines: string[]) => Buffer.from(lines.join('\n') + '\n', 'utf8');
const line = (over: Record<string, unknown> = {}) => JSON.stringify({ id: 'x', question: 'how many?', execution: { code: 'answer = 1', language: 'python', outcome: 'success' }, status: 'active', provenance: 'import', createdTask: 0, createdAt: '2026-01-01T00:00:00.000Z', metadata: {}, ...over });

describe('JSONL fidelity and import validation', function () {
  this.timeout(60_000);

  it('round trip keeps status, statusBeforeDelete, createdAt, updatedAt and provenance, byte for byte', () => {
    const a = lifecycleStore();
    const text = exportText(a);
    const b = MemoryStore.open(':memory:');
    importJsonl(b, text);
    assert.equal(exportText(b), text, 'export → import → export is byte-identical');
    for (const id of ['p1', 'rej', 'a1', 'del', 'imp']) {
      const [x, y] = [a.require(id), b.require(id)];
      assert.deepEqual([y.status, y.provenance, y.createdAt, y.updatedAt], [x.status, x.provenance, x.createdAt, x.updatedAt], id);
    }
    assert.equal(JSON.parse(text.split('\n')[1]).statusBeforeDelete, 'pending');
    a.close();
    b.close();
  });

  it('a rejected record restores to pending after export → import (the human gate holds); a deleted active one to active', () => {
    const a = lifecycleStore();
    const b = MemoryStore.open(':memory:');
    importJsonl(b, exportText(a));
    const [rej, del] = b.transition(['rej', 'del'], 'restore', { trigger: 'user' });
    assert.equal(rej.status, 'pending');
    assert.equal(del.status, 'active');
    a.close();
    b.close();
  });

  it('a deleted record from an older export (no statusBeforeDelete) restores to pending, never straight to active', () => {
    const b = MemoryStore.open(':memory:');
    importJsonl(b, line({ id: 'old', status: 'deleted' }));
    assert.equal(b.transition(['old'], 'restore', { trigger: 'user' })[0].status, 'pending');
    b.close();
  });

  it('export --status accepts every status (alone and combined)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-export-'));
    try {
      const file = path.join(dir, 'm.sqlite');
      const a = lifecycleStore();
      a.connectionForQueries().prepare('VACUUM INTO ?').run(file);
      a.close();
      const ids = (status: string) => {
        const out = cli(['export', '--db', file, '--status', status]);
        assert.equal(out.status, 0, out.stderr);
        return out.stdout.trim().split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { id: string }).id).sort();
      };
      assert.deepEqual(ids('pending'), ['p1']);
      assert.deepEqual(ids('active'), ['a1', 'imp']);
      assert.deepEqual(ids('deleted'), ['del', 'rej']);
      assert.deepEqual(ids('pending,active,deleted'), ['a1', 'del', 'imp', 'p1', 'rej']);
      const bad = cli(['export', '--db', file, '--status', 'rejected']);
      assert.equal(bad.status, 2, 'an invalid option value is a usage error (exit 2)');
      assert.match(bad.stderr, /--status/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  const invalid: { name: string; input: Buffer; line: number; field: string; message: RegExp }[] = [
    { name: 'invalid UTF-8', input: Buffer.concat([bytesOf([line({ id: 'ok1' })]), Buffer.from('{"id":"bad","question":"how many \xff\xfe?"'.split('').map((c) => c.charCodeAt(0))), Buffer.from(line().slice(line().indexOf(',"execution"')) + '\n')]), line: 2, field: 'question', message: /invalid UTF-8/ },
    { name: 'control character in an id', input: bytesOf([line({ id: 'a\u0007b' })]), line: 1, field: 'id', message: /control characters/ },
    { name: 'path separator in an id', input: bytesOf([line({ id: 'ok' }), line({ id: '../../etc/passwd' })]), line: 2, field: 'id', message: /path separators/ },
    { name: 'oversized code', input: bytesOf([line({ execution: { code: 'x'.repeat(JSONL_LIMITS.codeChars + 1), language: 'python', outcome: 'success' } })]), line: 1, field: 'execution.code', message: /at most 100000/ },
    { name: 'oversized metadata', input: bytesOf([line({ metadata: { blob: 'm'.repeat(JSONL_LIMITS.metadataJsonChars) } })]), line: 1, field: 'metadata', message: /over the cap/ },
    { name: 'oversized answer', input: bytesOf([line({ execution: { code: 'a', language: 'python', outcome: 'success', answer: ['z'.repeat(JSONL_LIMITS.answerJsonChars)] } })]), line: 1, field: 'execution.answer', message: /over the cap/ },
    { name: 'statusBeforeDelete on a live record', input: bytesOf([line({ statusBeforeDelete: 'pending' })]), line: 1, field: 'statusBeforeDelete', message: /only valid for a deleted record/ },
  ];
  for (const c of invalid) {
    it(`refuses ${c.name} with its line and field, writing nothing`, () => {
      const store = MemoryStore.open(':memory:');
      assert.throws(
        () => importJsonl(store, c.input),
        (e: unknown) => isAgentMemoryError(e, 'IMPORT') && e.message.startsWith(`Line ${c.line}: field '${c.field}':`) && c.message.test(e.message) && /Nothing was imported/.test(e.message),
      );
      assert.deepEqual(store.counts(), { pending: 0, active: 0, deleted: 0 });
      assert.equal(store.audit().length, 0);
      store.close();
    });
  }

  it('CLI: a failed import creates no database file and exits 1 with the line and field', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-import-'));
    try {
      const file = path.join(dir, 'in.jsonl');
      fs.writeFileSync(file, bytesOf([line({ id: 'fine' }), line({ id: 'bad/id' })]));
      const db = path.join(dir, 'never.sqlite');
      const out = cli(['import', file, '--db', db]);
      assert.equal(out.status, 1);
      assert.match(out.stderr, /Line 2: field 'id'/);
      assert.deepEqual(fs.readdirSync(dir), ['in.jsonl']);
      const help = cli(['import', '--help']);
      assert.equal(help.status, 0);
      assert.match(help.stdout, /^Usage: agent-memory import /);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
