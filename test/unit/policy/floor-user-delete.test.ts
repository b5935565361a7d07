import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isAgentMemoryError } from '../../../src/core/errors';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { planDeletion } from '../../../src/core/policy/deletion';
import { MemoryManager } from '../../../src/core/policy/memory-manager';
import type { Settings } from '../../../src/core/settings';
import { UndoHistory } from '../../../src/vscode/undo';
import { sampleRecord } from '../../support/records';
import { openApp, settingsWith, type AppHandle } from '../agent/agent-fixture';

/**
 * The memory floor (agentMemory.deletion.minActiveRecords) holds for the user's own
 * deletes too, not only for the rules (issue 9). Hand-made memory on a real SQLite file:
 * active a, b, c (created in that order) and pending p.
 */
describe('memory floor on user deletes', () => {
  let dir: string;
  let file: string;
  let store: MemoryStore;
  const managers: MemoryManager[] = [];

  function manager(minActiveRecords?: number): MemoryManager {
    const m = new MemoryManager(store, { addition: 'strict', deletionParams: minActiveRecords === undefined ? {} : { minActiveRecords } });
    managers.push(m);
    return m;
  }
  const status = (id: string): string | undefined => store.get(id)?.status;
  const deleteAudits = (id: string) => store.audit({ recordId: id }).filter((e) => e.operation === 'delete');

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-floor-'));
    file = path.join(dir, 'memory.sqlite');
    store = MemoryStore.open(file);
    store.add(
      [
        sampleRecord({ id: 'a', question: 'question a', createdTask: 0 }),
        sampleRecord({ id: 'b', question: 'question b', createdTask: 1 }),
        sampleRecord({ id: 'c', question: 'question c', createdTask: 2 }),
        sampleRecord({ id: 'p', question: 'question p', createdTask: 3, status: 'pending' }),
      ],
      { trigger: 'user' },
    );
  });
  afterEach(() => {
    for (const m of managers.splice(0)) m.dispose();
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('floor 2, delete [a, b, p]: 3 active − 2 = 1 may go → a and p deleted, b kept with a message naming it and the setting', () => {
    const r = manager(2).deleteRecords(['a', 'b', 'p'], 'deleted by the user');
    assert.deepEqual(r.deleted, ['a', 'p'], 'pending p does not count toward the floor; a is first in the order given');
    assert.deepEqual(r.kept, [{ id: 'b', question: 'question b' }]);
    assert.deepEqual(store.counts(), { active: 2, pending: 0, deleted: 2 });
    assert.equal(status('b'), 'active');
    assert.equal(status('c'), 'active');
    assert.match(r.message!, /Deleted 2 record\(s\); kept 1 active record\(s\): 'question b'\./);
    assert.match(r.message!, /agentMemory\.deletion\.minActiveRecords = 2/);
    assert.match(r.message!, /lower agentMemory\.deletion\.minActiveRecords in Settings \(0 allows an empty memory\)/);
    assert.equal(deleteAudits('b').length, 0, 'nothing is written for the kept record');
  });

  it('the deletion stays a soft delete: audited with the user as trigger, restorable to the status it had', () => {
    manager(2).deleteRecords(['a', 'b', 'p'], 'deleted by the user');
    const [audit] = deleteAudits('a');
    assert.equal(audit.trigger, 'user');
    assert.equal(audit.reason, 'deleted by the user');
    assert.deepEqual(audit.evidence, { from: 'active', to: 'deleted' });
    manager(2).restore(['a', 'p']);
    assert.equal(status('a'), 'active');
    assert.equal(status('p'), 'pending', 'a deleted pending record restores to pending');
  });

  it('the default floor (1): deleting all three active records deletes a and b and keeps c', () => {
    const r = manager().deleteRecords(['a', 'b', 'c'], 'deleted by the user');
    assert.deepEqual(r.deleted, ['a', 'b']);
    assert.deepEqual(r.kept.map((k) => k.id), ['c']);
    assert.equal(store.counts().active, 1);
    assert.match(r.message!, /minActiveRecords = 1\) keeps at least 1 active record\(s\), and deleting it would go below it/);
  });

  it('floor 0: everything the user chose goes, with no message', () => {
    const r = manager(0).deleteRecords(['a', 'b', 'c', 'p'], 'deleted by the user');
    assert.deepEqual(r, { deleted: ['a', 'b', 'c', 'p'], kept: [], message: null });
    assert.deepEqual(store.counts(), { active: 0, pending: 0, deleted: 4 });
  });

  it('at the floor, a single active delete changes nothing and says so; a pending one still goes', () => {
    const m = manager(3);
    const r = m.deleteRecords(['b'], 'deleted by the user');
    assert.deepEqual(r.deleted, []);
    assert.match(r.message!, /^Deleted nothing; kept 1 active record\(s\): 'question b'\./);
    assert.equal(status('b'), 'active');
    assert.deepEqual(m.deleteRecords(['p'], 'deleted by the user'), { deleted: ['p'], kept: [], message: null });
  });

  it('a batch with an unknown or already deleted id changes nothing (one transaction)', () => {
    const m = manager(0);
    assert.throws(() => m.deleteRecords(['a', 'nope'], 'x'), (e: unknown) => isAgentMemoryError(e, 'NOT_FOUND'));
    m.deleteRecords(['c'], 'x');
    assert.throws(() => m.deleteRecords(['a', 'c'], 'x'), (e: unknown) => isAgentMemoryError(e, 'INVALID_STATE'));
    assert.equal(status('a'), 'active');
    assert.equal(deleteAudits('a').length, 0);
  });

  it('counts the active memory at deletion time, in the same file another process writes to', () => {
    const m = manager(2);
    // Another process (its own connection on the same file) deletes c: 2 active remain.
    const other = MemoryStore.open(file);
    try {
      other.transition(['c'], 'delete', { trigger: 'user', reason: 'another window' });
    } finally {
      other.close();
    }
    const r = m.deleteRecords(['a', 'b'], 'deleted by the user');
    assert.deepEqual(r.deleted, [], '2 active, floor 2: nothing may go');
    assert.deepEqual(r.kept.map((k) => k.id), ['a', 'b']);
    assert.equal(store.counts().active, 2);
  });

  it('rules and user deletes share the floor: a periodic plan for all three keeps the newest under floor 1', () => {
    // Not retrieved in the window (t − 1, t] at t = 10: a, b and c are all periodic candidates (oldest first).
    const plan = planDeletion(store, 'periodic', 10, { period: 1, alpha: 0, minActiveRecords: 1 });
    assert.deepEqual(plan.candidates.map((c) => c.recordId), ['a', 'b']);
    assert.equal(plan.floor?.keptCount, 1);
    const applied = manager(1).apply(plan, 'user');
    assert.deepEqual(applied, { deleted: ['a', 'b'], skipped: [], floorKept: [] });
    // The user then deletes the last one: the same floor keeps it.
    assert.deepEqual(manager(1).deleteRecords(['c'], 'x').kept.map((k) => k.id), ['c']);
  });
});

