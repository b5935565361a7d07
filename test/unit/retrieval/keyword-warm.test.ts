import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SyntheticRecords } from '../../../src/core/bench/synthetic-records';
import type { Logger } from '../../../src/core/logger';
import { KeywordIndex } from '../../../src/core/memory/keyword/keyword-index';
import { InlineKeywords, WorkerKeywords } from '../../../src/core/memory/keyword/keyword-service';
import { KeywordWarmer, WarmReport } from '../../../src/core/memory/keyword/keyword-warmer';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';

const TASKS = path.join(__dirname, '..', '..', '..', 'data', 'ehr', 'ehrsql-mimic3-tasks.jsonl');

/** Lets the event loop run `turns` times (warming steps run from setImmediate). */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** A logger keeping its debug messages. */
function debugLog(): { logger: Logger; messages: string[] } {
  const messages: string[] = [];
  const keep = (m: string | Error) => messages.push(String(m));
  return { logger: { trace: () => undefined, debug: keep, info: keep, warn: keep, error: keep }, messages };
}

function assertSameAsMiniSearch(index: KeywordIndex, q: string): void {
  assert.deepEqual(index.search(q, 16), index.searchDirect(q, 16), q);
}

/** Counts the index's warming steps from now on. */
function countSteps(index: KeywordIndex): { count: number } {
  const counter = { count: 0 };
  const step = index.warmStep.bind(index);
  index.warmStep = (sliceMs: number) => {
    counter.count++;
    return step(sliceMs);
  };
  return counter;
}

describe('keyword term cache warming (background)', function () {
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kw-warm-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('inline: warms between queries, which answer the same before and after; logs the warming', async () => {
    const store = MemoryStore.open(':memory:');
    const gen = SyntheticRecords.fromFile(TASKS, 31);
    store.add(gen.records(1500), { trigger: 'import' });
    const queries = Array.from({ length: 20 }, () => gen.question());
    const { logger, messages } = debugLog();
    const keywords = new InlineKeywords(KeywordIndex.open(store), logger);
    const index = keywords.index;
    assert.equal(keywords.isWarm, false);
    await turns(2);
    for (const q of queries) assert.deepEqual(keywords.search(q, 16), index.searchDirect(q, 16), q);
    await keywords.warmed;
    assert.equal(keywords.isWarm, true);
    assert.ok(index.cacheStats.warmedTerms > 20, `${index.cacheStats.warmedTerms} terms warmed`);
    assert.equal(index.warmStep(0), false);
    assert.ok(messages.some((m) => /\[keywords\] term cache warmed: \d+ terms, \d+ postings/.test(m)), messages.join('\n'));
    for (const q of queries) assert.deepEqual(keywords.search(q, 16), index.searchDirect(q, 16), q);
    keywords.close();
    store.close();
  });

  it('re-warms after a change once the index is quiet, and not before', async () => {
    const store = MemoryStore.open(':memory:');
    const gen = SyntheticRecords.fromFile(TASKS, 32);
    store.add(gen.records(800), { trigger: 'import' });
    const queries = Array.from({ length: 10 }, () => gen.question());
    const index = KeywordIndex.open(store);
    const reports: WarmReport[] = [];
    let onReport = (): void => undefined;
    const warmer = new KeywordWarmer(index, {
      quietMs: 1,
      onWarmed: (r) => {
        reports.push(r);
        onReport();
      },
    });
    warmer.start();
    await warmer.warmed;
    assert.equal(reports.length, 1);
    assert.ok(reports[0].terms > 0 && reports[0].terms === index.cacheStats.warmedTerms && reports[0].postings === index.cacheStats.warmedPostings);

    // A search catches up on a change: the warmed terms are dropped, and warmed again.
    const rewarmed = new Promise<void>((resolve) => (onReport = resolve));
    store.add(gen.records(20), { trigger: 'import' });
    assertSameAsMiniSearch(index, queries[0]);
    warmer.noticeChanges();
    assert.equal(index.cacheStats.warmedTerms, 0);
    await rewarmed;
    assert.equal(reports.length, 2);
    assert.ok(index.cacheStats.warmedTerms > 0);
    for (const q of queries) assertSameAsMiniSearch(index, q);
    warmer.close();

    // While changes keep coming (quiet time not reached), no step runs.
    const patient = new KeywordWarmer(index, { quietMs: 60_000 });
    patient.start();
    await patient.warmed;
    const steps = countSteps(index);
    store.add(gen.records(5), { trigger: 'import' });
    assertSameAsMiniSearch(index, queries[1]);
    patient.noticeChanges();
    await turns(20);
    assert.equal(steps.count, 0);
    assert.equal(index.cacheStats.warmedTerms, 0);
    patient.close();
    index.close();
    store.close();
  });

  it('closing during warming stops it: `warmed` settles, no step runs after', async () => {
    const store = MemoryStore.open(':memory:');
    store.add(SyntheticRecords.fromFile(TASKS, 33).records(1500), { trigger: 'import' });
    const keywords = new InlineKeywords(KeywordIndex.open(store));
    const steps = countSteps(keywords.index);
    await turns(2);
    const before = steps.count;
    keywords.close();
    await keywords.warmed;
    assert.equal(keywords.isWarm, false);
    await turns(20);
    await new Promise<void>((resolve) => setTimeout(resolve, 20));
    assert.equal(steps.count, before);
    store.close();
  });

  it('worker: reports the warming, answers queries meanwhile and after, and closes cleanly while warming', async () => {
    const db = path.join(dir, 'm.sqlite');
    const store = MemoryStore.open(db);
    const gen = SyntheticRecords.fromFile(TASKS, 34);
    store.add(gen.records(1500), { trigger: 'import' });
    const queries = Array.from({ length: 10 }, () => gen.question());
    const inline = KeywordIndex.open(store, { file: null });
    const { logger, messages } = debugLog();
    const keywords = new WorkerKeywords(store, {}, logger);
    await keywords.ready;
    // The worker warms between these queries (each is a synchronous call): they all answer, as the inline index does.
    for (const q of queries) assert.deepEqual(answer(keywords, q), inline.search(q, 16), q);
    await keywords.warmed;
    assert.equal(keywords.isWarm, true);
    const logged = messages.map((m) => /\[keywords\] term cache warmed: (\d+) terms, (\d+) postings in \d+ ms/.exec(m)).find((m) => m);
    assert.ok(logged && Number(logged[1]) > 20 && Number(logged[2]) > 0, messages.join('\n'));
    for (const q of queries) assert.deepEqual(answer(keywords, q), inline.search(q, 16), q);
    keywords.close();

    const closing = new WorkerKeywords(store, {}, logger);
    await closing.ready;
    closing.close();
    await closing.warmed;
    assert.equal(closing.search(queries[0], 16), null);
    inline.close();
    store.close();
  });
});

/** The worker's answer, retried a few times: a query waits a bounded time for the worker and may miss it on a loaded machine. */
function answer(keywords: WorkerKeywords, text: string): unknown {
  for (let attempt = 0; attempt < 5; attempt++) {
    const hits = keywords.search(text, 16);
    if (hits) return hits;
  }
  return null;
}
