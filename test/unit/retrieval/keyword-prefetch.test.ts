import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SyntheticRecords } from '../../../src/core/bench/synthetic-records';
import { HybridSearch } from '../../../src/core/memory/search/hybrid-search';
import { KeywordIndex } from '../../../src/core/memory/keyword/keyword-index';
import { WorkerKeywords } from '../../../src/core/memory/keyword/keyword-service';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';

const TASKS = path.join(__dirname, '..', '..', '..', 'data', 'ehr', 'ehrsql-mimic3-tasks.jsonl');

/** The worker's answer, retried a few times: a query waits a bounded time for the worker and may miss it on a loaded machine. */
function workerSearch(keywords: WorkerKeywords, text: string, limit: number, prefetch?: string): unknown {
  for (let attempt = 0; attempt < 5; attempt++) {
    if (prefetch !== undefined) keywords.prefetch(prefetch, limit);
    const hits = keywords.search(text, limit);
    if (hits) return hits;
  }
  return null;
}

describe('keyword worker prefetch (searches while the dense side runs)', function () {
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kw-prefetch-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('answers a prefetched query, ignores one for another text, and matches the inline index', async () => {
    const db = path.join(dir, 'm.sqlite');
    const store = MemoryStore.open(db);
    store.add(SyntheticRecords.fromFile(TASKS, 3).records(400), { trigger: 'import' });
    const queries = Array.from({ length: 6 }, (_, i) => SyntheticRecords.fromFile(TASKS, 50 + i).question());
    const inline = KeywordIndex.open(store, { file: null });
    const search = HybridSearch.open(store, { background: true });
    await search.ready;
    assert.ok(search.keywords instanceof WorkerKeywords);
    const keywords = search.keywords;
    for (const q of queries) {
      const expected = inline.search(q, 8).map((h) => ({ rid: h.rid, score: h.score }));
      assert.deepEqual(workerSearch(keywords, q, 8, q), expected, `prefetched: ${q}`);
      assert.deepEqual(workerSearch(keywords, q, 8, 'a different question about aspirin'), expected, `stale prefetch ignored: ${q}`);
      assert.deepEqual(workerSearch(keywords, q, 8), expected, `not prefetched: ${q}`);
    }
    inline.close();
    search.close();
    store.close();
  });
});
