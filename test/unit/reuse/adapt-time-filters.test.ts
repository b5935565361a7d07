import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { adaptCode } from '../../../src/core/agent/reuse/adapt-code';
import { numericMentions } from '../../../src/core/agent/reuse/numeric-mentions';
import { measureAdaptation, sameTemplatePairs } from '../../../src/core/agent/reuse/pair-accuracy';
import { addTimeFilter, questionTimeFilter, removeTimeFilters, swapTimeFilter } from '../../../src/core/agent/reuse/time-filter';
import { DatabaseValueLookup } from '../../../src/core/agent/reuse/value-lookup';
import { toEhrSqlDialect } from '../../../src/core/agent/runners/sql-dialect';
import { DEFAULT_NOW } from '../../../src/core/agent/runners/types';

const DATA = path.resolve(__dirname, '..', '..', '..', 'data', 'ehr');
const RX = "select count( distinct admissions.subject_id ) from admissions where admissions.hadm_id in ( select prescriptions.hadm_id from prescriptions where prescriptions.drug = 'naproxen' )";

describe('reuse model: adding, removing and reshaping time filters', () => {
  it('adds the new question\'s filter at the end of the event table\'s where clause', () => {
    const out = adaptCode({ question: 'How many patients were prescribed naproxen?', code: RX }, 'How many patients were prescribed naproxen in 2104?');
    assert.equal(out.code, RX.replace("'naproxen' )", "'naproxen' and strftime('%y',prescriptions.startdate) = '2104' )"));
    assert.deepEqual(out.substitutions, [{ from: '', to: "strftime('%y',prescriptions.startdate) = '2104'", kind: 'time-filter' }]);
  });

  it('adds a where clause when the event table has none, before its group by', () => {
    const code = 'select t1.itemid from ( select outputevents.itemid, dense_rank() over ( order by count(*) desc ) as c1 from outputevents group by outputevents.itemid ) as t1 where t1.c1 <= 4';
    assert.equal(
      addTimeFilter(code, 'top four output events until 2 years ago?')?.code,
      "select t1.itemid from ( select outputevents.itemid, dense_rank() over ( order by count(*) desc ) as c1 from outputevents where datetime(outputevents.charttime) <= datetime(current_time,'-2 year') group by outputevents.itemid ) as t1 where t1.c1 <= 4",
    );
    // Event tables come before admissions; a program that already filters by time is left alone.
    assert.match(addTimeFilter(RX, 'in 2104')?.code ?? '', /prescriptions\.startdate/);
    assert.equal(addTimeFilter("select 1 from cost where strftime('%y',cost.chargetime) = '2101'", 'in 2104'), null);
  });

  it('removes a filter the new question no longer states, whichever position it has', () => {
    const filtered = RX.replace("'naproxen' )", "'naproxen' and datetime(prescriptions.startdate,'start of year') = datetime(current_time,'start of year','-1 year') )");
    assert.equal(adaptCode({ question: 'How many patients were prescribed naproxen a year before?', code: filtered }, 'How many patients were prescribed naproxen?').code, RX);
    assert.equal(removeTimeFilters("select 1 from cost where strftime('%y',cost.chargetime) = '2104' and cost.x = 1")?.code, 'select 1 from cost where cost.x = 1');
    assert.equal(removeTimeFilters("select 1 from cost where strftime('%y',cost.chargetime) = '2104' group by cost.y")?.code, 'select 1 from cost group by cost.y');
  });

  it('reads "a year before" as last calendar year (EHRSQL\'s gold SQL)', () => {
    assert.deepEqual(questionTimeFilter('How many were ordered a year before?'), { kind: 'calendar', unit: 'year', ago: 1 });
  });

  it('reshapes every filter of a program together when they all state the same period', () => {
    const code = "select 1 from a where strftime('%y',diagnoses_icd.charttime) >= '2102' and strftime('%y',prescriptions.startdate) >= '2102'";
    assert.equal(swapTimeFilter(code, 'since 2104')?.code, "select 1 from a where strftime('%y',diagnoses_icd.charttime) >= '2104' and strftime('%y',prescriptions.startdate) >= '2104'");
    // Two different periods: ambiguous, left alone.
    assert.equal(swapTimeFilter("select 1 where strftime('%y',cost.chargetime) >= '2102' and strftime('%y',cost.chargetime) <= '2104'", 'in 2105'), null);
  });
});

