import { strict as assert } from 'node:assert';
import { isAgentMemoryError } from '../../../src/core/errors';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { TaskLog } from '../../../src/core/memory/sqlite/task-log';
import { sampleRecord } from '../../support/records';

/** TaskLog.markAttribution: the marks of one task's retrieval rows, written in one statement. */
describe('task log: attribution marks', () => {
  let store: MemoryStore;
  let tasks: TaskLog;
  const marks = (t: number) => tasks.retrievalsOf('a', 100).concat(tasks.retrievalsOf('b', 100), tasks.retrievalsOf('c', 100)).filter((r) => r.taskIndex === t).map((r) => [r.rank, r.shown, r.followed]);

  beforeEach(() => {
    store = MemoryStore.open(':memory:');
    store.add(['a', 'b', 'c'].map((id) => sampleRecord({ id, status: 'active' })), { trigger: 'import' });
    tasks = new TaskLog(store);
  });
  afterEach(() => store.close());

  it('marks each named row, and Φ then goes only to the rows shown and not marked "not followed"', () => {
    const t = tasks.begin('q');
    tasks.logRetrievals(t, ['a', 'b', 'c'].map((recordId, rank) => ({ recordId, rank, inputSimilarity: 0.5 })));
    tasks.markAttribution(t, [
      { recordId: 'a', shown: true, followed: true },
      { recordId: 'b', shown: true, followed: false },
      { recordId: 'c', shown: false, followed: null },
    ]);
    assert.deepEqual(marks(t), [[0, true, true], [1, true, false], [2, false, null]]);
    tasks.setUtility(t, 1);
    assert.deepEqual(tasks.creditedOf(t), ['a']);
  });

  it('an unknown record fails the whole call and changes no row', () => {
    const t = tasks.begin('q');
    tasks.logRetrievals(t, [{ recordId: 'a', rank: 0, inputSimilarity: 0.5 }]);
    assert.throws(
      () => tasks.markAttribution(t, [{ recordId: 'a', shown: false, followed: null }, { recordId: 'nope', shown: true, followed: true }]),
      (e: unknown) => isAgentMemoryError(e) && e.code === 'NOT_FOUND' && e.message.includes("'nope'"),
    );
    assert.deepEqual(marks(t), [[0, true, null]]);
  });

  it('a record named twice keeps its last mark; a row that already carries a Φ is left alone', () => {
    const t = tasks.begin('q');
    tasks.logRetrievals(t, [{ recordId: 'a', rank: 0, inputSimilarity: 0.5 }, { recordId: 'b', rank: 1, inputSimilarity: 0.5 }]);
    tasks.markAttribution(t, [{ recordId: 'a', shown: true, followed: false }, { recordId: 'a', shown: true, followed: true }]);
    assert.deepEqual(marks(t), [[0, true, true], [1, true, null]]);
    tasks.setUtility(t, 0.5);
    tasks.markAttribution(t, [{ recordId: 'a', shown: false, followed: null }, { recordId: 'b', shown: false, followed: null }]);
    assert.deepEqual(marks(t), [[0, true, true], [1, true, null]], 'evaluated rows keep their marks');
  });
});
