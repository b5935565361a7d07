import { strict as assert } from 'node:assert';
import { DomainValues } from '../../../src/core/memory/search/domain-values';
import { queryContentTerms, relevanceOf, relevanceScorer } from '../../../src/core/memory/search/relevance';
import { useValueMemory } from '../../support/value-memory';

/** EHR-style records: none of them names the drug, procedure or diagnosis the value-heavy question asks about. */
const MEMORY = [
  { question: 'How many patients were prescribed danazol after a diagnosis of hypertension?', code: `answer = sql("select count(*) from prescriptions where drug = 'danazol'")` },
  { question: 'How many patients were prescribed aspirin this year?', code: `answer = sql("select count(*) from prescriptions where drug = 'aspirin'")` },
  { question: 'What is the intake method of insulin?', code: `answer = sql("select distinct route from prescriptions where drug = 'insulin'")` },
  { question: 'What was the last heart rate of patient 12?', code: `answer = sql("select valuenum from chartevents where subject_id = 12")` },
  { question: 'How many patients were admitted to the hospital this year?', code: 'answer = sql("select count(*) from admissions")' },
  // A memory of some size: words every record holds weigh little next to the words it never saw.
  ...Array.from({ length: 40 }, (_, i) => ({ question: `What was the last heart rate of patient ${100 + i}?`, code: `answer = sql("select valuenum from chartevents where subject_id = ${100 + i}")` })),
];
/** Made mostly of values of the database that no stored record holds. */
const VALUE_HEAVY = 'How many patients were prescribed metoprolol tartrate after a diagnosis of crnry athrscl natve vssl?';
const CODING_QUESTIONS = ['sort a list of dicts by the value of a key', 'read a csv file into a pandas dataframe', 'remove duplicate items from a python list while keeping their order'];

describe('relevance with the values of the data (a value-heavy question of the domain passes the floor)', () => {
  it('a value word the memory never saw is left out of the known share; a known one counts as any word', () => {
    const terms = ['patient', 'prescrib', 'oxcarbazepin'];
    const record = new Set(['patient', 'prescrib']);
    const weights = [1.1, 2.5, 7.5];
    const oxcarbazepine = { phrases: [{ phrase: 'oxcarbazepine', terms: ['oxcarbazepin'], columns: ['prescriptions.drug'] }] };
    const without = relevanceOf(terms, [true, true, false], record, weights);
    const withValues = relevanceOf(terms, [true, true, false], record, weights, oxcarbazepine);
    assert.ok(Math.abs(without - Math.sqrt((3.6 / 11.1) * (2 / 3))) < 1e-12);
    assert.ok(Math.abs(withValues - Math.sqrt(2 / 3)) < 1e-12, 'known share 1: the unseen value weighs nothing');
    assert.equal(relevanceOf(terms, [true, true, true], record, weights, oxcarbazepine), relevanceOf(terms, [true, true, true], record, weights), 'a known value word counts as known');
    assert.equal(relevanceOf(['oxcarbazepin'], [false], new Set(['oxcarbazepin']), [7.5], oxcarbazepine), 1, 'every word an unseen value the record holds');
    assert.equal(relevanceOf(['oxcarbazepin'], [false], new Set(), [7.5], oxcarbazepine), 0, 'a value the record does not hold, no slot given: not shared');
  });

  it('DomainValues.valueTerms gives each value phrase of the data in a text once, with its stemmed words and columns', () => {
    const values = new DomainValues([['Metoprolol Tartrate', 'prescriptions.drug'], ['crnry athrscl natve vssl', 'd_icd_diagnoses.short_title']]);
    const found = values.valueTerms(`${VALUE_HEAVY} Metoprolol tartrate again.`);
    assert.deepEqual(found, [
      { phrase: 'metoprolol tartrate', terms: queryContentTerms('metoprolol tartrate'), columns: ['prescriptions.drug'] },
      { phrase: 'crnry athrscl natve vssl', terms: queryContentTerms('crnry athrscl natve vssl'), columns: ['d_icd_diagnoses.short_title'] },
    ]);
    assert.deepEqual(values.valueTerms('sort a list by key'), []);
  });

  describe('through the retriever on a real store, with the demo database\'s values', () => {
    const memory = useValueMemory(MEMORY);
    const retrieve = memory.retrieve;

    it('the value-heavy question is cut without the values and answered with them; coding questions stay unanswered either way', () => {
      const plain = memory.open(false);
      const withValues = memory.open(true);
      try {
        assert.deepEqual(retrieve(plain, VALUE_HEAVY), [], 'without the values: unknown words, as from elsewhere');
        const found = retrieve(withValues, VALUE_HEAVY);
        assert.ok(found.length >= 1);
        assert.equal(found[0].recordId, 'r0');
        for (const q of CODING_QUESTIONS) assert.deepEqual(retrieve(withValues, q), [], q);
        // configure() follows the editor's settings: the values go with it.
        withValues.configure({ rerank: false, domainValues: null });
        assert.deepEqual(retrieve(withValues, VALUE_HEAVY), []);
      } finally {
        plain.close();
        withValues.close();
      }
    });

    it('the scorer without values is the rule before (no value words given: same score)', () => {
      const df = (terms: readonly string[]): number[] => terms.map((t) => (t === 'patient' ? 3 : t === 'prescrib' ? 2 : 0));
      const a = relevanceScorer(VALUE_HEAVY, df, 5)(MEMORY[0].question, MEMORY[0].code);
      const b = relevanceScorer(VALUE_HEAVY, df, 5, () => [])(MEMORY[0].question, MEMORY[0].code);
      assert.equal(a, b);
      assert.ok(relevanceScorer(VALUE_HEAVY, df, 5, (q) => memory.values.valueTerms(q))(MEMORY[0].question, MEMORY[0].code) > a);
    });
  });
});
