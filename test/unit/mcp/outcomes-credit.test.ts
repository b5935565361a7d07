import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { refitAndReembed } from '../../../src/core/app/embedding';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { TaskLog } from '../../../src/core/memory/sqlite/task-log';
import { call, connectServer, text } from './mcp-support';

interface Item {
  id: string;
  question: string;
  code: string;
  outcome: string;
  verdict?: { kind: string; source: string };
  retrievals: number;
}
interface SearchOut {
  retrievalId: string;
  results: Item[];
}

/** General coding records as a new user records them; one of them failed (it ran out of memory). */
const RECORDS = [
  { id: 'pager-ok', question: 'fix the off-by-one in paginate() in src/utils/pager.ts', code: 'export function paginate<T>(items: T[], page: number, size: number): T[] {\n  return items.slice(page * size, (page + 1) * size);\n}', outcome: 'success' as const },
  { id: 'pager-oom', question: 'paginate a huge list of rows in src/utils/pager.ts without copying', code: 'export function paginateAll<T>(items: T[], size: number): T[][] {\n  const pages: T[][] = [];\n  for (let i = 0; ; i += size) pages.push(items.slice(i, i + size));\n}', outcome: 'error' as const },
  { id: 'iso-date', question: 'parse an ISO 8601 date string in typescript', code: 'export const parseIso = (s: string): Date => new Date(Date.parse(s));', outcome: 'success' as const },
  { id: 'sort-dicts', question: 'sort a list of dicts by a key in python', code: 'rows.sort(key=lambda r: r["name"])', outcome: 'success' as const },
  { id: 'csv-sum', question: 'sum the second column of a csv file in go', code: 'func sum(r *csv.Reader) int {\n  total := 0\n  for { rec, err := r.Read(); if err != nil { break }; total += atoi(rec[1]) }\n  return total\n}', outcome: 'success' as const },
];

function open<T>(db: string, fn: (store: MemoryStore, tasks: TaskLog) => T): T {
  const store = MemoryStore.open(db);
  try {
    return fn(store, new TaskLog(store));
  } finally {
    store.close();
  }
}

/** Every record's retrieval count, evaluated count and retrieval rows (what the periodic and history rules read). */
function retrievalState(db: string): string {
  return open(db, (store, tasks) =>
    JSON.stringify(RECORDS.map((r) => {
      const rec = store.get(r.id)!;
      return [r.id, rec.stats.retrievalCount, rec.stats.evaluatedCount, rec.stats.lastRetrievedTask, tasks.retrievalsOf(r.id).length];
    })),
  );
}

