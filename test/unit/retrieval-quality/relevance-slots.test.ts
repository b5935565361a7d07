import { strict as assert } from 'node:assert';
import { FEATURE_MEMO_RECORDS, recordFeatures, relevanceOf } from '../../../src/core/memory/search/relevance';
import { columnName, recordSlots } from '../../../src/core/memory/search/value-masking';
import { useValueMemory } from '../../support/value-memory';

const procedureCost = (title: string): string =>
  `answer = sql("select cost.cost from cost where cost.event_type = 'procedures_icd' and cost.event_id in (select procedures_icd.row_id from procedures_icd where procedures_icd.icd9_code = (select d_icd_procedures.icd9_code from d_icd_procedures where d_icd_procedures.short_title = '${title}'))")`;
const drugCost = (drug: string): string => `answer = sql("select cost.cost from cost where cost.event_type = 'prescriptions' and cost.event_id in (select prescriptions.row_id from prescriptions where prescriptions.drug = '${drug}')")`;

/** EHR-style records: the procedure-cost one asks the question below about another procedure. */
const MEMORY = [
  { question: 'How much does the temporary tracheostomy procedure cost?', code: procedureCost('temporary tracheostomy') },
  { question: 'How much does nicardipine HCl IV cost?', code: drugCost('nicardipine hcl iv') },
  { question: 'What was the last input of d10w for patient 12?', code: `answer = sql("select inputevents_cv.amount from inputevents_cv where inputevents_cv.itemid in (select d_items.itemid from d_items where d_items.label = 'd10w')")` },
  ...Array.from({ length: 30 }, (_, i) => ({ question: `What was the last heart rate of patient ${100 + i}?`, code: `answer = sql("select valuenum from chartevents where subject_id = ${100 + i}")` })),
];
/** Made only of a procedure of the demo database that no record names (EHRSQL test split). */
const ALL_VALUE = 'How much is percu nephrostm w/o frag?';
/** "index" is a value of the database (d_items.label): the question is still from elsewhere. */
const CODING_QUESTIONS = ['insert 77 to index 2 of list `x`', 'sort a list of dicts by the value of a key', 'flush output of python print'];

