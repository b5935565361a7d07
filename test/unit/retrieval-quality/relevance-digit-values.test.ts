import { strict as assert } from 'node:assert';
import { DomainValues } from '../../../src/core/memory/search/domain-values';
import { DEFAULT_MIN_RELEVANCE, recordTerms, relevanceScorer } from '../../../src/core/memory/search/relevance';
import { QuestionShapes } from '../../../src/core/memory/search/rerank';
import { ValueVocabulary } from '../../../src/core/memory/search/value-masking';

/** Values of the data holding numbers (ICD titles, input labels), beside shorter values inside them. */
const VALUES = new DomainValues([
  ['3 deg burn w loss-thigh', 'd_icd_diagnoses.short_title'],
  ['thigh', 'd_items.label'],
  ['0.9% Normal Saline', 'd_items.label'],
  ['normal saline', 'd_icd_procedures.short_title'],
  ['ac embl internl jug vein', 'd_icd_diagnoses.short_title'],
]);
const QUESTION = 'What does a 3 deg burn w loss-thigh stand for?';
/** Records asking the same of other diagnoses (none holds the question's value), and one of another kind. */
const MEMORY = [
  { question: 'What does ac embl internl jug vein stand for?', code: `answer = sql("select long_title from d_icd_diagnoses where short_title = 'ac embl internl jug vein'")` },
  { question: 'What does dmii wo cmp nt st uncntr stand for?', code: `answer = sql("select long_title from d_icd_diagnoses where short_title = 'dmii wo cmp nt st uncntr'")` },
  { question: 'What was the last heart rate of patient 12 since 1 year ago?', code: `answer = sql("select valuenum from chartevents where subject_id = 12 and charttime >= datetime(current_time, '-1 year')")` },
];

describe('a value of the data holding a number is one value (value masking before the number patterns)', () => {
  it('DomainValues finds the whole phrase, digits included, with its column, not a shorter value inside it', async () => {
    assert.deepEqual(VALUES.columnsIn(QUESTION), [{ phrase: '3 deg burn w loss thigh', columns: ['d_icd_diagnoses.short_title'] }]);
    assert.deepEqual(VALUES.columnsIn('the last 0.9% normal saline intake of patient 4'), [{ phrase: '0 9 normal saline', columns: ['d_items.label'] }]);
    assert.deepEqual(
      VALUES.valueTerms(QUESTION).map((v) => v.phrase),
      ['3 deg burn w loss thigh'],
    );
    // The thread crossing's unpacked values, and values built around a vocabulary made otherwise, find it too.
    const grouped = DomainValues.group([['3 deg burn w loss-thigh', 'd_icd_diagnoses.short_title'], ['thigh', 'd_items.label']]);
    const unpacked = await DomainValues.unpack(DomainValues.pack(grouped));
    assert.deepEqual(unpacked.columnsIn(QUESTION), [{ phrase: '3 deg burn w loss thigh', columns: ['d_icd_diagnoses.short_title'] }]);
    const built = new DomainValues({ built: { columns: new Map(grouped), vocabulary: ValueVocabulary.of(grouped.map(([phrase]) => phrase)) } });
    assert.deepEqual(built.columnsIn(QUESTION), [{ phrase: '3 deg burn w loss thigh', columns: ['d_icd_diagnoses.short_title'] }]);
    // Numbers that start no value of the data stay numbers.
    assert.deepEqual(VALUES.columnsIn('patient 3 had normal saline'), [{ phrase: 'normal saline', columns: ['d_icd_procedures.short_title'] }]);
  });

  it('a vocabulary of program literals still reads a quantity as a number: "1 year" of \'-1 year\' is no value', () => {
    const vocabulary = new ValueVocabulary();
    for (const r of MEMORY) vocabulary.add(r.code);
    assert.equal(vocabulary.has('1 year'), true);
    assert.equal(vocabulary.mask('the last heart rate since 1 year ago').text, 'the last heart rate since <number> year ago');
  });

  it('the re-ranking\'s value columns and the relevance both see the value', () => {
    const shapes = new QuestionShapes();
    MEMORY.forEach((r, i) => shapes.set(i, r.question, r.code));
    shapes.setDomainValues(VALUES);
    assert.deepEqual(shapes.queryColumns(QUESTION), [['d_icd_diagnoses.short_title']]);

    const df = new Map<string, number>();
    for (const r of MEMORY) for (const t of recordTerms(r.question, r.code)) df.set(t, (df.get(t) ?? 0) + 1);
    const frequencies = (terms: readonly string[]): number[] => terms.map((t) => df.get(t) ?? 0);
    const withValues = relevanceScorer(QUESTION, frequencies, MEMORY.length, (q) => VALUES.valueTerms(q));
    const without = relevanceScorer(QUESTION, frequencies, MEMORY.length);
    const [sameKind, , otherKind] = MEMORY;
    // The record asking the same of another diagnosis has a value slot compared with short_title: it holds the value.
    assert.ok(withValues(sameKind.question, sameKind.code) >= DEFAULT_MIN_RELEVANCE, `${withValues(sameKind.question, sameKind.code)}`);
    assert.ok(without(sameKind.question, sameKind.code) < DEFAULT_MIN_RELEVANCE, 'without the values the unseen words count against it');
    assert.ok(withValues(otherKind.question, otherKind.code) < DEFAULT_MIN_RELEVANCE);
  });
});
