import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { refitAndReembed } from '../../../src/core/app/embedding';
import { DEFAULT_MIN_RELEVANCE } from '../../../src/core/memory/search/relevance';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { TaskLog } from '../../../src/core/memory/sqlite/task-log';
import { CODING } from '../../support/coding-records';
import { call, connectServer, text } from './mcp-support';

interface SearchOut {
  retrievalId: string;
  results: { id: string; question: string; similarity: number | null; relevance?: number }[];
}

describe('MCP server: "nothing relevant" (real `agent-memory mcp` child process over stdio)', function () {
  this.timeout(60_000);
  let dir: string;
  let db: string;
  let client: Client;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-mcp-relevance-'));
    db = path.join(dir, 'memory.sqlite');
    const store = MemoryStore.open(db);
    try {
      store.add(
        CODING.map((c) => ({ question: c.question, execution: { code: c.code, language: c.language, outcome: 'success' as const }, provenance: 'seed' as const })),
        { trigger: 'user', reason: 'test seed' },
      );
      refitAndReembed(store, 'user');
    } finally {
      store.close();
    }
    client = await connectServer(db, 'strict');
  });
  after(async () => {
    await client?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const search = async (args: Record<string, unknown>) => {
    const result = await call(client, 'memory_search', args);
    assert.ok(!result.isError, text(result));
    return { out: result.structuredContent as unknown as SearchOut, text: text(result) };
  };

  it('unrelated tasks answer nothing and say so; a task the memory holds is found with its relevance', async () => {
    for (const query of ['how many patients were admitted to the icu in 2104', 'what was the last potassium lab value of patient 2238', 'train a neural network on mnist']) {
      const { out, text: rendered } = await search({ query });
      assert.deepEqual(out.results, [], query);
      assert.match(rendered, /no record is close to this task/);
    }
    const { out } = await search({ query: 'retry the http request with backoff' });
    assert.equal(out.results[0].question, CODING[4].question);
    assert.ok(out.results.every((r) => r.relevance !== undefined && r.relevance >= DEFAULT_MIN_RELEVANCE && r.relevance <= 1));
  });

  it('min_score 0 returns k records, none with a negative or NaN score; a wordless query answers nothing', async () => {
    const { out } = await search({ query: 'train a neural network on mnist', k: 4, min_score: 0 });
    assert.equal(out.results.length, 4);
    for (const r of out.results) {
      assert.ok(r.similarity === null || (r.similarity >= 0 && r.similarity <= 1), String(r.similarity));
      assert.ok(r.relevance !== undefined && r.relevance >= 0 && r.relevance <= 1, String(r.relevance));
    }
    const { out: wordless, text: rendered } = await search({ query: '%_%', min_score: 0 });
    assert.deepEqual(wordless.results, []);
    assert.doesNotMatch(rendered, /NaN/);
  });

  it('an unanswered search logs no retrieval of any record; a min_score out of range is refused', async () => {
    const { out } = await search({ query: 'what was the last potassium lab value of patient 2238' });
    const store = MemoryStore.open(db);
    try {
      const tasks = new TaskLog(store);
      for (const r of store.list({}).items) assert.ok(!tasks.retrievalsOf(r.id).some((row) => row.taskIndex === Number(out.retrievalId)));
    } finally {
      store.close();
    }
    const bad = await call(client, 'memory_search', { query: 'sort dicts', min_score: 1.5 });
    assert.ok(bad.isError);
    assert.match(text(bad), /min_score/);
  });
});