describe('relevance: a value of the data counts as one value, held by a record with a slot for it', () => {
  const percu = { phrase: 'percu nephrostm w o frag', terms: ['percu', 'nephros', 'frag'], columns: ['d_icd_procedures.short_title'] };

  it('a phrase counts once in the shared share; a record holding every word of it holds it', () => {
    const terms = ['cost', 'percu', 'nephros', 'frag'];
    const known = [true, false, false, false];
    // Without values: 1 of 4 words known, 1 of 4 shared. As one value: the unseen value words weigh nothing, and 1 of 2 is shared.
    assert.equal(relevanceOf(terms, known, new Set(['cost'])), 0.25);
    assert.ok(Math.abs(relevanceOf(terms, known, new Set(['cost']), undefined, { phrases: [percu] }) - Math.sqrt(1 / 2)) < 1e-12);
    assert.equal(relevanceOf(terms, known, new Set(['cost', 'percu', 'nephros', 'frag']), undefined, { phrases: [percu] }), 1);
  });

  it('a value the record does not hold is held when its question has a value slot left and its program compares a column holding the value', () => {
    const terms = ['percu', 'nephros', 'frag'];
    const known = [false, false, false];
    const score = (slots: number, columns: string[], phrases = [percu]): number => relevanceOf(terms, known, new Set(['cost']), undefined, { phrases, slots: () => ({ slots, columns: new Set(columns) }) });
    assert.equal(score(1, ['short_title']), 1, 'same column (by name), a slot');
    assert.equal(score(0, ['short_title']), 0, 'no slot');
    assert.equal(score(1, ['drug']), 0, 'the program compares another column');
    const two = [percu, { phrase: 'other graft', terms: ['other', 'graft'], columns: ['d_icd_procedures.short_title'] }];
    const withSlots = (n: number) => ({ phrases: two, slots: () => ({ slots: n, columns: new Set(['short_title']) }) });
    assert.ok(Math.abs(relevanceOf([...terms, 'other', 'graft'], [...known, false, false], new Set(), undefined, withSlots(1)) - Math.sqrt(1 / 2)) < 1e-12, 'one slot holds one value');
    assert.equal(relevanceOf([...terms, 'other', 'graft'], [...known, false, false], new Set(), undefined, withSlots(2)), 1);
    let asked = 0;
    relevanceOf(terms, known, new Set(['percu', 'nephros', 'frag']), undefined, { phrases: [percu], slots: () => ((asked += 1), { slots: 1, columns: new Set() }) });
    assert.equal(asked, 0, 'a phrase the record holds word for word needs no slots');
  });

  it('a one-word value gets a slot only when the memory knows the word (a chart label such as "index" is also an everyday word)', () => {
    const slots = () => ({ slots: 1, columns: new Set(['label']) });
    const index = { phrases: [{ phrase: 'index', terms: ['index'], columns: ['d_items.label'] }], slots };
    assert.equal(relevanceOf(['index'], [false], new Set(), undefined, index), 0, 'unseen: no slot');
    assert.equal(relevanceOf(['index'], [true], new Set(), undefined, index), 1, 'known to the memory: a value like any');
    const twoWords = { phrases: [{ phrase: 'multivitamin 12', terms: ['multivitamin'], columns: ['d_items.label'] }], slots };
    assert.equal(relevanceOf(['multivitamin'], [false], new Set(), undefined, twoWords), 1, 'a phrase of two words (one a number) is not one word alone');
  });

  it("recordSlots: the question's value slots (its program's literals masked) and the compared columns by name", () => {
    const slots = recordSlots(MEMORY[0].question, MEMORY[0].code);
    assert.equal(slots.slots, 1);
    assert.deepEqual([...slots.columns].sort(), ['event_type', 'short_title']);
    assert.equal(recordSlots('How many patients are there?', 'answer = sql("select count(*) from patients")').slots, 0);
    assert.equal(columnName('d_labitems.label'), 'label');
    assert.equal(columnName('DRUG'), 'drug');
  });

  it('recordFeatures keeps a record\'s features for the next searches, at most FEATURE_MEMO_RECORDS records', () => {
    const first = recordFeatures('memo question 0', 'memo_code_0()');
    assert.equal(recordFeatures('memo question 0', 'memo_code_0()'), first);
    assert.ok(first.terms.has('memo'));
    for (let i = 1; i <= FEATURE_MEMO_RECORDS; i++) recordFeatures(`memo question ${i}`, `memo_code_${i}()`);
    assert.notEqual(recordFeatures('memo question 0', 'memo_code_0()'), first, 'the oldest record went past the cap');
    const last = recordFeatures(`memo question ${FEATURE_MEMO_RECORDS}`, `memo_code_${FEATURE_MEMO_RECORDS}()`);
    assert.equal(recordFeatures(`memo question ${FEATURE_MEMO_RECORDS}`, `memo_code_${FEATURE_MEMO_RECORDS}()`), last);
    // Records of one program count one each: the oldest programs go to make room for them, and their own number is capped too.
    const shared = recordFeatures('shared question 0', 'shared_code()');
    for (let i = 1; i < FEATURE_MEMO_RECORDS; i++) recordFeatures(`shared question ${i}`, 'shared_code()');
    assert.equal(recordFeatures('shared question 0', 'shared_code()'), shared, 'the program\'s first question is still held');
    const next = recordFeatures(`shared question ${FEATURE_MEMO_RECORDS}`, 'shared_code()');
    assert.equal(recordFeatures(`shared question ${FEATURE_MEMO_RECORDS}`, 'shared_code()'), next);
    assert.notEqual(recordFeatures('shared question 0', 'shared_code()'), shared, 'past the cap one program\'s questions start over');
    assert.notEqual(recordFeatures(`memo question ${FEATURE_MEMO_RECORDS}`, `memo_code_${FEATURE_MEMO_RECORDS}()`), last, 'the other programs made room');
  });

  describe('through the retriever on a real store, with the demo database\'s values', () => {
    const memory = useValueMemory(MEMORY);
    const retrieve = memory.retrieve;

    it('a question made only of a value no record holds is answered by the record asking the same of that kind of value; coding questions are not', () => {
      const plain = memory.open(false);
      const withValues = memory.open(true);
      try {
        assert.deepEqual(retrieve(plain, ALL_VALUE), [], 'without the values: no word of it is in any record');
        const found = retrieve(withValues, ALL_VALUE);
        assert.deepEqual(found.map((d) => d.recordId), ['r0'], 'the procedure-cost record, not the drug-cost one');
        for (const q of CODING_QUESTIONS) assert.deepEqual(retrieve(withValues, q), [], q);
      } finally {
        plain.close();
        withValues.close();
      }
    });
  });
});
