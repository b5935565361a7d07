import { strict as assert } from 'node:assert';
import { isStreamTask, parseTaskJsonl } from '../../../src/core/bench/task-file';
import { planTasks } from '../../../src/core/bench/task-plan';
import { isAgentMemoryError } from '../../../src/core/errors';

const line = (o: Record<string, unknown>) => JSON.stringify({ question: 'how many?', gold_sql: 'select 1', answer: [[1]], ...o });

describe('bench: task file and plan', () => {
  it('parses EHR-style lines and skips blank ones', () => {
    const tasks = parseTaskJsonl([line({ id: 'a', template: 't1', answer_status: 'nonempty' }), '', line({ answer: [] })].join('\n'));
    assert.equal(tasks.length, 2);
    assert.deepEqual([tasks[0].id, tasks[0].line, tasks[0].template, tasks[0].answerStatus], ['a', 1, 't1', 'nonempty']);
    assert.equal(tasks[1].line, 3);
    assert.equal(isStreamTask(tasks[0]), true);
    assert.equal(isStreamTask(tasks[1]), false, 'no answer_status and an empty answer: not in the stream');
  });

  it('reports the line number and field of a bad line', () => {
    const text = [line({}), line({ gold_sql: '' }), line({})].join('\n');
    assert.throws(() => parseTaskJsonl(text, 'T.jsonl'), (e: unknown) => isAgentMemoryError(e, 'INVALID_INPUT') && /T\.jsonl:2: field 'gold_sql'/.test(e.message));
    assert.throws(() => parseTaskJsonl(`${line({})}\n{oops`, 'T.jsonl'), (e: unknown) => isAgentMemoryError(e) && /T\.jsonl:2: not valid JSON/.test(e.message));
    assert.throws(() => parseTaskJsonl(JSON.stringify({ question: 'q', gold_sql: 's' }), 'T.jsonl'), (e: unknown) => isAgentMemoryError(e) && /T\.jsonl:1: field 'answer'/.test(e.message));
  });

  it('draws the initial memory from lines outside the stream, deterministically', () => {
    const lines = Array.from({ length: 40 }, (_, i) => line({ id: `t${i}`, answer_status: i % 2 === 0 ? 'nonempty' : 'empty' }));
    const tasks = parseTaskJsonl(lines.join('\n'));
    const a = planTasks(tasks, { initialMemory: 8, seed: 5, limit: 6 });
    const b = planTasks(tasks, { initialMemory: 8, seed: 5, limit: 6 });
    assert.deepEqual(a.stream.map((t) => t.id), ['t0', 't2', 't4', 't6', 't8', 't10']);
    assert.deepEqual(a.seeds.map((t) => t.id), b.seeds.map((t) => t.id));
    assert.equal(new Set(a.seeds.map((t) => t.id)).size, 8);
    assert.ok(a.seeds.every((t) => t.answerStatus === 'empty'), 'seeds never come from stream lines');
    assert.throws(() => planTasks(tasks, { initialMemory: 21, seed: 5 }), /lower --initial-memory/);
  });
});
