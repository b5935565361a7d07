import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import MiniSearch from 'minisearch';
import { SyntheticRecords } from '../../../src/core/bench/synthetic-records';
import { Doc, newMiniSearch, SCORER_OPTIONS, tokenize } from '../../../src/core/memory/keyword/keyword-documents';
import { postingsReader } from '../../../src/core/memory/keyword/keyword-postings';
import { single, TermResults } from '../../../src/core/memory/keyword/keyword-select';
import { seededRandom } from '../../../src/core/random';

const TASKS = path.join(__dirname, '..', '..', '..', 'data', 'ehr', 'ehrsql-mimic3-tasks.jsonl');

/** MiniSearch's public results for one term, per document: score and first matching field (the scorer's reference path). */
function publicResults(ms: MiniSearch<Doc>, term: string, only?: (rid: number) => boolean): Map<number, { score: number; field: number }> {
  const results = ms.search(term, only ? { tokenize: single, boostDocument: (rid: number) => (only(rid) ? 1 : 0) } : { tokenize: single });
  return new Map(results.map((r) => [r.id as number, { score: r.score, field: SCORER_OPTIONS.fields.indexOf((r.match as Record<string, string[]>)[term][0]) }]));
}

/** The reader's results keyed by rid (ordinal = rid here). */
function readerResults(r: TermResults): Map<number, { score: number; field: number }> {
  return new Map(Array.from(r.ords, (o, j) => [o, { score: r.scores[j], field: r.field[j] }]));
}

function identity(ms: MiniSearch<Doc>): Map<number, number> {
  return new Map((ms.search(MiniSearch.wildcard) as { id: number }[]).map((r) => [r.id, r.id]));
}

describe('keyword postings reader (MiniSearch’s per-term scores without its result objects)', () => {
  it('gives every term’s results bit for bit as MiniSearch’s search, through additions, removals and a document filter', () => {
    const gen = SyntheticRecords.fromFile(TASKS, 11);
    const ms = newMiniSearch();
    const docs: Doc[] = gen.records(600).map((r, i) => ({ id: i + 1, question: r.question, code: r.execution.code }));
    ms.addAll(docs);
    const read = postingsReader(ms, SCORER_OPTIONS);
    assert.ok(read, 'MiniSearch 7.1’s internals are readable');
    const random = seededRandom(5);
    let checkedTerms = 0;
    let bothFields = 0;
    for (let round = 0; round < 6; round++) {
      const live = [...ms.search(MiniSearch.wildcard)].map((r) => r.id as number);
      const terms = [...new Set(live.slice(0, 40).flatMap((rid) => {
        const doc = docs[rid - 1];
        return [...tokenize(doc.question, 'question'), ...tokenize(doc.code, 'code')];
      }))];
      const ordinals = identity(ms);
      const inBoth = new Set(live.flatMap((rid) => {
        const code = new Set(tokenize(docs[rid - 1].code, 'code'));
        return tokenize(docs[rid - 1].question, 'question').filter((t) => code.has(t));
      }));
      const only = (rid: number) => rid % 3 !== round % 3;
      for (const term of terms) {
        const mine = read(term, ordinals);
        assert.ok(mine);
        assert.deepEqual(readerResults(mine), publicResults(ms, term), term);
        const filtered = read(term, ordinals, only);
        assert.ok(filtered);
        assert.deepEqual(readerResults(filtered), publicResults(ms, term, only), `${term} (filtered)`);
        checkedTerms++;
        if (inBoth.has(term)) bothFields++;
      }
      // Remove some documents (their postings go), add new ones (every score changes).
      for (const rid of live.filter(() => random() < 0.05)) ms.remove(docs[rid - 1]);
      const more = gen.records(50).map((r, i) => ({ id: docs.length + i + 1, question: r.question, code: r.execution.code }));
      docs.push(...more);
      ms.addAll(more);
    }
    assert.ok(checkedTerms > 200, `${checkedTerms} terms checked`);
    assert.ok(bothFields > 0, 'some terms occur in both fields (their scores are summed in field order)');
    assert.deepEqual(read('no-such-term', identity(ms))?.ords.length, 0);
  });

  it('leaves out documents without an ordinal, gives up on a discarded document’s posting, and is not built on other objects', () => {
    const ms = newMiniSearch();
    ms.addAll([
      { id: 1, question: 'aspirin dose', code: "answer = sql('select aspirin')" },
      { id: 2, question: 'aspirin for patients', code: '' },
      { id: 3, question: 'heart rate', code: '' },
    ]);
    const read = postingsReader(ms, SCORER_OPTIONS)!;
    assert.deepEqual([...read('aspirin', new Map([[1, 0], [2, 1]]))!.ords].sort(), [0, 1]);
    assert.deepEqual([...read('aspirin', new Map([[2, 7]]))!.ords], [7]);
    ms.discard(2); // not vacuumed: MiniSearch itself would adjust counts while scoring
    assert.equal(read('aspirin', new Map([[1, 0], [3, 2]])), null);
    assert.equal(postingsReader({ search: () => [] }, SCORER_OPTIONS), null);
    assert.equal(postingsReader(null, SCORER_OPTIONS), null);
  });
});
