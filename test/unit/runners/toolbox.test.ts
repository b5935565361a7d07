import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createRunner, toEhrSqlDialect, toolboxDocs, type CodeRunner, type RunLanguage } from '../../../src/core/agent/runners';
import { isAgentMemoryError } from '../../../src/core/errors';

const DB = path.resolve(__dirname, '../../../data/ehr/mimic3-demo.sqlite');
const TASKS = path.resolve(__dirname, '../../../data/ehr/ehrsql-mimic3-tasks.jsonl');

interface Task {
  id: string;
  gold_sql: string;
  answer: unknown[][];
  answer_status: string;
}

/** ~20 nonempty tasks, spread over the file, mixing relative-time, %y and plain SQL. */
function goldSample(): Task[] {
  const all = fs.readFileSync(TASKS, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Task).filter((t) => t.answer_status === 'nonempty');
  const withNow = all.filter((t) => t.gold_sql.includes('current_time'));
  const withYear = all.filter((t) => t.gold_sql.includes("'%y'"));
  const plain = all.filter((t) => !t.gold_sql.includes('current_time') && !t.gold_sql.includes('%y'));
  const spread = (xs: Task[], n: number) => Array.from({ length: n }, (_, i) => xs[Math.floor((i * xs.length) / n)]);
  return [...spread(withNow, 8), ...spread(withYear, 4), ...spread(plain, 8)];
}

/** Rows compared as multisets, numbers with a relative tolerance. */
function assertSameRows(actual: unknown, expected: unknown[][], label: string): void {
  assert.ok(Array.isArray(actual), `${label}: not a list`);
  const rows = actual as unknown[][];
  assert.equal(rows.length, expected.length, `${label}: row count`);
  const key = (r: unknown[]) => JSON.stringify(r.map((v) => (typeof v === 'number' ? Number(v.toPrecision(9)) : v)));
  const a = rows.map(key).sort();
  const b = expected.map(key).sort();
  for (let i = 0; i < a.length; i++) {
    if (a[i] === b[i]) continue;
    const x = JSON.parse(a[i]) as unknown[];
    const y = JSON.parse(b[i]) as unknown[];
    assert.equal(x.length, y.length, label);
    x.forEach((v, j) => {
      const w = y[j];
      if (typeof v === 'number' && typeof w === 'number') assert.ok(Math.abs(v - w) <= 1e-6 * Math.max(1, Math.abs(w)), `${label}: ${v} vs ${w}`);
      else assert.deepEqual(v, w, label);
    });
  }
}

describe('toEhrSqlDialect', () => {
  const now = '2105-12-31 23:59:00';
  it("maps current_time / 'now' to the configured now, and %y / %j as EHRSQL does", () => {
    assert.equal(
      toEhrSqlDialect("select datetime(current_time,'start of year','-1 year'), strftime('%y',x), date('NOW'), current_date", now),
      "select datetime('2105-12-31 23:59:00','start of year','-1 year'), strftime('%Y',x), date('2105-12-31 23:59:00'), '2105-12-31'",
    );
  });
  it('leaves quoted identifiers, comments and longer words alone', () => {
    const sql = 'select "current_time", [current_time], my_current_time -- current_time\nfrom t /* current_time */';
    assert.equal(toEhrSqlDialect(sql, now), sql);
    assert.equal(toEhrSqlDialect("select 'it''s now'", now), "select 'it''s now'");
  });
});

describe('toolboxDocs', () => {
  it('documents every function for both languages, with the language-specific example', () => {
    for (const lang of ['javascript', 'python'] as const) {
      const doc = toolboxDocs(lang, { now: '2105-12-31 23:59:00' });
      for (const fn of ['sql(', 'loadTable(', 'filterRows(', 'getValues(', 'now()', 'datetimeAdd(', 'startOf(', 'calculate(', 'setAnswer(']) {
        assert.ok(doc.includes(fn), `${lang} docs lack ${fn}`);
      }
      assert.ok(doc.includes('2105-12-31 23:59:00'));
    }
    assert.match(toolboxDocs('python'), /load_table/);
    assert.doesNotMatch(toolboxDocs('javascript'), /load_table/);
  });
});

