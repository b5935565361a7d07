import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { storeEmbedder } from '../../../src/core/app/embedding';
import { nullLogger } from '../../../src/core/logger';
import { HybridSearch } from '../../../src/core/memory/search/hybrid-search';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { SAMPLE_QUESTIONS, sampleRecord } from '../../support/records';

const WRITER = path.join(__dirname, 'support', 'other-process-writer.ts');
const QUESTIONS = SAMPLE_QUESTIONS.slice(0, 4);

/** Runs the writer as a real second process (its own connection, its own pid). */
function otherProcess(...args: string[]): void {
  execFileSync(process.execPath, ['-r', 'tsx/cjs', WRITER, ...args], { stdio: 'pipe' });
}

describe('cross-process freshness (record_changes log)', function () {
  this.timeout(120_000);
  let dir: string;
  let db: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fresh-'));
    db = path.join(dir, 'm.sqlite');
    const store = MemoryStore.open(db);
    const embedder = storeEmbedder(store, nullLogger);
    store.add(QUESTIONS.map((q, i) => sampleRecord({ id: `r${i}`, question: q })), { trigger: 'user', embeddings: QUESTIONS.map((q) => embedder.embedSync(q)), embedderId: embedder.id });
    store.close();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  for (const background of [false, true]) {
    it(`the next query sees another process's add and delete, on the dense and the keyword side (${background ? 'keyword worker' : 'inline'})`, async () => {
      const store = MemoryStore.open(db);
      const embedder = storeEmbedder(store, nullLogger);
      const search = HybridSearch.open(store, { background });
      await search.ready;
      const question = 'how many okapi sightings were logged at the zoo?';
      const query = { text: 'okapi sightings', vector: embedder.embedSync(question) };
      assert.ok(!search.search(query, 4).some((h) => h.recordId === 'other'));

      otherProcess(db, 'add', 'other', question);
      const dense = search.search(query, 4, { mode: 'vector' });
      assert.equal(dense[0]?.recordId, 'other', 'dense side');
      assert.ok(Math.abs((dense[0].inputSimilarity ?? 0) - 1) < 1e-6);
      assert.deepEqual(search.search({ text: 'okapi' }, 4, { mode: 'keyword' }).map((h) => h.recordId), ['other'], 'keyword side');
      const both = search.answer(query, 4);
      assert.deepEqual(both.sides, ['dense', 'keyword']);
      assert.equal(both.hits[0].recordId, 'other');
      assert.equal(both.hits[0].denseRank, 1);
      assert.equal(both.hits[0].keywordRank, 1);

      otherProcess(db, 'delete', 'other');
      assert.ok(!search.search(query, 4, { mode: 'vector' }).some((h) => h.recordId === 'other'), 'dense side after delete');
      assert.deepEqual(search.search({ text: 'okapi' }, 4, { mode: 'keyword' }), [], 'keyword side after delete');
      search.close();
      store.close();
    });
  }

  it('a reopened memory finds what another process added while it was closed (persisted keyword index caught up)', async () => {
    let store = MemoryStore.open(db);
    let search = HybridSearch.open(store, { background: true });
    await search.ready;
    store.transition(['r0'], 'delete', { trigger: 'user' });
    search.close(); // writes the keyword file
    store.close();
    otherProcess(db, 'add', 'other', 'how many okapi sightings were logged at the zoo?');
    store = MemoryStore.open(db);
    search = HybridSearch.open(store, { background: true });
    await search.ready;
    assert.equal(search.keywords.origin, 'loaded');
    assert.deepEqual(search.search({ text: 'okapi' }, 4, { mode: 'keyword' }).map((h) => h.recordId), ['other']);
    assert.deepEqual(search.search({ text: 'aspirin' }, 4, { mode: 'keyword' }), []);
    search.close();
    store.close();
  });

  it('answers from the dense side alone while the keyword worker loads, then fuses', async () => {
    const store = MemoryStore.open(db);
    const embedder = storeEmbedder(store, nullLogger);
    const search = HybridSearch.open(store, { background: true });
    const q = QUESTIONS[1];
    const first = search.answer({ text: q, vector: embedder.embedSync(q) }, 2);
    assert.equal(first.hits[0].recordId, 'r1');
    assert.ok(first.sides.includes('dense'));
    await search.ready;
    // A query waits KEYWORD_ANSWER_TIMEOUT_MS for the worker; on a heavily loaded machine one may miss it.
    let sides: string[] = [];
    for (let attempt = 0; attempt < 5 && sides.length < 2; attempt++) sides = search.answer({ text: q, vector: embedder.embedSync(q) }, 2).sides;
    assert.deepEqual(sides, ['dense', 'keyword']);
    search.close();
    store.close();
  });
});
