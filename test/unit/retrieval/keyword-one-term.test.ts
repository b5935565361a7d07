import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { SyntheticRecords } from '../../../src/core/bench/synthetic-records';
import { CompactPostings } from '../../../src/core/memory/keyword/keyword-compact';
import { Doc, SCORER_OPTIONS } from '../../../src/core/memory/keyword/keyword-documents';
import { KeywordScorer, TermIndex } from '../../../src/core/memory/keyword/keyword-scorer';
import { seededRandom } from '../../../src/core/random';

const TASKS = path.join(__dirname, '..', '..', '..', 'data', 'ehr', 'ehrsql-mimic3-tasks.jsonl');

describe('one-term keyword queries: the best documents in one pass (topOfTerm) against the whole-term scorer', function () {
  this.timeout(120_000);

  it('the same hits, scores (bit for bit) and order, ties included, for every term through adds, removals, edits and compactions', () => {
    const gen = SyntheticRecords.fromFile(TASKS, 71);
    const random = seededRandom(5);
    const compact = CompactPostings.empty();
    const docs = new Map<number, Doc>();
    let next = 1;
    const add = (n: number) => {
      for (const r of gen.records(n)) {
        const doc = { id: next++, question: r.question, code: r.execution.code };
        docs.set(doc.id, doc);
        compact.add(doc);
      }
    };
    const df = (t: string) => compact.perField(t);
    let compared = 0;
    let cutTies = 0;
    const check = (label: string) => {
      const whole: TermIndex = { get documentCount() { return compact.documentCount; }, documentIds: () => compact.documentIds(), readTerm: compact.readTerm };
      const fast = new KeywordScorer({ ...whole, topOfTerm: compact.topOfTerm }, { ...SCORER_OPTIONS, oneTermTopMinPostings: 0 });
      const reference = new KeywordScorer(whole, SCORER_OPTIONS);
      const ordinals = new Map([...compact.documentIds()].map((rid, i) => [rid, i]));
      for (const term of compact.termList()) {
        assert.ok(compact.topOfTerm(term, 5, ordinals), `${label}: ${term} answered in one pass`);
        for (const limit of [1, 4, 32, 300]) {
          const want = reference.search([term], limit + 1, df);
          assert.deepEqual(fast.search([term], limit, df), want.slice(0, limit), `${label}: ${term} top ${limit}`);
          if (want.length > limit && want[limit].score === want[limit - 1].score) cutTies++;
          compared++;
        }
      }
    };
    add(700);
    check('built');
    for (let round = 0; round < 5; round++) {
      for (const rid of [...docs.keys()].filter(() => random() < 0.1)) {
        const doc = docs.get(rid)!;
        docs.delete(rid);
        // Every fourth one leaves with another text (an edited record: a compaction at the next read).
        compact.remove(rid, rid % 4 === 0 ? { ...doc, question: `${doc.question} edited` } : doc);
      }
      add(60);
      if (round === 1) compact.compact();
      check(`round ${round}`);
    }
    assert.ok(compact.compactions >= 2, `${compact.compactions} compactions`);
    assert.ok(compared > 5000, `${compared} queries compared`);
    assert.ok(cutTies > 100, `${cutTies} answers cut inside a run of equal scores`);
  });

  it('a delta of new postings beside the base (no compaction since) is read in the same pass', () => {
    const gen = SyntheticRecords.fromFile(TASKS, 72);
    const compact = CompactPostings.empty();
    const docs: Doc[] = gen.records(550).map((r, i) => ({ id: i + 1, question: r.question, code: r.execution.code }));
    docs.slice(0, 400).forEach((d) => compact.add(d));
    compact.compact();
    docs.slice(400).forEach((d) => compact.add(d));
    // Leaving with their indexed text (no compaction): tombstones in the base and in the delta.
    for (const d of [docs[2], docs[90], docs[401], docs[500]]) compact.remove(d.id, d);
    const df = (t: string) => compact.perField(t);
    const whole: TermIndex = { get documentCount() { return compact.documentCount; }, documentIds: () => compact.documentIds(), readTerm: compact.readTerm };
    const fast = new KeywordScorer({ ...whole, topOfTerm: compact.topOfTerm }, { ...SCORER_OPTIONS, oneTermTopMinPostings: 0 });
    const reference = new KeywordScorer(whole, SCORER_OPTIONS);
    for (const term of compact.termList()) assert.deepEqual(fast.search([term], 16, df), reference.search([term], 16, df), term);
    assert.equal(compact.compactions, 1, 'no compaction since the base');
    assert.ok(compact.sizes.deltaPostings > 0 && compact.sizes.tombstones === 4);
  });
});