for (const language of ['javascript', 'python'] as RunLanguage[]) {
  describe(`${language} toolbox`, function () {
    this.timeout(20_000);
    const js = language === 'javascript';
    let runner: CodeRunner;
    before(() => {
      runner = createRunner(language);
    });
    after(() => runner.dispose());
    const run = (code: string, now?: string) => runner.run({ code, language, databasePath: DB, now, limits: { timeoutMs: 8000 } });

    it('answers ~20 gold EHRSQL queries through sql() like the stored answers', async () => {
      const tasks = goldSample();
      assert.equal(tasks.length, 20);
      const code = js
        ? `const qs = ${JSON.stringify(tasks.map((t) => t.gold_sql))};\nanswer = qs.map((q) => sql(q));`
        : `qs = ${JSON.stringify(tasks.map((t) => t.gold_sql))}\nanswer = [sql(q) for q in qs]`;
      const r = await run(code);
      assert.equal(r.outcome, 'success', JSON.stringify(r.error));
      const answers = r.answer as unknown[][][];
      tasks.forEach((t, i) => assertSameRows(answers[i], t.answer, `${t.id}: ${t.gold_sql.slice(0, 80)}`));
    });

    it('refuses SQL writes, ATTACH and DROP with SqlReadOnlyError', async () => {
      for (const q of ['insert into patients (row_id) values (99999)', 'drop table patients', "attach database 'x.db' as x", 'pragma query_only = 0', 'delete from admissions']) {
        const r = await run(js ? `sql(${JSON.stringify(q)});\nanswer = 1;` : `sql(${JSON.stringify(q)})\nanswer = 1`);
        assert.equal(r.outcome, 'error', q);
        assert.equal(r.error?.kind, 'SqlReadOnlyError', `${q}: ${JSON.stringify(r.error)}`);
        assert.equal(r.error?.line, 1);
      }
      const still = await run('answer = sql("select count(*) from patients")');
      assert.deepEqual(still.answer, [[100]]);
    });

    it('loads, filters and extracts values', async () => {
      const code = js
        ? "const p = loadTable('patients');\nconst f = filterRows(p, 'gender', '=', 'f');\nanswer = [p.length, f.length, distinct(getValues(f, 'GENDER')), filterRows(sql('select subject_id from patients'), 0, '<', 0).length];"
        : "p = loadTable('patients')\nf = filter_rows(p, 'gender', '=', 'f')\nanswer = [len(p), len(f), distinct(get_values(f, 'GENDER')), len(filterRows(sql('select subject_id from patients'), 0, '<', 0))]";
      const r = await run(code);
      assert.equal(r.outcome, 'success', JSON.stringify(r.error));
      const [total, women, genders, negative] = r.answer as [number, number, string[], number];
      assert.equal(total, 100);
      assert.deepEqual(genders, ['f']);
      assert.ok(women > 0 && women < 100);
      assert.equal(negative, 0);
    });

    it('does date arithmetic relative to the configured now', async () => {
      const code = js
        ? "answer = [now(), startOf(now(), 'year'), datetimeAdd(now(), -1, 'years'), datetime(undefined, 'start of month', '-1 month'), strftime('%Y', now()), daysBetween('2105-12-01 23:59:00', now()), sql(\"select datetime(current_time, 'start of year', '-1 year')\")[0][0]]"
        : "answer = [now(), startOf(now(), 'year'), datetimeAdd(now(), -1, 'years'), datetime(None, 'start of month', '-1 month'), strftime('%Y', now()), daysBetween('2105-12-01 23:59:00', now()), sql(\"select datetime(current_time, 'start of year', '-1 year')\")[0][0]]";
      const r = await run(code);
      assert.equal(r.outcome, 'success', JSON.stringify(r.error));
      assert.deepEqual(r.answer, ['2105-12-31 23:59:00', '2105-01-01 00:00:00', '2104-12-31 23:59:00', '2105-11-01 00:00:00', '2105', 30, '2104-01-01 00:00:00']);
      const other = await run(js ? "answer = [now(), sql(\"select date('now')\")[0][0]]" : "answer = [now(), sql(\"select date('now')\")[0][0]]", '2101-06-15 12:00:00');
      assert.deepEqual(other.answer, ['2101-06-15 12:00:00', '2101-06-15']);
    });

    it('calculates safely without eval', async () => {
      const r = await run(
        js
          ? "answer = [calculate('2 * (3 + 4) ^ 2 - 1'), calculate('-2 ** 2'), calculate('round(10 / 3, 2)'), calculate('max(1, 7, 3) % 4'), calculate(' sqrt(16) + abs(-1.5) ')]"
          : "answer = [calculate('2 * (3 + 4) ^ 2 - 1'), calculate('-2 ** 2'), calculate('round(10 / 3, 2)'), calculate('max(1, 7, 3) % 4'), calculate(' sqrt(16) + abs(-1.5) ')]",
      );
      assert.equal(r.outcome, 'success', JSON.stringify(r.error));
      assert.deepEqual(r.answer, [97, -4, 3.33, 3, 5.5]);
      for (const bad of ['1 / 0', "__import__('os')", 'process.exit()', '2 +', 'foo(1)']) {
        const e = await run(js ? `answer = calculate(${JSON.stringify(bad)})` : `answer = calculate(${JSON.stringify(bad)})`);
        assert.equal(e.outcome, 'error', bad);
        assert.equal(e.error?.kind, 'CalculateError', `${bad}: ${JSON.stringify(e.error)}`);
      }
    });

    it('takes the answer from setAnswer or the answer variable, and says no-answer otherwise', async () => {
      const viaCall = await run(js ? 'setAnswer({ a: [1, 2] });' : "setAnswer({'a': (1, 2)})");
      assert.equal(viaCall.outcome, 'success');
      assert.deepEqual(viaCall.answer, { a: [1, 2] });
      const both = await run(js ? 'let answer = 1;\nsetAnswer(2);' : 'answer = 1\nsetAnswer(2)');
      assert.equal(both.answer, 2);
      const none = await run(js ? "console.log('working');" : "print('working')");
      assert.equal(none.outcome, 'no-answer');
      assert.equal(none.answer, null);
      assert.equal(none.stdout, 'working\n');
    });

    it('reports exceptions with the line number in the user code', async () => {
      const r = await run(js ? 'const a = 1;\n\nconst b = null;\nb.x = a;' : 'a = 1\n\nb = None\nb.x = a');
      assert.equal(r.outcome, 'error');
      assert.equal(r.error?.kind, js ? 'TypeError' : 'AttributeError');
      assert.equal(r.error?.line, 4);
      const syntax = await run(js ? 'const a = 1;\nconst = 2;' : 'a = 1\nif True\n  b = 2');
      assert.equal(syntax.error?.kind, 'SyntaxError');
      assert.equal(syntax.error?.line, 2);
      const sqlError = await run(js ? "const x = 1;\nsql('select nope from patients');" : "x = 1\nsql('select nope from patients')");
      assert.equal(sqlError.error?.kind, 'SqlError');
      assert.match(sqlError.error?.message ?? '', /nope/);
      assert.equal(sqlError.error?.line, 2);
    });
  });
}

