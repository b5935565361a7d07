import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createRunner, type CodeRunner } from '../../../src/core/agent/runners';
import { goldProgram } from '../../../src/core/data/gold-program';
import { parseTaskJsonl } from '../../../src/core/bench/task-file';
import { answersMatch } from '../../../src/core/policy/answers';

const DATA = path.resolve(__dirname, '..', '..', '..', 'data', 'ehr');
const DB = path.join(DATA, 'mimic3-demo.sqlite');

describe('bench: gold programs', function () {
  this.timeout(20_000);

  it('wraps the SQL in a sql() call with a string literal both languages read back verbatim', () => {
    const sql = `select 'it''s' as a, "x" as b, '\\d' as c, 'tab\tnew\nline' as d`;
    const py = goldProgram(sql, 'python');
    const js = goldProgram(sql, 'javascript');
    assert.ok(py.startsWith('answer = sql("') && py.endsWith('")'));
    assert.ok(js.startsWith('answer = sql("') && js.endsWith('");'));
    // The literal is a JSON string: parsing it returns the SQL exactly.
    assert.equal(JSON.parse(py.slice('answer = sql('.length, -1)), sql);
    assert.equal(JSON.parse(js.slice('answer = sql('.length, -2)), sql);
    assert.throws(() => goldProgram('  ', 'python'), /non-empty SQL/);
  });

  for (const language of ['python', 'javascript'] as const) {
    describe(`run by the real ${language} runner`, () => {
      let runner: CodeRunner;
      before(() => {
        runner = createRunner(language);
      });
      after(() => runner.dispose());

      it('reproduces the ground-truth answers of real EHR tasks', async () => {
        const text = fs.readFileSync(path.join(DATA, 'ehrsql-mimic3-tasks.jsonl'), 'utf8');
        const tasks = parseTaskJsonl(text).filter((t) => t.answerStatus === 'nonempty' && /'/.test(t.goldSql));
        const picked = [tasks[0], tasks[Math.floor(tasks.length / 2)], tasks[tasks.length - 1]];
        for (const task of picked) {
          const r = await runner.run({ code: goldProgram(task.goldSql, language), language, databasePath: DB });
          assert.equal(r.outcome, 'success', `${task.id}: ${JSON.stringify(r.error)}`);
          assert.ok(answersMatch(task.answer, r.answer), `${task.id}: ${JSON.stringify(r.answer)} vs ${JSON.stringify(task.answer)}`);
        }
      });

      it('keeps quotes and backslashes intact through the sandbox', async () => {
        const r = await runner.run({ code: goldProgram(`select 'a"b' , 'c\\d', 'e''f'`, language), language, databasePath: DB });
        assert.deepEqual(r.answer, [['a"b', 'c\\d', "e'f"]]);
      });
    });
  }
});