describe('memory tools over MCP: outcomes, exploratory searches and credit to what was used (real child process)', function () {
  this.timeout(90_000);
  let dir: string;
  let db: string;
  let client: Client;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-mcp-credit-'));
    db = path.join(dir, 'memory.sqlite');
    open(db, (store) => {
      store.add(RECORDS.map((r) => ({ id: r.id, question: r.question, execution: { code: r.code, language: 'typescript', outcome: r.outcome }, provenance: 'user' as const })), { trigger: 'user', reason: 'test' });
      refitAndReembed(store, 'user');
    });
    client = await connectServer(db, 'all');
  });
  after(async () => {
    await client?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('never returns a failed record without its outcome: left out by default, labelled first with include_failures', async () => {
    const query = 'paginate a huge list of rows in pager.ts';
    const plain = await call(client, 'memory_search', { query, k: 5 });
    assert.ok(!plain.isError, text(plain));
    const out = plain.structuredContent as unknown as SearchOut;
    assert.ok(out.results.length > 0);
    assert.ok(out.results.every((r) => r.outcome === 'success'), JSON.stringify(out.results.map((r) => [r.id, r.outcome])));
    assert.ok(!out.results.some((r) => r.id === 'pager-oom'));
    assert.doesNotMatch(text(plain), /FAILED/);

    const all = await call(client, 'memory_search', { query, k: 5, include_failures: true });
    const withFailures = all.structuredContent as unknown as SearchOut;
    const failed = withFailures.results.find((r) => r.id === 'pager-oom');
    assert.ok(failed, JSON.stringify(withFailures.results.map((r) => r.id)));
    assert.equal(failed.outcome, 'error');
    assert.ok(withFailures.results.every((r) => typeof r.outcome === 'string'));
    // The text says it before the question: "N. FAILED — outcome error…" then the question.
    const rank = withFailures.results.indexOf(failed) + 1;
    assert.match(text(all), new RegExp(`\\n${rank}\\. FAILED — outcome error[^\\n]*do not reuse it[^\\n]*\\n {3}${failed.question.replace(/[().]/g, '\\$&')}\\n {3}id pager-oom · typescript · outcome error`));
  });

  it('an exploratory search changes no record\'s retrieval count, rows or window', async () => {
    const before = retrievalState(db);
    const search = (await call(client, 'memory_search', { query: 'sort a list of dicts by key', k: 5, min_score: 0, include_failures: true })).structuredContent as unknown as SearchOut;
    assert.equal(search.results.length, 5);
    assert.ok(search.results.every((r) => r.retrievals === 0));
    assert.equal(retrievalState(db), before);
    const task = open(db, (_store, tasks) => tasks.get(Number(search.retrievalId))!);
    assert.equal(task.log.counted, false, 'the search is logged apart, as a task whose retrievals are not counted');
  });

  it('used credits only the named records; the search then counts as a retrieval of what it returned', async () => {
    const search = (await call(client, 'memory_search', { query: 'parse an ISO 8601 date', k: 3, min_score: 0 })).structuredContent as unknown as SearchOut;
    assert.equal(search.results.length, 3);
    const used = search.results.find((r) => r.id === 'iso-date')!;
    assert.ok(used, JSON.stringify(search.results.map((r) => r.id)));
    const others = search.results.filter((r) => r !== used).map((r) => r.id);

    const wrong = await call(client, 'memory_feedback', { retrievalId: search.retrievalId, outcome: 'success', used: ['pager-oom-not-returned'] });
    assert.equal(wrong.isError, true);
    assert.match(text(wrong), /used: 'pager-oom-not-returned' was not among the results of memory_search \d+/);
    const unchanged = retrievalState(db);

    const fed = await call(client, 'memory_feedback', { retrievalId: search.retrievalId, outcome: 'success', used: [used.id] });
    assert.ok(!fed.isError, text(fed));
    assert.deepEqual(fed.structuredContent, { updated: 1, utility: 1, evaluator: 'coarse:self', credited: [used.id] });
    assert.notEqual(retrievalState(db), unchanged);
    open(db, (store, tasks) => {
      assert.equal(store.get(used.id)!.stats.meanUtility, 1);
      for (const id of others) assert.equal(store.get(id)!.stats.meanUtility, null, `${id} was returned but not used: no Φ`);
      // An outcome arrived: each returned record counts this retrieval once (rows written now).
      for (const r of search.results) {
        assert.equal(store.get(r.id)!.stats.retrievalCount, r.retrievals + 1, r.id);
        assert.deepEqual(tasks.retrievalsOf(r.id).filter((row) => row.taskIndex === Number(search.retrievalId)).map((row) => row.followed), [r.id === used.id]);
      }
    });
    // A second report on the same retrieval counts nothing again.
    const again = await call(client, 'memory_feedback', { retrievalId: search.retrievalId, outcome: 'success', used: [used.id], source: 'tests' });
    assert.ok(!again.isError, text(again));
    open(db, (store) => assert.equal(store.get(used.id)!.stats.retrievalCount, used.retrievals + 1));
  });

  it('without used, memory_record credits only the records its code follows, never all k', async () => {
    const search = (await call(client, 'memory_search', { query: 'fix the off-by-one in paginate()', k: 3, min_score: 0 })).structuredContent as unknown as SearchOut;
    const pager = search.results.find((r) => r.id === 'pager-ok');
    assert.ok(pager, JSON.stringify(search.results.map((r) => r.id)));
    assert.equal(search.results.length, 3);
    const code = pager.code.replace('paginate', 'paginateFixed');
    const recorded = await call(client, 'memory_record', { question: 'fix paginate() again', code, language: 'typescript', outcome: 'failure', retrievalId: search.retrievalId });
    assert.ok(!recorded.isError, text(recorded));
    const out = recorded.structuredContent as { credited: string[] };
    assert.deepEqual(out.credited, ['pager-ok']);
    assert.match(text(recorded), /credited to 1 record\(s\): pager-ok/);
    open(db, (store) => {
      assert.equal(store.get('pager-ok')!.stats.meanUtility, 0);
      for (const r of search.results.filter((x) => x.id !== 'pager-ok')) assert.equal(store.get(r.id)!.stats.evaluatedCount, r.id === 'iso-date' ? 1 : 0, r.id);
    });
  });

  it('memory_feedback without used and without recorded code credits nothing and says so', async () => {
    const search = (await call(client, 'memory_search', { query: 'sum a csv column in go', k: 2, min_score: 0 })).structuredContent as unknown as SearchOut;
    const before = open(db, (store) => search.results.map((r) => store.get(r.id)!.stats.evaluatedCount));
    const fed = await call(client, 'memory_feedback', { retrievalId: search.retrievalId, outcome: 'failure' });
    assert.ok(!fed.isError, text(fed));
    const out = fed.structuredContent as { updated: number; credited: string[]; note: string };
    assert.equal(out.updated, 0);
    assert.deepEqual(out.credited, []);
    assert.match(out.note, /No record was credited: name the results you used with used/);
    assert.match(text(fed), /credited to no record\. No record was credited/);
    open(db, (store, tasks) => {
      assert.deepEqual(search.results.map((r) => store.get(r.id)!.stats.evaluatedCount), before);
      assert.equal(tasks.get(Number(search.retrievalId))!.utility, 0, 'the outcome is kept on the retrieval');
    });
  });

  it('a record made with tests carries its verdict in later searches', async () => {
    const recorded = await call(client, 'memory_record', { question: 'debounce a function call in typescript', code: 'export const debounce = (f: () => void, ms: number) => { let t: NodeJS.Timeout; return () => { clearTimeout(t); t = setTimeout(f, ms); }; };', language: 'typescript', outcome: 'failure', source: 'tests' });
    const id = (recorded.structuredContent as { id: string | null }).id;
    // A failed task is stored under addition 'all' (as error) and is then found only with include_failures.
    assert.ok(id, text(recorded));
    const plain = (await call(client, 'memory_search', { query: 'debounce a function call', k: 6, min_score: 0 })).structuredContent as unknown as SearchOut;
    assert.equal(plain.results.length, 4, 'every record that worked, none that failed');
    assert.ok(!plain.results.some((r) => r.id === id));
    const all = await call(client, 'memory_search', { query: 'debounce a function call', k: 10, min_score: 0, include_failures: true });
    const found = (all.structuredContent as unknown as SearchOut).results.find((r) => r.id === id)!;
    assert.ok(found, text(all) + id);
    assert.equal(found.outcome, 'error');
    assert.deepEqual(found.verdict, { kind: 'wrong', source: 'gold' });
    assert.match(text(all), /FAILED — outcome error, verdict wrong \(gold\)/);
  });
});
