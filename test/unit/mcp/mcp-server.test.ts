import { strict as assert } from 'node:assert';
import { auditChannel } from '../../../src/core/memory/audit-channel';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { TaskLog } from '../../../src/core/memory/sqlite/task-log';
import { refitAndReembed, storeEmbedder } from '../../../src/core/app/embedding';
import { MemoryRetriever } from '../../../src/core/agent/retriever';
import { nullLogger } from '../../../src/core/logger';
import { CHART_HEART_RATE, LAB_POTASSIUM } from '../../support/records';
import { call, connectServer, MAIN, ROOT, SEED, seedMemory, text, TSX } from './mcp-support';
import { spawnSync } from 'node:child_process';
import { readDomainValues } from '../../../src/core/data/domain-values-reader';

/** The database the EHR records' programs query: its values make `--rerank` apply (`--values-from`). */
const EHR_DATABASE = path.join(ROOT, 'data', 'ehr', 'mimic3-demo.sqlite');

interface SearchOut {
  retrievalId: string;
  results: { id: string; question: string; code: string; language: string; utility: number | null; retrievals: number; similarity: number | null }[];
}

/** Rows a malformed call must not change. */
function snapshot(db: string): string {
  const store = MemoryStore.open(db);
  try {
    const tasks = new TaskLog(store);
    return JSON.stringify({ counts: store.counts(), audit: store.audit().length, tasks: tasks.list().length, change: store.changeId });
  } finally {
    store.close();
  }
}

