import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { toEhrSqlDialect } from '../../../src/core/agent/runners/sql-dialect';
import { answersMatch } from '../../../src/core/policy/answers';
import { FALLBACK_MUTATION_KINDS, MUTATION_KINDS, mutate, applicableMutations, surfaceRewrite } from '../../../src/core/bench/sim/mutations';
import { SIMULATION_PARAMETERS } from '../../../src/core/bench/sim/parameters';
import { betaDraw, followProbability, readSchema, SimulatedCodeGenerator } from '../../../src/core/bench/sim/simulated-generator';
import { SimulatedJudge } from '../../../src/core/bench/sim/simulated-judge';
import { readTaskFile, BenchTask } from '../../../src/core/bench/task-file';
import { judgeTask } from '../../../src/core/policy/llm-judge';

const DATA = path.resolve(__dirname, '..', '..', '..', 'data', 'ehr');
const NOW = '2105-12-31 23:59:00';

describe('bench (simulation): mutations, generator, judge', function () {
  this.timeout(60_000);
  let db: BetterSqlite3.Database;
  let tasks: BenchTask[];
  before(() => {
    db = new BetterSqlite3(path.join(DATA, 'mimic3-demo.sqlite'), { readonly: true });
    tasks = readTaskFile(path.join(DATA, 'ehrsql-mimic3-tasks.jsonl')).filter((t) => t.split === 'test' && t.answerStatus === 'nonempty');
  });
  after(() => db.close());
  const query = (sql: string) => db.prepare(toEhrSqlDialect(sql, NOW)).raw().all();

  it('every mutation kind applies to some stream task and yields a different program that runs on the real database', () => {
    const schema = readSchema(db);
    let kindsWithWrongAnswers = 0;
    for (const kind of MUTATION_KINDS) {
      const hits = tasks.filter((t) => mutate(t.goldSql, kind, schema) !== null).slice(0, 8);
      assert.ok(hits.length > 0, `mutation ${kind} applies to no task`);
      let wrong = 0;
      for (const t of hits) {
        const sql = mutate(t.goldSql, kind, schema, 1)!;
        assert.notEqual(sql, t.goldSql);
        try {
          if (!answersMatch(t.answer, query(sql))) wrong++;
        } catch {
          wrong++; // a mutation may also fail, as a real agent's program does
        }
      }
      if (wrong > 0) kindsWithWrongAnswers++;
    }
    // Some mutations leave the answer unchanged on some tasks; the generator then picks another kind (next test).
    assert.ok(kindsWithWrongAnswers >= 5, `${kindsWithWrongAnswers} mutation kinds ever change the answer`);
    const covered = tasks.filter((t) => applicableMutations(t.goldSql, schema).length > 0).length;
    assert.ok(covered / tasks.length > 0.95, `${covered}/${tasks.length} tasks have an applicable mutation`);
  });

  it('an own wrong program is a mutation whose answer really differs from the gold answer', async () => {
    const p = { ...SIMULATION_PARAMETERS, competenceMean: 0, followMidpoint: 5 };
    const gen = new SimulatedCodeGenerator(tasks, p, 2, readSchema(db), undefined, (sql) => query(sql));
    let wrong = 0;
    const sample = tasks.slice(0, 60);
    for (const t of sample) {
      const g = await gen.generate({ question: t.question, language: 'python', demonstrations: [], debugTurns: [], toolboxDocs: '', attempt: 0 });
      assert.match(g.note, /own program \(own-mutation/);
      const sql = JSON.parse(/"(?:[^"\\]|\\.)*"/.exec(g.code)![0]) as string;
      try {
        if (!answersMatch(t.answer, query(sql))) wrong++;
      } catch {
        wrong++;
      }
    }
    // A few tasks have no mutation that changes the answer on this database (the generator then falls back to any mutation).
    assert.ok(wrong / sample.length > 0.85, `${wrong}/${sample.length} wrong`);
  });

  it('fallback mutations: a wrong value of the same column, an inverted comparison (literals untouched)', () => {
    const schema = readSchema(db);
    const values = (table: string, column: string) => (table === 'patients' && column === 'subject_id' ? [10006, 10011, 40177] : table === 'd_labitems' && column === 'label' ? ["o'neil", 'glucose'] : []);
    const sql = "select count(*) from labevents where labevents.subject_id in ( select patients.subject_id from patients where patients.subject_id = 40177 ) and labevents.itemid in ( select d_labitems.itemid from d_labitems where d_labitems.label = 'glucose' ) and strftime('%y',labevents.charttime) >= '2103'";
    // The first known column with another value: the patient (40177 skipped as the current value).
    assert.equal(mutate(sql, 'wrong-value', schema, 1, values), sql.replace('= 40177', '= 10011'));
    // A string value is quoted and escaped.
    const label = "select d_labitems.itemid from d_labitems where d_labitems.label = 'glucose'";
    assert.equal(mutate(label, 'wrong-value', schema, 0, values), "select d_labitems.itemid from d_labitems where d_labitems.label = 'o''neil'");
    // Without values, or for an alias that is no table of the schema, nothing applies.
    assert.equal(mutate(sql, 'wrong-value', schema, 0), null);
    assert.equal(mutate('select t1.x from t1 where t1.subject_id = 5', 'wrong-value', schema, 0, values), null);
    assert.equal(mutate(sql, 'inverted-comparison', schema), sql.replace(">= '2103'", "< '2103'"));
    assert.equal(mutate("select x from t where t.a = ' >= ' and t.b is not null", 'inverted-comparison', schema), "select x from t where t.a = ' >= ' and t.b is null");
    assert.equal(mutate("select x from t where t.a = 'b'", 'inverted-comparison', schema), null);
    assert.deepEqual(applicableMutations(sql, schema, FALLBACK_MUTATION_KINDS, values), ['wrong-value', 'inverted-comparison']);
  });

  it('on the long stream an own wrong program is rarely right by accident (fallback mutations where no primary one changes the answer)', async () => {
    const stream = readTaskFile(path.join(DATA, 'ehrsql-mimic3-paper-stream.jsonl')).slice(0, 400);
    const schema = readSchema(db);
    const gen = new SimulatedCodeGenerator(stream, { ...SIMULATION_PARAMETERS, competenceMean: 0, followMidpoint: 5 }, 1, schema, undefined, (sql) => query(sql));
    let right = 0;
    let fallback = 0;
    let primaryKeepsAnswer = 0;
    for (const t of stream) {
      const g = await gen.generate({ question: t.question, language: 'python', demonstrations: [], debugTurns: [], toolboxDocs: '', attempt: 0 });
      if (/own-mutation: (wrong-value|inverted-comparison)/.test(g.note)) fallback++;
      const sql = JSON.parse(/"(?:[^"\\]|\\.)*"/.exec(g.code)![0]) as string;
      try {
        if (answersMatch(t.answer, query(sql))) right++;
      } catch {
        // a failing program is wrong
      }
      const primary = applicableMutations(t.goldSql, schema).map((k) => mutate(t.goldSql, k, schema, 0)!);
      if (primary.length > 0 && primary.every((m) => { try { return answersMatch(t.answer, query(m)); } catch { return false; } })) primaryKeepsAnswer++;
    }
    // Without the fallback kinds every one of these tasks would be answered right (measured on the whole stream: 29.6 % → 5.9 %).
    assert.ok(primaryKeepsAnswer / stream.length > 0.15, `${primaryKeepsAnswer}/${stream.length} tasks keep their answer under every primary mutation`);
    assert.ok(fallback > 0, 'no fallback mutation was used');
    assert.ok(right / stream.length < 0.1, `${right}/${stream.length} own wrong programs are right`);
  });

  it('surface rewrites keep the answer', () => {
    for (const t of tasks.slice(0, 20)) for (const v of [0, 1, 2]) assert.ok(answersMatch(t.answer, query(surfaceRewrite(t.goldSql, v))), `variant ${v} of ${t.id}`);
  });

  it('follows the top demonstration with probability σ((s − s0)/τ)', async () => {
    const p = { ...SIMULATION_PARAMETERS, followMidpoint: 0.6, followTemperature: 0.05 };
    assert.equal(followProbability(0.6, p), 0.5);
    assert.ok(followProbability(0.8, p) > 0.95 && followProbability(0.4, p) < 0.05);
    const gen = new SimulatedCodeGenerator(tasks, p, 3, readSchema(db));
    const demo = tasks[0];
    const rate = async (s: number) => {
      let followed = 0;
      for (const t of tasks.slice(1, 201)) {
        const g = await gen.generate({ question: t.question, language: 'python', demonstrations: [{ recordId: 'r1', question: demo.question, code: `answer = sql(${JSON.stringify(demo.goldSql)})`, inputSimilarity: s }], debugTurns: [], toolboxDocs: '', attempt: 0 });
        if (g.note.includes('followed record r1')) followed++;
      }
      return followed / 200;
    };
    for (const s of [0.5, 0.6, 0.65]) assert.ok(Math.abs((await rate(s)) - followProbability(s, p)) < 0.1, `following rate at s = ${s}`);
  });

  it('draws per-template competence from the Beta prior (mean μ), fixed by seed', () => {
    const xs = Array.from({ length: 2000 }, (_, i) => betaDraw(0.3, 4, 5, `t${i}`));
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    assert.ok(Math.abs(mean - 0.3) < 0.03, `mean ${mean}`);
    assert.equal(betaDraw(0.3, 4, 5, 't1'), betaDraw(0.3, 4, 5, 't1'));
    assert.notEqual(betaDraw(0.3, 4, 5, 't1'), betaDraw(0.3, 4, 6, 't1'));
  });

  it('the judge answers through the real judge path with its true- and false-positive rates', async () => {
    const judge = new SimulatedJudge(tasks, { judgeTruePositive: 0.9, judgeFalsePositive: 0.2 }, 1);
    let yesRight = 0;
    let yesWrong = 0;
    const sample = tasks.slice(0, 150);
    for (const t of sample) {
      const right = await judgeTask(judge, { question: t.question, code: 'x', language: 'python', outcome: 'success', answer: t.answer, outputExcerpt: '' });
      const wrong = await judgeTask(judge, { question: t.question, code: 'x', language: 'python', outcome: 'success', answer: [['definitely wrong']], outputExcerpt: '' });
      yesRight += right.utility;
      yesWrong += wrong.utility;
    }
    assert.ok(Math.abs(yesRight / sample.length - 0.9) < 0.08, `TPR ${yesRight / sample.length}`);
    assert.ok(Math.abs(yesWrong / sample.length - 0.2) < 0.1, `FPR ${yesWrong / sample.length}`);
  });
});
