import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createRunner, type CodeRunner } from '../../../src/core/agent/runners';
import { SqlService } from '../../../src/core/agent/runners/sql-service';
import type { RunRequest, RunResult } from '../../../src/core/agent/runners/types';
import { goldProgram } from '../../../src/core/data/gold-program';
import { sqlOnlyQuery, withSqlShortcut } from '../../../src/core/agent/runners/sql-shortcut';
import { parseTaskJsonl } from '../../../src/core/bench/task-file';
import { nullLogger } from '../../../src/core/logger';

const DATA = path.resolve(__dirname, '..', '..', '..', 'data', 'ehr');
const DB = path.join(DATA, 'mimic3-demo.sqlite');

describe('bench: the SQL-only shortcut (issue 19, speed)', function () {
  this.timeout(180_000);

  it('recognises exactly the one-sql()-call programs, in both shapes and languages', () => {
    const sql = "select 'it''s' as a, \"x\" as b from patients";
    assert.equal(sqlOnlyQuery(goldProgram(sql, 'python'), 'python'), sql);
    assert.equal(sqlOnlyQuery(goldProgram(sql, 'javascript'), 'javascript'), sql);
    assert.equal(sqlOnlyQuery(`query = ${JSON.stringify(sql)}\nanswer = sql(query)`, 'python'), sql);
    assert.equal(sqlOnlyQuery(`const query = ${JSON.stringify(sql)};\nanswer = sql(query);`, 'javascript'), sql);
    assert.equal(sqlOnlyQuery(`${goldProgram(sql, 'python')}\nanswer = answer[:1]`, 'python'), null, 'more code');
    assert.equal(sqlOnlyQuery('answer = sql("a" + "b")', 'python'), null);
    assert.equal(sqlOnlyQuery('answer = sql("select \\x41")', 'python'), null, 'an escape JSON and Python read differently');
    assert.equal(sqlOnlyQuery('answer = sql("select \\/ 1")', 'python'), null, 'not the canonical JSON literal');
    assert.equal(sqlOnlyQuery(goldProgram(sql, 'python'), 'javascript'), null, 'no semicolon');
  });

  describe('against the real sandbox', () => {
    let runner: CodeRunner;
    let service: SqlService;
    let sandboxRuns = 0;
    let shortcut: (r: RunRequest) => Promise<RunResult>;
    before(() => {
      runner = createRunner('python');
      service = new SqlService(DB, nullLogger);
      shortcut = withSqlShortcut((r, s) => {
        sandboxRuns++;
        return runner.run(r, s);
      }, service, DB);
    });
    after(() => {
      service.dispose();
      runner.dispose();
    });

    it('gives the sandbox\'s answer for real EHR gold programs (every 40th line: numbers, nulls, dates, strings)', async () => {
      const tasks = parseTaskJsonl(fs.readFileSync(path.join(DATA, 'ehrsql-mimic3-tasks.jsonl'), 'utf8')).filter((_, i) => i % 40 === 0);
      let compared = 0;
      for (const task of tasks) {
        const request: RunRequest = { code: goldProgram(task.goldSql, 'python'), language: 'python', databasePath: DB };
        const real = await runner.run(request);
        const before = sandboxRuns;
        const fast = await shortcut(request);
        if (real.outcome === 'success') {
          assert.equal(sandboxRuns, before, 'a successful query never spawns a sandbox');
          assert.equal(fast.outcome, 'success');
          assert.deepEqual(fast.answer, real.answer, task.question);
          compared++;
        } else {
          assert.equal(sandboxRuns, before + 1, 'a failing query runs in the sandbox');
          assert.deepEqual({ ...fast, durationMs: 0 }, { ...real, durationMs: 0 });
        }
      }
      assert.ok(compared >= 40, `${compared} answers compared`);
    });

    it('runs any other program in the sandbox', async () => {
      const before = sandboxRuns;
      const r = await shortcut({ code: 'answer = len(sql("select 1 union select 2"))', language: 'python', databasePath: DB });
      assert.equal(r.answer, 2);
      assert.equal(sandboxRuns, before + 1);
    });
  });
});
