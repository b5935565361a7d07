import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { demoSeedRecords, readDemoTasks } from '../../../src/core/data/ehr-tasks';

const TASKS = readDemoTasks(path.resolve(__dirname, '..', '..', '..', 'data', 'ehr', 'ehrsql-mimic3-tasks.jsonl'));

describe('demo seed memory', () => {
  it('never seeds a question of the demo stream, is deterministic, and respects the count', () => {
    const records = demoSeedRecords(TASKS, 100, 'python');
    assert.equal(records.length, 100);
    const streamIds = new Set(TASKS.filter((t) => t.answer_status === 'nonempty').map((t) => t.id));
    assert.ok(records.every((r) => !streamIds.has(String(r.metadata?.sourceId))));
    assert.deepEqual(demoSeedRecords(TASKS, 100, 'python').map((r) => r.metadata?.sourceId), records.map((r) => r.metadata?.sourceId));
    assert.equal(new Set(records.map((r) => r.metadata?.sourceId)).size, 100, 'no duplicates');
  });

  it('covers every stream template that has a non-stream example before repeating any template', () => {
    const stream = new Set(TASKS.filter((t) => t.answer_status === 'nonempty').map((t) => t.template));
    const coverable = new Set(TASKS.filter((t) => t.answer_status !== 'nonempty' && stream.has(t.template)).map((t) => t.template));
    const records = demoSeedRecords(TASKS, coverable.size, 'javascript');
    assert.deepEqual(new Set(records.map((r) => r.metadata?.template)), coverable);
    assert.ok(records.every((r) => r.execution.language === 'javascript' && r.execution.code.startsWith('answer = sql(')));
  });
});