describe('runner errors', () => {
  it('rejects a malformed request', async () => {
    const runner = createRunner('javascript');
    await assert.rejects(runner.run({ code: 'answer = 1', language: 'javascript', databasePath: DB, limits: { timeoutMs: -5 } }), (e: unknown) => isAgentMemoryError(e, 'INVALID_INPUT'));
    await assert.rejects(runner.run({ code: 'answer = 1', language: 'javascript', databasePath: DB, now: 'yesterday' }), (e: unknown) => isAgentMemoryError(e, 'INVALID_INPUT'));
    await assert.rejects(runner.run({ code: 'answer = 1', language: 'javascript', databasePath: '/no/such.sqlite' }), (e: unknown) => isAgentMemoryError(e, 'RUNNER') && /Database not found/.test(e.message));
    runner.dispose();
  });

  it('explains a missing python3', async () => {
    const saved = process.env.PATH;
    process.env.PATH = '/nonexistent-dir';
    try {
      await assert.rejects(createRunner('python').run({ code: 'answer = 1', language: 'python', databasePath: DB }), (e: unknown) =>
        isAgentMemoryError(e, 'RUNNER') && e.message === 'python3 was not found on PATH; install Python 3 or set agentMemory.runner.language to javascript',
      );
    } finally {
      process.env.PATH = saved;
    }
    await assert.rejects(createRunner('python', { pythonPath: '/nonexistent/python3' }).run({ code: 'answer = 1', language: 'python', databasePath: DB }), (e: unknown) =>
      isAgentMemoryError(e, 'RUNNER') && e.message.includes('/nonexistent/python3'),
    );
  });
});
