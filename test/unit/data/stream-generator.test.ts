import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { DEFAULT_NOW } from '../../../src/core/agent/runners/types';
import { toEhrSqlDialect } from '../../../src/core/agent/runners/sql-dialect';
import { ValuePools } from '../../../src/core/data/ehr-value-pools';
import { answerStatus, generateStream, SourceLine, SourceLineSchema, StreamLine, templateQuotas } from '../../../src/core/data/stream-generator';
import { appearsIn, fillValues, valueSlots } from '../../../src/core/data/stream-values';
import { sharedAnswers } from '../../../src/core/data/stream-card';
import { STREAM_TASK_FILES } from '../../../src/core/bench/config';
import { readTaskFile } from '../../../src/core/bench/task-file';
import { planPaperStream } from '../../../src/core/bench/stream-setup';

const PAPER_STREAM_FILE = STREAM_TASK_FILES.paper;
const EHR = path.resolve(__dirname, '../../../data/ehr');
const readJsonl = <T>(file: string): T[] =>
  fs
    .readFileSync(path.join(EHR, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);

describe('paper-length EHR stream generator (issue 19)', function () {
  this.timeout(120_000);
  const source: SourceLine[] = readJsonl<unknown>('ehrsql-mimic3-tasks.jsonl').map((l) => SourceLineSchema.parse(l));
  let db: Database.Database;
  let deps: Parameters<typeof generateStream>[2];
  before(() => {
    db = new Database(path.join(EHR, 'mimic3-demo.sqlite'), { readonly: true, fileMustExist: true });
    const pools = new ValuePools(db);
    deps = { pool: (c, p) => pools.values(c, p), run: (sql) => db.prepare(toEhrSqlDialect(sql, DEFAULT_NOW)).raw().all() as unknown[][] };
  });
  after(() => db.close());

  // Three templates: a patient + drug one, a population one with a value, one without any value.
  const pick = (t: string) => source.filter((l) => l.template === t);
  const subset = (): SourceLine[] => [
    ...pick('what is the intake method of {drug_name}?'),
    ...pick('when was the [time_filter_exact1] time that patient {patient_id} was prescribed {drug_name} [time_filter_global1]?'),
    ...pick('what are_verb the top [n_rank] frequent lab tests [time_filter_global1]?'),
  ];

  it('is deterministic by seed: the same seed gives the same lines, another seed other lines', () => {
    const a = generateStream(subset(), { seed: 3, target: 400, cap: 12 }, deps).lines;
    const b = generateStream(subset(), { seed: 3, target: 400, cap: 12 }, deps).lines;
    const c = generateStream(subset(), { seed: 4, target: 400, cap: 12 }, deps).lines;
    assert.ok(a.length > 10);
    assert.deepEqual(a, b);
    assert.notDeepEqual(
      a.map((l) => l.question),
      c.map((l) => l.question),
    );
  });

  it('writes every drawn value word for word into the question and the gold SQL, and stream answers are the non-empty result of that SQL', () => {
    const { lines } = generateStream(subset(), { seed: 5, target: 400, cap: 12 }, deps);
    for (const l of lines) {
      for (const v of Object.values(l.values)) {
        assert.ok(appearsIn(l.question, v), `${JSON.stringify(v)} not word for word in ${JSON.stringify(l.question)}`);
        assert.ok(l.gold_sql.includes(v), `${v} not in the SQL`);
      }
      assert.deepEqual(l.answer, deps.run(l.gold_sql));
      if (l.split === 'test') assert.equal(l.answer_status, 'nonempty');
    }
  });

  it('keeps within the quotas, rotates through the paraphrases and separates the splits', () => {
    const src = subset();
    const { lines, quotas } = generateStream(src, { seed: 6, target: 400, cap: 12 }, deps);
    const test = lines.filter((l) => l.split === 'test');
    for (const [t, q] of quotas) assert.ok(test.filter((l) => l.template === t).length <= q, t);
    const drug = test.filter((l) => l.template === 'what is the intake method of {drug_name}?');
    assert.equal(drug.length, quotas.get('what is the intake method of {drug_name}?'), 'a template with plenty of values meets its quota');
    const testIds = new Set(src.filter((l) => l.split === 'test').map((l) => l.id));
    const paraphrases = [...testIds].filter((id) => src.find((l) => l.id === id)?.template === drug[0].template);
    assert.deepEqual(drug.slice(0, paraphrases.length).map((l) => l.source_id), paraphrases, 'the k-th line comes from paraphrase k mod n');
    for (const l of lines) assert.equal(testIds.has(l.source_id), l.split === 'test', 'stream lines from test paraphrases, memory lines from valid ones');
    const streamQuestions = new Set(test.map((l) => l.question));
    assert.ok(lines.filter((l) => l.split === 'valid').every((l) => !streamQuestions.has(l.question)));
  });

  it('fixes quotas in advance: proportional to the template frequency, at least 1, capped', () => {
    const line = (template: string, split: 'valid' | 'test'): SourceLine => ({ id: `${template}${Math.random()}`, split, question: 'q', template, values: {}, gold_sql: 'select 1', uses_synthetic_cost: false });
    const src = [...Array.from({ length: 8 }, () => line('a', 'test')), ...Array.from({ length: 2 }, () => line('b', 'test')), line('c', 'valid')];
    assert.deepEqual([...templateQuotas(src, 22, 100)], [['a', 16], ['b', 4]]);
    assert.deepEqual([...templateQuotas(src, 22, 10)], [['a', 10], ['b', 4]]);
    assert.deepEqual([...templateQuotas(src, 1, 10)], [['a', 1], ['b', 1]]);
  });

  it('classifies answers as EHRSQL does and replaces one value inside another safely', () => {
    assert.equal(answerStatus([]), 'empty');
    assert.equal(answerStatus([[null]]), 'all_null');
    assert.equal(answerStatus([[0]]), 'zero_or_false');
    assert.equal(answerStatus([[0], [1]]), 'nonempty');
    const q = 'was patient 12 given insulin and insulin glargine?';
    const sql = "select 1 from p where p.subject_id = 12 and p.drug = 'insulin' or p.drug = 'insulin glargine'";
    const slots = valueSlots(q, sql, { patient_id: 12, drug_name1: 'insulin', drug_name2: 'insulin glargine' });
    const out = fillValues(q, sql, slots, ['340', 'heparin', 'insulin']);
    assert.equal(out.question, 'was patient 340 given heparin and insulin?');
    assert.equal(out.sql, "select 1 from p where p.subject_id = 340 and p.drug = 'heparin' or p.drug = 'insulin'");
    assert.deepEqual(valueSlots('a 0.9% normal saline intake?', "x.label = '.9% normal saline'", { intake_name: '.9% normal saline' }), [], 'a value glued to a digit is not word for word');
    const same = valueSlots('what is adv eff x?', "select 1 where a.t = 'adv eff x' union select 1 where b.t = 'adv eff x'", { abbreviation: 'adv eff x', diagnosis_name: 'adv eff x' });
    assert.deepEqual(same.map((s) => [s.key, s.columns]), [['abbreviation', ['a.t', 'b.t']]], 'one value filled into several slots is one slot');
  });

  it('counts shared answers per task and per pair', () => {
    const l = (template: string, answer: unknown[][]) => ({ template, answer }) as StreamLine;
    const s = sharedAnswers([l('a', [[1]]), l('a', [[1]]), l('b', [[2], [1]]), l('b', [[1], [2]])]);
    assert.equal(s.tasks, 1);
    assert.equal(s.pairs, 2 / 6);
    assert.equal(s.sameTemplatePairs, 1);
  });

  describe('the committed file', () => {
    const lines = readJsonl<StreamLine>(PAPER_STREAM_FILE);
    const test = lines.filter((l) => l.split === 'test');

    it('has at least 2,392 stream tasks, each with a non-empty answer and its values word for word in the question', () => {
      assert.ok(test.length >= 2392, `${test.length} stream tasks`);
      for (const l of test) {
        assert.equal(l.answer_status, 'nonempty');
        assert.equal(answerStatus(l.answer), 'nonempty');
        for (const v of Object.values(l.values)) assert.ok(appearsIn(l.question, v), `${v} in ${l.question}`);
      }
    });

    it('holds answers the gold SQL really returns (every 10th stream line re-run on the demo database)', () => {
      for (const l of test.filter((_, i) => i % 10 === 0)) assert.deepEqual(l.answer, deps.run(l.gold_sql), l.question);
    });

    it('separates the splits and feeds the bench: 100 initial-memory records from valid lines of the stream templates', () => {
      const streamQuestions = new Set(test.map((l) => l.question));
      assert.ok(lines.filter((l) => l.split === 'valid').every((l) => !streamQuestions.has(l.question)));
      assert.equal(new Set(lines.map((l) => l.question)).size, lines.length, 'no question twice');
      const plan = planPaperStream(readTaskFile(path.join(EHR, PAPER_STREAM_FILE)), { initialMemory: 100, seed: 1 });
      assert.equal(plan.stream.length, test.length);
      assert.equal(plan.seeds.length, 100);
      assert.ok(plan.seeds.every((t) => t.split === 'valid'));
    });
  });
});