describe('memory floor through the app facade and undo (the editor command path)', () => {
  let h: AppHandle;
  const withFloor = (minActiveRecords: number): Settings => {
    const s = settingsWith({ addition: { policy: 'all' } });
    return { ...s, deletion: { ...s.deletion, minActiveRecords } };
  };
  beforeEach(async () => {
    h = await openApp(withFloor(2));
    assert.equal(await h.app.seedDemoMemory(3), 3);
  });
  afterEach(() => h.dispose());

  it('app.deleteRecords on three chosen records with floor 2 deletes the first only and names the other two', () => {
    const ids = h.app.list({ status: 'active', sort: 'recency', limit: 10 }).items.map((r) => r.id);
    assert.equal(ids.length, 3);
    const r = h.app.deleteRecords(ids, 'deleted by the user');
    assert.deepEqual(r.deleted, [ids[0]]);
    assert.deepEqual(r.kept.map((k) => k.id), ids.slice(1));
    assert.ok(r.kept.every((k) => k.question.length > 0 && r.message!.includes(`'${k.question}'`)), r.message!);
    assert.deepEqual(h.app.counts(), { active: 2, pending: 0, deleted: 1 });
    // Lowering the setting lets the same delete through.
    h.app.configure(withFloor(0));
    assert.deepEqual(h.app.deleteRecords(ids.slice(1), 'deleted by the user').deleted, ids.slice(1));
    assert.equal(h.app.counts().active, 0);
  });

  it('undoing a restore deletes again within the floor and reports what it kept', () => {
    const ids = h.app.list({ status: 'active', sort: 'recency', limit: 10 }).items.map((r) => r.id);
    h.app.configure(withFloor(0));
    h.app.deleteRecords(ids, 'deleted by the user');
    h.app.configure(withFloor(2));
    h.app.restore(ids);
    const undo = new UndoHistory();
    undo.record({ op: 'restore', ids });
    const entry = undo.undo(h.app);
    // 3 active, floor 2: one may go back to Deleted.
    assert.deepEqual(h.app.counts(), { active: 2, pending: 0, deleted: 1 });
    assert.equal(h.app.get(ids[0])?.status, 'deleted');
    assert.match(entry.floorMessage ?? '', /Deleted 1 record\(s\); kept 2 active record\(s\)/);
  });
});