describe('reuse model: "top N" counts vs durations', () => {
  it('reads "three-year" as a duration, not a count', () => {
    assert.deepEqual(numericMentions('the top five diagnoses with the highest three-year mortality'), [
      { kind: 'number', value: 5 },
      { kind: 'duration', value: 3, unit: 'year' },
    ]);
  });

  it('maps the count onto the rank cut and the duration onto N * 365, never one onto the other', () => {
    const code = 'select x from t where t.dod - t.charttime > 3 * 365 and t.c1 <= 3';
    const out = adaptCode({ question: 'top three diagnoses with the highest three-year mortality', code }, 'top four diagnoses with the highest five-year mortality');
    assert.equal(out.code, 'select x from t where t.dod - t.charttime > 5 * 365 and t.c1 <= 4');
  });

  it('maps counts when only the duration is mentioned differently', () => {
    const code = 'select x from t where t.dod - t.charttime > 4 * 365 and t.c1 <= 3';
    assert.equal(adaptCode({ question: 'the three diagnoses with the highest four-year mortality', code }, 'the three diagnoses with the highest two-year mortality').code, 'select x from t where t.dod - t.charttime > 2 * 365 and t.c1 <= 3');
  });
});

describe('reuse model: value linking across a union', () => {
  it('links the value through whichever column the literal is compared with', () => {
    const db = new BetterSqlite3(path.join(DATA, 'mimic3-demo.sqlite'), { readonly: true });
    try {
      const title = (db.prepare('SELECT short_title AS t FROM d_icd_procedures WHERE short_title NOT IN (SELECT short_title FROM d_icd_diagnoses) LIMIT 1').get() as { t: string }).t.toLowerCase();
      const code = "select d_icd_diagnoses.long_title from d_icd_diagnoses where d_icd_diagnoses.short_title = 'screening for diphtheria' union select d_icd_procedures.long_title from d_icd_procedures where d_icd_procedures.short_title = 'screening for diphtheria'";
      const out = adaptCode({ question: 'What is the full term for screening for diphtheria?', code }, `What does ${title} stand for?`, new DatabaseValueLookup(db));
      assert.equal(out.code, code.replace(/screening for diphtheria/g, title));
    } finally {
      db.close();
    }
  });
});

describe('bench:adapt measurement', () => {
  it('pairs every same-template task with each other one whose answer is non-empty, and runs the adapted SQL', () => {
    const tasks = [
      { question: 'How many patients were prescribed naproxen?', template: 't', gold_sql: RX, answer: [[1]], answer_status: 'nonempty' },
      { question: 'How many patients were prescribed danazol?', template: 't', gold_sql: RX.replace('naproxen', 'danazol'), answer: [], answer_status: 'empty' },
      { question: 'other', template: 'u', gold_sql: 'select 2', answer: [[2]], answer_status: 'nonempty' },
    ];
    assert.deepEqual(sameTemplatePairs(tasks).map(([a, b]) => [a.question, b.question]), [['How many patients were prescribed danazol?', 'How many patients were prescribed naproxen?']]);
    const db = new BetterSqlite3(path.join(DATA, 'mimic3-demo.sqlite'), { readonly: true });
    try {
      const truth = db.prepare(toEhrSqlDialect(RX, DEFAULT_NOW)).raw().all();
      const m = measureAdaptation([{ ...tasks[0], answer: truth }, tasks[1]], (sql) => db.prepare(toEhrSqlDialect(sql, DEFAULT_NOW)).raw().all());
      assert.deepEqual([m.pairs, m.right, m.identical, m.failures.length], [1, 1, 1, 0]);
      const wrong = measureAdaptation([{ ...tasks[0], answer: [['nothing like it']] }, tasks[1]], (sql) => db.prepare(toEhrSqlDialect(sql, DEFAULT_NOW)).raw().all());
      assert.deepEqual([wrong.right, wrong.identical], [1, 1]);
    } finally {
      db.close();
    }
  });
});

describe('reuse model: age groups', () => {
  const code = 'select t1.icd9_code from ( select diagnoses_icd.icd9_code, dense_rank() over ( order by count(*) desc ) as c1 from diagnoses_icd where diagnoses_icd.hadm_id in ( select admissions.hadm_id from admissions where admissions.age between 20 and 29 ) group by diagnoses_icd.icd9_code ) as t1 where t1.c1 <= 4';

  it('reshapes a decade into "or above" and keeps the count mapping apart from the age', () => {
    const out = adaptCode({ question: 'What are the top four diagnoses for patients in their 20s?', code }, 'What are the top three diagnoses for patients aged 60 or above?');
    assert.equal(out.code, code.replace('admissions.age between 20 and 29', 'admissions.age >= 60').replace('t1.c1 <= 4', 't1.c1 <= 3'));
  });

  it('maps one decade onto another and "or above" back onto a decade', () => {
    assert.equal(adaptCode({ question: 'top four diagnoses for patients in their 20s?', code }, 'top four diagnoses for patients in their 40s?').code, code.replace('between 20 and 29', 'between 40 and 49'));
    const above = code.replace('admissions.age between 20 and 29', 'admissions.age >= 60');
    assert.equal(adaptCode({ question: 'top four diagnoses for patients aged 60 or above?', code: above }, 'top four diagnoses for patients aged 30s?').code, code.replace('between 20 and 29', 'between 30 and 39'));
  });
});