describe('MCP server (the SDK client driving `agent-memory mcp` over stdio)', function () {
  this.timeout(60_000);
  let dir: string;
  let db: string;
  let client: Client;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-mcp-'));
    db = path.join(dir, 'memory.sqlite');
    seedMemory(db);
    client = await connectServer(db, 'strict');
  });
  after(async () => {
    await client?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('lists the three tools with JSON Schema inputs and outputs', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['memory_feedback', 'memory_record', 'memory_search']);
    const search = tools.find((t) => t.name === 'memory_search')!;
    assert.deepEqual(search.inputSchema.required, ['query']);
    assert.ok(search.inputSchema.properties && 'k' in search.inputSchema.properties);
    assert.ok(search.outputSchema?.properties && 'retrievalId' in search.outputSchema.properties);
    const record = tools.find((t) => t.name === 'memory_record')!;
    assert.deepEqual([...(record.inputSchema.required ?? [])].sort(), ['code', 'language', 'outcome', 'question']);
    assert.match(tools.find((t) => t.name === 'memory_feedback')!.description ?? '', /strict evaluator/);
  });

  it('memory_search returns records with structured content; the retrieval is logged as the agent does once an outcome is reported', async () => {
    const result = await call(client, 'memory_search', { query: 'how many patients were admitted in 2104', k: 2 });
    assert.ok(!result.isError, text(result));
    const out = result.structuredContent as unknown as SearchOut;
    assert.equal(out.results.length, 2);
    assert.equal(out.results[0].question, SEED[0].question);
    assert.ok(out.results[0].similarity! > out.results[1].similarity!);
    assert.equal(out.results[0].retrievals, 0, 'exploratory until an outcome is reported');
    assert.match(text(result), new RegExp(`retrievalId ${out.retrievalId}`));
    const fed = await call(client, 'memory_feedback', { retrievalId: out.retrievalId, outcome: 'success', used: [out.results[0].id] });
    assert.ok(!fed.isError, text(fed));
    const store = MemoryStore.open(db);
    try {
      const rows = new TaskLog(store).retrievalsOf(out.results[0].id);
      assert.deepEqual(rows.map((r) => [r.taskIndex, r.rank]), [[Number(out.retrievalId), 0]]);
      assert.equal(store.get(out.results[0].id)!.stats.retrievalCount, 1);
      assert.deepEqual(new TaskLog(store).retrievalsOf(out.results[1].id).map((r) => [r.taskIndex, r.rank, r.utility]), [[Number(out.retrievalId), 1, null]]);
    } finally {
      store.close();
    }
  });

  it('memory_record under strict stores a pending record (any language), credits the retrieval and names the client in the audit log', async () => {
    const search = (await call(client, 'memory_search', { query: 'sum a column of a csv file in go' })).structuredContent as unknown as SearchOut;
    const code = 'func total(rows [][]string) int {\n  s := 0\n  for _, r := range rows { s += atoi(r[1]) }\n  return s\n}';
    const used = search.results.map((r) => r.id);
    const result = await call(client, 'memory_record', { question: 'sum the second csv column in go', code, language: 'Go', outcome: 'success', retrievalId: search.retrievalId, source: 'tests', used });
    assert.ok(!result.isError, text(result));
    const out = result.structuredContent as { id: string; status: string };
    assert.equal(out.status, 'pending');
    assert.match(text(result), /pending/);
    const store = MemoryStore.open(db);
    try {
      const rec = store.get(out.id)!;
      assert.equal(rec.status, 'pending');
      assert.equal(rec.execution.language, 'go');
      assert.deepEqual(rec.execution.demonstrationIds, search.results.map((r) => r.id));
      const audit = store.audit({ recordId: out.id });
      assert.equal(audit.length, 1);
      assert.equal(audit[0].operation, 'add');
      assert.equal(audit[0].evidence.client, 'mcp:test-client@1.2.3');
      assert.equal(auditChannel(audit[0]), 'mcp', 'the channel: written by the MCP server');
      const tasks = new TaskLog(store);
      const task = tasks.get(Number(search.retrievalId))!;
      assert.equal(task.utility, 1);
      assert.equal(task.evaluator, 'strict:ground-truth');
      assert.ok(search.results.every((r) => store.get(r.id)!.stats.meanUtility === 1));
    } finally {
      store.close();
    }
  });

  it('memory_feedback sends Φ to the records of the retrieval the client used', async () => {
    const search = (await call(client, 'memory_search', { query: 'average length of stay', k: 3, min_score: 0 })).structuredContent as unknown as SearchOut;
    const used = search.results.map((r) => r.id);
    const result = await call(client, 'memory_feedback', { retrievalId: search.retrievalId, outcome: 'failure', used });
    assert.ok(!result.isError, text(result));
    assert.deepEqual(result.structuredContent, { updated: 3, utility: 0, evaluator: 'coarse:self', credited: used });
    const store = MemoryStore.open(db);
    try {
      for (const r of search.results) {
        const rows = new TaskLog(store).retrievalsOf(r.id);
        assert.equal(rows.find((row) => row.taskIndex === Number(search.retrievalId))!.utility, 0);
      }
    } finally {
      store.close();
    }
  });

  it('answers malformed calls with isError and a clear message, writing nothing', async () => {
    const before = snapshot(db);
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['memory_search', {}, /query/],
      ['memory_search', { query: 'x', k: 0 }, /k/],
      ['memory_record', { question: 'q', code: 'x = 1', outcome: 'success' }, /language/],
      ['memory_record', { question: 'q', code: 'x = 1', language: 'python', outcome: 'maybe' }, /outcome/],
      ['memory_record', { question: 'q', code: 'x = 1', language: 'python', outcome: 'success', extra: 1 }, /extra|unrecognized/i],
      ['memory_record', { question: 'q', code: 'x = 1', language: 'python', outcome: 'success', retrievalId: '999999' }, /No memory_search with retrievalId 999999/],
      ['memory_record', { question: 'q', code: 'x = 1', language: 'python', outcome: 'success', used: ['r1'] }, /used: names records of a memory_search, so it needs that search's retrievalId/],
      ['memory_feedback', { retrievalId: 'abc', outcome: 'success' }, /retrievalId/],
      ['memory_feedback', { retrievalId: '424242', outcome: 'success' }, /No memory_search with retrievalId 424242/],
    ];
    for (const [name, args, message] of cases) {
      const result = await call(client, name, args);
      assert.equal(result.isError, true, `${name} ${JSON.stringify(args)} should fail`);
      assert.match(text(result), message, `${name} ${JSON.stringify(args)}: ${text(result)}`);
    }
    assert.equal(snapshot(db), before);
  });

  it('under addition "all" a record is active at once and another server process finds it', async () => {
    const other = await connectServer(db, 'all', 'second-client');
    try {
      const code = 'const KEY: &str = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";\nfn parse_port(s: &str) -> Option<u16> {\n    s.trim().parse().ok()\n}';
      const recorded = await call(other, 'memory_record', { question: 'parse a tcp port number from a string in rust', code, language: 'rust', outcome: 'success' });
      assert.equal((recorded.structuredContent as { status: string }).status, 'active', text(recorded));
      const found = (await call(client, 'memory_search', { query: 'parse a tcp port number from a string in rust', k: 1 })).structuredContent as unknown as SearchOut;
      assert.equal(found.results[0].id, (recorded.structuredContent as { id: string }).id);
      assert.equal(found.results[0].language, 'rust');
      // The same redaction as every store write: the key never reaches the database.
      assert.ok(!found.results[0].code.includes('sk-proj-'), found.results[0].code);
      assert.match(found.results[0].code, /\[redacted:openai-key\]/);
    } finally {
      await other.close();
    }
  });

  describe('--rerank', () => {
    const RECORDS = [
      CHART_HEART_RATE,
      LAB_POTASSIUM,
      { question: 'Sodium in the lab for patient 9?', code: `answer = sql("select valuenum from labevents where itemid in (select itemid from d_labitems where d_labitems.label = 'sodium') and subject_id = 9")` },
    ];
    // Lab values the memory compares with d_labitems.label: the value columns prefer a lab program to the chart one that shares more words.
    const QUERIES = ['What was the last sodium value of patient 12?', 'What was the last potassium value of patient 12?'];

    it('re-ranks memory_search with --values-from, once its values and shapes are read, as the in-process re-ranked retriever does (and the fused server, and --rerank without values, keep the fused order)', async () => {
      const file = path.join(dir, 'rerank.sqlite');
      const seeded = MemoryStore.open(file);
      const expected: { query: string; fused: string; reranked: string }[] = [];
      try {
        seeded.add(
          RECORDS.map((r) => ({ question: r.question, execution: { code: r.code, language: 'python', outcome: 'success' as const }, provenance: 'seed' as const })),
          { trigger: 'user', reason: 'test seed' },
        );
        refitAndReembed(seeded, 'user');
        const embedder = storeEmbedder(seeded, nullLogger);
        const fused = MemoryRetriever.open(seeded, { file: null });
        const reranked = MemoryRetriever.open(seeded, { file: null, rerank: true, domainValues: readDomainValues(EHR_DATABASE) });
        for (const query of QUERIES) {
          const v = embedder.embedSync(query);
          expected.push({ query, fused: fused.retrieve(query, v, 4)[0].recordId, reranked: reranked.retrieve(query, v, 4)[0].recordId });
        }
        fused.close();
        reranked.close();
      } finally {
        seeded.close();
      }
      assert.ok(expected.some((e) => e.fused !== e.reranked), `some query orders differently re-ranked: ${JSON.stringify(expected)}`);
      const plain = await connectServer(file, 'strict');
      const reranking = await connectServer(file, 'strict', 'test-client', ['--rerank', '--values-from', EHR_DATABASE]);
      const withoutValues = await connectServer(file, 'strict', 'test-client', ['--rerank']);
      try {
        const top = async (c: Client, query: string): Promise<string> => ((await call(c, 'memory_search', { query, k: 4 })).structuredContent as unknown as SearchOut).results[0].id;
        // A file memory opens in the background: the shapes are read after both sides, and until then a search keeps the fused order.
        for (let waited = 0; (await top(reranking, expected[0].query)) !== expected[0].reranked && waited < 10_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
        for (const e of expected) {
          assert.equal(await top(plain, e.query), e.fused, e.query);
          assert.equal(await top(reranking, e.query), e.reranked, e.query);
          assert.equal(await top(withoutValues, e.query), e.fused, `${e.query}: --rerank without --values-from`);
        }
      } finally {
        await plain.close();
        await reranking.close();
        await withoutValues.close();
      }
    });

    it('--rerank without --values-from says on stderr that the fused order is used', function () {
      this.timeout(60_000);
      const file = path.join(dir, 'notice.sqlite');
      seedMemory(file);
      // stdin closed at once: the server starts, logs, and stops; its stderr.
      const run = (args: string[]): string => {
        const r = spawnSync(process.execPath, [TSX, MAIN, 'mcp', '--db', file, ...args], { cwd: ROOT, input: '', encoding: 'utf8' });
        assert.equal(r.status, 0, r.stderr);
        return r.stderr;
      };
      assert.match(run(['--rerank']), /\[mcp\] --rerank: re-ranking needs the values of the database the programs query \(--values-from DB\.sqlite\); without them the fused order was used/);
      assert.doesNotMatch(run(['--rerank', '--values-from', EHR_DATABASE]), /re-ranking needs the values/);
      assert.doesNotMatch(run([]), /re-ranking needs the values/);
    });
  });
});
