import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { planDeletion, programKind } from '../../../src/core/policy/deletion';
import { MemoryManager } from '../../../src/core/policy/memory-manager';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { TaskLog } from '../../../src/core/memory/sqlite/task-log';
import { parseSettings } from '../../../src/core/settings';
import { sampleRecord } from '../../support/records';

const count = (p: number) => `answer = sql("select count(*) from admissions where subject_id = ${p}")`;
const drug = (name: string) => `answer = sql("select distinct prescriptions.route from prescriptions where prescriptions.drug = '${name}'")`;
const ids = (plan: { candidates: { recordId: string }[] }) => plan.candidates.map((c) => c.recordId).sort();

describe('the periodic guard last-of-kind (beyond the paper): periodic deletion keeps the last record of a program kind', () => {
  describe('programKind', () => {
    it('masks the values of one template, in SQL inside a Python string, and keeps the program shape', () => {
      assert.equal(programKind(count(10026), 'python'), programKind(count(9), 'python'));
      assert.equal(programKind(drug('danazol'), 'python'), programKind(drug("lidocaine 5% ointment"), 'python'));
      assert.equal(programKind(drug("o''brien mix"), 'python'), programKind(drug('x'), 'python'));
      assert.notEqual(programKind(count(1), 'python'), programKind(drug('x'), 'python'));
      // A different comparison or table is a different kind.
      assert.notEqual(programKind(count(1), 'python'), programKind(count(1).replace('=', '>'), 'python'));
    });

    it('works for programs without SQL and in other languages; the language is part of the kind', () => {
      const js = (d: string) => `const rows = await db.all("select * from labevents where charttime > '${d}'");\nreturn rows.length * 2;`;
      assert.equal(programKind(js('2104-01-01'), 'javascript'), programKind(js('2105-12-31 23:59:00'), 'javascript'));
      const py = (n: number) => `total = 0\nfor i in range(${n}):\n    total += i * 3.5\nanswer = total`;
      assert.equal(programKind(py(10), 'python'), programKind(py(250), 'python'));
      assert.notEqual(programKind(py(10), 'python'), programKind(py(10), 'javascript'));
      // Layout and case are not a different kind.
      assert.equal(programKind('X  =  1\n\n', 'python'), programKind('x = 2', 'python'));
    });
  });

  describe('plans on a real SQLite file', () => {
    let dir: string;
    let store: MemoryStore;
    let tasks: TaskLog;
    beforeEach(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'guard-'));
      store = MemoryStore.open(path.join(dir, 'memory.sqlite'));
      tasks = new TaskLog(store);
    });
    afterEach(() => {
      store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    const add = (id: string, code: string, createdTask = 0) => store.add([sampleRecord({ id, createdTask, provenance: 'agent', code, question: `question ${id}` })], { trigger: 'agent' });
    /** Task `t` retrieves `rid` with Φ `u`. */
    const retrieve = (t: number, recordIds: string[], u: number | null) => {
      tasks.logRetrievals(t, recordIds.map((recordId, rank) => ({ recordId, rank, inputSimilarity: 0.8 })));
      if (u !== null) tasks.setUtility(t, u);
    };

    it('without the guard periodic deletion takes every unretrieved record; with it, one record of each kind stays', () => {
      add('a1', count(1));
      add('a2', count(2));
      add('b1', drug('danazol'));
      for (let t = 1; t <= 300; t++) tasks.begin(`q${t}`);
      // (The memory floor is set to 0 here so that it keeps nothing itself.)
      assert.deepEqual(ids(planDeletion(store, 'periodic', 300, { period: 200, minActiveRecords: 0 })), ['a1', 'a2', 'b1']);
      const guarded = planDeletion(store, 'periodic', 300, { period: 200, minActiveRecords: 0, periodicGuard: 'last-of-kind' });
      // a1 and a2 are one kind: the most recent (equal utility) stays; b1 is the only one of its kind.
      assert.deepEqual(ids(guarded), ['a1']);
      assert.equal(guarded.total, 1);
      assert.equal(guarded.params.periodicGuard, 'last-of-kind');
      assert.deepEqual(guarded.guard?.kept.map((c) => c.recordId).sort(), ['a2', 'b1']);
      assert.match(guarded.guard?.sentence ?? '', /agentMemory\.deletion\.periodicGuard = last-of-kind\) kept 2 record\(s\)/);
      assert.match(guarded.guard?.sentence ?? '', /'question b1'/);
    });

    it('keeps the kind\'s record with the best mean utility, and deletes a candidate whose kind another active record still serves', () => {
      add('a1', count(1));
      add('a2', count(2));
      add('c1', drug('aspirin'));
      add('c2', drug('danazol'), 150);
      for (let t = 1; t <= 300; t++) tasks.begin(`q${t}`);
      retrieve(10, ['a1'], 1);
      retrieve(20, ['a2'], 0);
      // c2 is retrieved inside the window: it stays, so c1 (same kind) may go.
      retrieve(250, ['c2'], 1);
      const plan = planDeletion(store, 'periodic', 300, { period: 200, periodicGuard: 'last-of-kind' });
      assert.deepEqual(ids(plan), ['a2', 'c1']);
      assert.deepEqual(plan.guard?.kept.map((c) => c.recordId), ['a1']);
    });

    it('never guards a record the history rule selects (combined deletion)', () => {
      add('a1', count(1));
      add('b1', drug('danazol'));
      for (let t = 1; t <= 300; t++) tasks.begin(`q${t}`);
      // b1: five retrievals at Φ 0, all before the window: both rules select it; a1: periodic only.
      for (let t = 1; t <= 5; t++) retrieve(t, ['b1'], 0);
      const plan = planDeletion(store, 'combined', 300, { period: 200, periodicGuard: 'last-of-kind' });
      assert.deepEqual(ids(plan), ['b1']);
      assert.equal(plan.candidates[0].rule, 'periodic+history');
      assert.deepEqual(plan.guard?.kept.map((c) => c.recordId), ['a1']);
    });

    it('follows records added, deleted and restored between plans (kinds are cached per record version)', () => {
      add('a1', count(1));
      for (let t = 1; t <= 400; t++) tasks.begin(`q${t}`);
      const guard = { period: 200, periodicGuard: 'last-of-kind' } as const;
      assert.deepEqual(ids(planDeletion(store, 'periodic', 300, guard)), []);
      // A newer record of the same kind (not yet a candidate) now serves the kind: a1 may go.
      add('a2', count(2), 250);
      assert.deepEqual(ids(planDeletion(store, 'periodic', 300, guard)), ['a1']);
      store.transition(['a2'], 'delete', { trigger: 'user', reason: 'test' });
      assert.deepEqual(ids(planDeletion(store, 'periodic', 300, guard)), []);
      store.transition(['a2'], 'restore', { trigger: 'user', reason: 'test' });
      assert.deepEqual(ids(planDeletion(store, 'periodic', 300, guard)), ['a1']);
    });

    it('on a plan truncated at its limit, the records the guard keeps do not hide the deletable ones behind them', () => {
      // k1..k3: one record per kind, the oldest, so the first the plan materializes; a1, a2: one kind.
      add('k1', drug('aspirin'));
      add('k2', count(1).replace('admissions', 'icustays'));
      add('k3', count(1).replace('count(*)', 'max(subject_id)'));
      add('a1', count(1), 10);
      add('a2', count(2), 20);
      for (let t = 1; t <= 300; t++) tasks.begin(`q${t}`);
      const plan = planDeletion(store, 'periodic', 300, { period: 200, minActiveRecords: 0, limit: 3, periodicGuard: 'last-of-kind' });
      assert.deepEqual(ids(plan), ['a1']);
      assert.deepEqual(plan.guard?.kept.map((c) => c.recordId).sort(), ['a2', 'k1', 'k2', 'k3']);
      // Without the guard the limit still holds.
      assert.deepEqual(ids(planDeletion(store, 'periodic', 300, { period: 200, minActiveRecords: 0, limit: 3 })), ['k1', 'k2', 'k3']);
    });

    it('a purged record\'s rid given to a new record is not read with the old record\'s kind', () => {
      add('a1', count(1));
      add('b1', drug('danazol'));
      for (let t = 1; t <= 300; t++) tasks.begin(`q${t}`);
      const guard = { period: 200, periodicGuard: 'last-of-kind' } as const;
      assert.deepEqual(ids(planDeletion(store, 'periodic', 300, guard)), []);
      const rid = (id: string) => (store.connectionForQueries().prepare('SELECT rid FROM records WHERE id = ?').get(id) as { rid: number }).rid;
      const old = rid('b1');
      store.transition(['b1'], 'delete', { trigger: 'user', reason: 'test' });
      store.transition(['b1'], 'purge', { trigger: 'user', reason: 'test' });
      add('c1', count(3), 250);
      assert.equal(rid('c1'), old, 'SQLite reuses the largest rid after it is purged');
      // c1 is of a1's kind: a1 may go now.
      assert.deepEqual(ids(planDeletion(store, 'periodic', 300, guard)), ['a1']);
    });

    it('runs in the memory manager\'s periodic rule: the memory keeps one record per kind, and nothing is lost', () => {
      add('a1', count(1));
      add('a2', count(2));
      add('b1', drug('danazol'));
      const manager = new MemoryManager(store, { addition: 'fixed', mode: 'benchmark', deletion: 'periodic', deletionParams: { period: 5, periodicGuard: 'last-of-kind' } });
      try {
        for (let t = 1; t <= 8; t++) {
          tasks.begin(`q${t}`);
          manager.afterTask({ taskIndex: t, retrieved: [], evaluation: null, candidate: null });
        }
      } finally {
        manager.dispose();
      }
      const active = store.list({ status: 'active' }).items.map((r) => r.id).sort();
      assert.deepEqual(active, ['a2', 'b1']);
      // The deleted one is a soft delete, restorable.
      assert.deepEqual(store.list({ status: 'deleted' }).items.map((r) => r.id), ['a1']);
    });
  });

  it('the setting defaults to the paper (none), accepts last-of-kind, and names a bad value', () => {
    const read = (value: unknown) => parseSettings((key) => (key === 'deletion.periodicGuard' ? value : undefined));
    assert.equal(read(undefined).settings.deletion.periodicGuard, 'none');
    assert.equal(read('last-of-kind').settings.deletion.periodicGuard, 'last-of-kind');
    const bad = read('keep-all');
    assert.equal(bad.settings.deletion.periodicGuard, 'none');
    assert.match(bad.problems.join('\n'), /agentMemory\.deletion\.periodicGuard/);
  });
});
