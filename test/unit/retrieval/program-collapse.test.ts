import { strict as assert } from 'node:assert';
import { HybridSearch } from '../../../src/core/memory/search/hybrid-search';
import { DomainValues } from '../../../src/core/memory/search/domain-values';
import { collapseByProgram, programKey, type ProgramCandidate } from '../../../src/core/memory/search/program-collapse';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { HashingEmbedder } from '../../../src/core/similarity/hashing-embedder';
import { SAMPLE_QUESTIONS, sampleRecord } from '../../support/records';

function candidate(rid: number, score: number, code: string, extra: Partial<ProgramCandidate> = {}): ProgramCandidate {
  return { rid, score, code, language: 'python', utilitySum: 0, utilityCount: 0, createdTask: 0, ...extra };
}

describe('collapseByProgram', () => {
  it('keys programs by language and code up to layout noise', () => {
    assert.equal(programKey('a = 1  \n\n  b =  2\n', 'python'), programKey('a = 1\n  b = 2', 'python'));
    assert.notEqual(programKey('a = 1', 'python'), programKey('a = 1', 'javascript'));
    assert.notEqual(programKey('a = 1', 'python'), programKey('a = 2', 'python'));
  });

  it('collapses identical programs to one group in ranking order, counting the others', () => {
    const groups = collapseByProgram([candidate(1, 0.9, 'x'), candidate(2, 0.8, 'x'), candidate(3, 0.7, 'y'), candidate(4, 0.6, 'x'), candidate(5, 0.5, 'z')], 2);
    assert.deepEqual(groups.map((g) => [g.score, g.identical, g.members.map((m) => m.rid)]), [
      [0.9, 2, [1, 2, 4]],
      [0.7, 0, [3]],
    ]);
  });

  it('shows the member with the best mean utility, then the most recent', () => {
    const byUtility = collapseByProgram([candidate(1, 0.9, 'x', { utilitySum: 1, utilityCount: 2 }), candidate(2, 0.8, 'x', { utilitySum: 3, utilityCount: 3 }), candidate(3, 0.7, 'x')], 4);
    assert.equal(byUtility[0].representative.rid, 2);
    const byRecency = collapseByProgram([candidate(1, 0.9, 'x', { createdTask: 3 }), candidate(2, 0.8, 'x', { createdTask: 7 }), candidate(3, 0.7, 'x', { createdTask: 5 })], 4);
    assert.equal(byRecency[0].representative.rid, 2);
    const sameTask = collapseByProgram([candidate(1, 0.9, 'x'), candidate(9, 0.8, 'x')], 4);
    assert.equal(sameTask[0].representative.rid, 9);
  });

  it('with diversity, prefers a different program over a near copy of the first', () => {
    const list = [candidate(1, 1.0, "sql('select count(*) from a where x = 1')"), candidate(2, 0.95, "sql('select count(*) from a where x = 2')"), candidate(3, 0.9, "sql('select name from b order by t')")];
    assert.deepEqual(collapseByProgram(list, 2).map((g) => g.representative.rid), [1, 2]);
    assert.deepEqual(collapseByProgram(list, 2, { diversity: 0.7 }).map((g) => g.representative.rid), [1, 3]);
    assert.throws(() => collapseByProgram(list, 2, { diversity: 2 }), RangeError);
  });
});

describe('HybridSearch: duplicate-aware ranking', () => {
  const embedder = new HashingEmbedder();
  const QUESTIONS = SAMPLE_QUESTIONS.slice(0, 6);
  const codeOf = (i: number): string => `answer = sql("select ${i} from t${i}")`;

  function open(copies: number): { store: MemoryStore; search: HybridSearch } {
    const store = MemoryStore.open(':memory:');
    const records = [];
    for (let c = 0; c < copies; c++) for (const [i, q] of QUESTIONS.entries()) records.push(sampleRecord({ id: `r${i}-c${c}`, question: q, code: codeOf(i), createdTask: c }));
    store.add(records, { trigger: 'user', embeddings: records.map((r) => embedder.embedSync(r.question)), embedderId: embedder.id });
    // With a database's values attached, so a re-ranked search re-ranks (rerankApplies).
    return { store, search: HybridSearch.open(store, { file: null, domainValues: new DomainValues([['aspirin', 'prescriptions.drug']]) }) };
  }

  it('ranks a memory of 20 copies per record as the memory without copies, and counts the copies', () => {
    const single = open(1);
    const copied = open(20);
    try {
      for (const q of QUESTIONS) {
        const query = { text: q, vector: embedder.embedSync(q) };
        const a = single.search.search(query, 4);
        const b = copied.search.search(query, 4);
        assert.deepEqual(b.map((h) => h.recordId.split('-')[0]), a.map((h) => h.recordId.split('-')[0]), q);
        assert.equal(new Set(b.map((h) => h.recordId.split('-')[0])).size, 4);
        // The representative is the most recent copy (no utility yet); the other 19 are counted.
        for (const h of b) {
          assert.equal(h.recordId.split('-')[1], 'c19');
          assert.equal(h.identical, 19);
        }
        for (const h of a) assert.equal(h.identical, 0);
      }
    } finally {
      for (const m of [single, copied]) {
        m.search.close();
        m.store.close();
      }
    }
  });

  it('re-ranked (copies told apart by the program identities the question shapes hold, each side collapsed): the same representatives and counts as the fused path', () => {
    const copied = open(20);
    try {
      for (const q of QUESTIONS) {
        const query = { text: q, vector: embedder.embedSync(q) };
        const fused = copied.search.search(query, 4);
        for (const collapseSides of [undefined, true]) {
          const reranked = copied.search.search(query, 4, { rerank: true, collapseSides });
          assert.equal(new Set(reranked.map((h) => h.recordId.split('-')[0])).size, 4, q);
          assert.deepEqual(new Set(reranked.map((h) => h.recordId.split('-')[0])), new Set(fused.map((h) => h.recordId.split('-')[0])), q);
          for (const h of reranked) {
            assert.equal(h.recordId.split('-')[1], 'c19', `${q}: the most recent copy represents its program`);
            assert.equal(h.identical, 19, q);
          }
        }
      }
    } finally {
      copied.search.close();
      copied.store.close();
    }
  });

  it('keeps every copy when collapse is off (and in the diagnostic vector mode)', () => {
    const copied = open(5);
    try {
      const q = QUESTIONS[1];
      const query = { text: q, vector: embedder.embedSync(q) };
      const off = copied.search.search(query, 4, { collapse: false });
      assert.equal(new Set(off.map((h) => h.recordId.split('-')[0])).size, 1);
      assert.equal(off[0].identical, undefined);
      const vector = copied.search.search(query, 4, { mode: 'vector' });
      assert.equal(new Set(vector.map((h) => h.recordId.split('-')[0])).size, 1);
    } finally {
      copied.search.close();
      copied.store.close();
    }
  });
});
