/**
 * Issue 37: a fused collapse groups by the program identities the question shapes hold once a re-ranked
 * search loaded them (HybridSearch.heldIdentities), reading no program row, instead of reading each
 * candidate's code. The answers must be those of the search that reads the code: same records, order,
 * scores, ranks and copy counts, before and after deletes, restores and edits.
 */
import { strict as assert } from 'node:assert';
import { loadEvalFile } from '../../../src/core/bench/eval-retrieval';
import { HybridSearch, type SearchHit, type SearchOptions } from '../../../src/core/memory/search/hybrid-search';
import { DomainValues } from '../../../src/core/memory/search/domain-values';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { HashingEmbedder } from '../../../src/core/similarity/hashing-embedder';
import { sampleRecord } from '../../support/records';
import { writeEhrSplit } from '../retrieval-quality/ehr-split';
import * as fs from 'node:fs';

const VALUES = new DomainValues([['potassium', 'd_labitems.label'], ['aspirin', 'prescriptions.drug']]);
const COPIES = 4;

describe('fused collapse by held program identities (issue 37)', function () {
  // Thousands of searches over a 600-record memory: minutes on a loaded 2-core machine.
  this.timeout(240_000);
  const embedder = new HashingEmbedder();
  let store: MemoryStore;
  let questions: string[];

  before(function () {
    this.timeout(60_000);
    const files = writeEhrSplit(150);
    try {
      const memory = loadEvalFile(files.memory);
      questions = loadEvalFile(files.queries).map((q) => q.question);
      store = MemoryStore.open(':memory:');
      // Each program several times under other ids and other wordings (other vectors), so copies fill the rankings.
      const records = memory.flatMap((m, i) => Array.from({ length: COPIES }, (_, c) => sampleRecord({ id: `m${i}-${c}`, question: c === 0 ? m.question : `${m.question} (${c})`, code: m.code, createdTask: i * COPIES + c })));
      store.add(records, { trigger: 'user', embeddings: records.map((r) => embedder.embedSync(r.question)), embedderId: embedder.id });
      // Utilities differ between copies, so the representative is chosen by them, not by rank.
      const db = store.connectionForQueries();
      const setUtility = db.prepare('UPDATE records SET utility_sum = ?, utility_count = ? WHERE id = ?');
      memory.forEach((_, i) => setUtility.run((i % 3) + 1, 3, `m${i}-${(i + 1) % COPIES}`));
    } finally {
      fs.rmSync(files.dir, { recursive: true, force: true });
    }
  });
  after(() => store.close());

  const answers = (search: HybridSearch, options: SearchOptions, k: number): SearchHit[][] =>
    questions.map((q) => search.search({ text: q, vector: embedder.embedSync(q) }, k, options));

  /** Counts the program rows the search reads (its programStmt). */
  const countProgramReads = (search: HybridSearch): { reads: number } => {
    const counter = { reads: 0 };
    const holder = search as unknown as { programStmt: { get: (...a: unknown[]) => unknown } };
    const stmt = holder.programStmt;
    const get = stmt.get.bind(stmt);
    const counted: typeof stmt = Object.assign(Object.create(stmt) as object, { get: (...a: unknown[]) => ((counter.reads += 1), get(...a)) });
    holder.programStmt = counted;
    return counter;
  };

  const compare = (held: HybridSearch, plain: HybridSearch, label: string): void => {
    for (const k of [1, 4, 10]) {
      for (const extra of [{}, { collapseSides: true }, { recency: { lambda: 0.01, currentTask: 600 } }, { diversity: 0.3 }, { callAgreement: false }] as SearchOptions[]) {
        assert.deepEqual(answers(held, extra, k), answers(plain, extra, k), `${label}: k ${k} ${JSON.stringify(extra)}`);
      }
    }
  };

  it('gives the answers of the search that reads the code, reading no program row, before and after deletes, restores and edits', async () => {
    const held = HybridSearch.open(store, { file: null, domainValues: VALUES });
    const plain = HybridSearch.open(store, { file: null });
    try {
      void held.shapes;
      await held.ready;
      assert.ok(held.shapes.loaded, 'the question shapes are held');
      const heldReads = countProgramReads(held);
      const plainReads = countProgramReads(plain);
      const fused = answers(held, {}, 4);
      assert.equal(heldReads.reads, 0, 'a fused collapse with identities held reads no program row');
      assert.deepEqual(fused, answers(plain, {}, 4));
      assert.ok(plainReads.reads > questions.length, `the search without identities reads the programs (${plainReads.reads})`);
      assert.ok(fused.some((hits) => hits.some((h) => (h.identical ?? 0) > 0)), 'copies are counted');
      compare(held, plain, 'as added');

      // Deletes (whole programs and single copies), then restores of some of them.
      store.transition(Array.from({ length: 30 }, (_, i) => `m${i}-0`).concat(Array.from({ length: COPIES }, (_, c) => `m40-${c}`)), 'delete', { trigger: 'user' });
      compare(held, plain, 'after deletes');
      store.transition(Array.from({ length: 10 }, (_, i) => `m${i}-0`).concat(['m40-2']), 'restore', { trigger: 'user' });
      compare(held, plain, 'after restores');

      // Edits: a copy becomes another program (its own), and another program's copy becomes a copy of program 50.
      const db = store.connectionForQueries();
      const code50 = (db.prepare('SELECT code FROM records WHERE id = ?').get('m50-0') as { code: string }).code;
      db.prepare('UPDATE records SET code = ? WHERE id = ?').run(`${code50}\n# edited`, 'm50-1');
      db.prepare('UPDATE records SET code = ? WHERE id = ?').run(code50, 'm60-2');
      compare(held, plain, 'after edits');
    } finally {
      held.close();
      plain.close();
    }
  });
});
