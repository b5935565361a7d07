import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isAgentMemoryError } from '../../../src/core/errors';
import { readTaskStreamFile } from '../../../src/core/app/task-stream-file';

describe('readTaskFile', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'task-file-'));
  const write = (name: string, text: string) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    return file;
  };
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads questions and optional answers, skipping blank lines', () => {
    const file = write('ok.jsonl', '{"question":"a?","answer":[[1]]}\n\n{"question":"b?"}\n');
    assert.deepEqual(readTaskStreamFile(file), [{ question: 'a?', answer: [[1]] }, { question: 'b?' }]);
  });

  it('stops at the limit and skips empty-answer EHRSQL lines on request', () => {
    const file = write('ehr.jsonl', ['{"question":"a","answer_status":"empty"}', '{"question":"b","answer_status":"nonempty"}', '{"question":"c"}'].join('\n'));
    assert.deepEqual(readTaskStreamFile(file, { nonEmptyOnly: true, limit: 1 }).map((t) => t.question), ['b']);
  });

  it('names the line of invalid JSON and of a missing question', () => {
    const bad = write('bad.jsonl', '{"question":"a"}\n{oops\n');
    assert.throws(() => readTaskStreamFile(bad), (e: unknown) => isAgentMemoryError(e, 'INVALID_INPUT') && /bad\.jsonl:2: not valid JSON/.test(e.message));
    const missing = write('missing.jsonl', '{"question":"a"}\n{"answer":1}\n');
    assert.throws(() => readTaskStreamFile(missing), (e: unknown) => isAgentMemoryError(e, 'INVALID_INPUT') && /missing\.jsonl:2: field 'question'/.test(e.message));
  });

  it('reads the bundled EHR demo questions', () => {
    const items = readTaskStreamFile(path.join(__dirname, '..', '..', '..', 'data', 'ehr', 'ehrsql-mimic3-tasks.jsonl'), { limit: 5, nonEmptyOnly: true });
    assert.equal(items.length, 5);
    for (const t of items) assert.ok(t.question.length > 5 && t.answer !== undefined);
  });
});
