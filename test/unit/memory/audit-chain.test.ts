import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { auditEntryHash, verifyAuditChain } from '../../../src/core/memory/audit-chain';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { runCli } from '../../support/team-processes';
import { sampleRecord } from '../../support/records';

describe('the audit hash chain of a SQLite memory (same chain and command as a team space)', function () {
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-chain-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const fill = (file: string): number[] => {
    const store = MemoryStore.open(file);
    try {
      store.add([1, 2, 3, 4].map((i) => sampleRecord({ id: `r${i}`, code: `answer = ${i}` })), { trigger: 'user' });
      store.transition(['r2'], 'delete', { trigger: 'user', reason: 'wrong' });
      return store.audit({ limit: 100 }).map((e) => e.id).reverse();
    } finally {
      store.close();
    }
  };
  const verify = async (file: string): Promise<{ code: number; out: unknown }> => {
    const r = await runCli(['audit', '--db', file, '--verify', '--json']);
    return { code: r.code, out: JSON.parse(r.stdout) as unknown };
  };

  it('audit --verify: ok on an untouched memory; an entry edited, deleted in the middle or at the end is named (real child process)', async () => {
    const file = path.join(dir, 'm.sqlite');
    const ids = fill(file);
    assert.equal(ids.length, 5);
    assert.deepEqual(await verify(file), { code: 0, out: { ok: true, entries: 5, first_bad: null } });
    const raw = new Database(file);
    raw.prepare("UPDATE audit SET reason = 'nothing happened' WHERE id = ?").run(ids[4]);
    raw.close();
    assert.deepEqual(await verify(file), { code: 1, out: { ok: false, entries: 5, first_bad: ids[4] } });

    const file2 = path.join(dir, 'm2.sqlite');
    const ids2 = fill(file2);
    const raw2 = new Database(file2);
    raw2.prepare('DELETE FROM audit WHERE id = ?').run(ids2[1]);
    raw2.close();
    assert.deepEqual(await verify(file2), { code: 1, out: { ok: false, entries: 4, first_bad: ids2[2] } });

    const file3 = path.join(dir, 'm3.sqlite');
    const ids3 = fill(file3);
    const raw3 = new Database(file3);
    raw3.prepare('DELETE FROM audit WHERE id = ?').run(ids3[4]);
    raw3.close();
    assert.deepEqual(await verify(file3), { code: 1, out: { ok: false, entries: 4, first_bad: ids3[4] } });
  });

  it('a tool without the hash function cannot append to the audit', () => {
    const file = path.join(dir, 'm.sqlite');
    fill(file);
    const raw = new Database(file);
    try {
      assert.throws(() => raw.prepare("INSERT INTO audit (at, operation, trigger) VALUES ('now', 'approve', 'user')").run(), /agent_memory_audit_hash/);
    } finally {
      raw.close();
    }
  });

  it('the chain is the hash of each entry and the previous hash; a field cannot shift into the next', () => {
    const base = { id: 1, space: 's', at: 't', operation: 'add', record_id: null, trigger: 'user', reason: 'a|b', evidence: '{}', actor_user: '', actor_client: '', actor_role: '', prev_hash: '' };
    const first = { ...base, hash: auditEntryHash(base) };
    assert.notEqual(auditEntryHash({ ...base, reason: 'a', evidence: 'b|{}' }), first.hash);
    assert.notEqual(auditEntryHash({ ...base, record_id: '-' }), first.hash);
    const second = { ...base, id: 2, prev_hash: first.hash };
    const rows = [first, { ...second, hash: auditEntryHash(second) }];
    assert.deepEqual(verifyAuditChain(rows), { ok: true, entries: 2, first_bad: null });
    assert.deepEqual(verifyAuditChain([rows[1]]), { ok: false, entries: 1, first_bad: 2 });
  });
});
