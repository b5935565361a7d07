import * as assert from 'node:assert/strict';
import { dedupKey, findIdentical, normaliseQuestion } from '../../../src/core/memory/dedup';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { TaskLog } from '../../../src/core/memory/sqlite/task-log';
import { MemoryManager } from '../../../src/core/policy/memory-manager';
import { sampleRecord } from '../../support/records';

describe('identical records merged on addition', () => {
  it('normalises case, spacing and trailing punctuation of the question, not its words', () => {
    assert.equal(normaliseQuestion('  How many   Patients?? '), 'how many patients');
    assert.equal(dedupKey('How many patients?', 'answer = 1\n\n'), dedupKey('how many  patients', 'answer = 1'));
    assert.notEqual(dedupKey('how many patients', 'answer = 1'), dedupKey('how many admissions', 'answer = 1'));
    assert.notEqual(dedupKey('how many patients', 'answer = 1'), dedupKey('how many patients', 'answer = 2'));
  });

  it('a second identical addition becomes a count on the first record (editor), not a second row', () => {
    const store = MemoryStore.open(':memory:');
    const tasks = new TaskLog(store);
    const manager = new MemoryManager(store, { addition: 'all', mergeIdentical: true });
    const add = (question: string, code: string) => manager.afterTask({ taskIndex: tasks.begin(question), retrieved: [], evaluation: null, candidate: sampleRecord({ question, code, provenance: 'agent' }) });
    const first = add('How many patients?', 'answer = 1');
    const second = add('how many  patients', 'answer = 1\n');
    assert.equal(second.addition.recordId, first.addition.recordId);
    assert.match(second.addition.reason, /merged into an identical active record \(×2\)/);
    assert.equal(store.counts().active, 1);
    assert.equal(store.require(first.addition.recordId!).mergedCount, 2);
    assert.match(store.audit({ recordId: first.addition.recordId! })[0].reason, /merged an identical addition \(now ×2\)/);
    const different = add('How many patients?', 'answer = 2');
    assert.notEqual(different.addition.recordId, first.addition.recordId);
    assert.equal(store.counts().active, 2);
    manager.dispose();
    store.close();
  });

  it('records added before (seed/import) are found too; deleted ones are not merged into; off by default', () => {
    const store = MemoryStore.open(':memory:');
    const [seed] = store.add([sampleRecord({ question: 'q one', code: 'answer = 3' })], { trigger: 'user' });
    assert.equal(findIdentical(store, 'Q one?', 'answer = 3')?.id, seed.id);
    store.transition([seed.id], 'delete', { trigger: 'user', reason: 'test' });
    assert.equal(findIdentical(store, 'q one', 'answer = 3'), undefined);
    const tasks = new TaskLog(store);
    const manager = new MemoryManager(store, { addition: 'all' });
    const run = () => manager.afterTask({ taskIndex: tasks.begin('q'), retrieved: [], evaluation: null, candidate: sampleRecord({ question: 'q two', code: 'x', provenance: 'agent' }) });
    assert.notEqual(run().addition.recordId, run().addition.recordId, 'the bench keeps every addition');
    manager.dispose();
    store.close();
  });
});
