import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { TeamMemoryStore } from '../../../../src/core/memory/postgres/team-store';
import { setupTeamMemory } from '../../../../src/core/memory/postgres/team-setup';
import { usePostgres } from '../../../support/postgres';
import { connectTeamServer, runCli, splitPassword, startProxy, transcript, type CuttableProxy } from '../../../support/team-processes';
import { call, text } from '../../mcp/mcp-support';
import { searchTeam } from '../../../../src/core/memory/postgres/team-search';
import { TeamShapes } from '../../../../src/core/memory/postgres/team-shapes';
import { CHART_HEART_RATE, LAB_POTASSIUM } from '../../../support/records';
import { readDomainValues } from '../../../../src/core/data/domain-values-reader';

/** The database the EHR records' programs query: its values make `--rerank` apply (`--values-from`). */
const EHR_DATABASE = path.join(__dirname, '..', '..', '..', '..', 'data', 'ehr', 'mimic3-demo.sqlite');

interface SearchOut {
  retrievalId: string;
  results: { id: string; question: string; retrievals: number }[];
}
interface RecordOut {
  id: string | null;
  status: string;
  retrievalId: string;
}

const RECORD = { question: 'how many patients were admitted to the icu in 2104', code: "answer = sql('select count(*) from icustays where year = 2104')", language: 'python', outcome: 'success' };

describe('team memory through real processes: `agent-memory mcp --db postgres://…` and the CLI', function () {
  this.timeout(120_000);
  const pg = usePostgres();
  let bare: string;
  let password: string;
  let dir: string;
  const clients: Client[] = [];

  before(async () => {
    await setupTeamMemory(pg().ownerUrl, { dimensions: [16] });
    ({ bare, password } = splitPassword(pg().appUrl));
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-team-mcp-'));
  });
  after(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    fs.rmSync(dir, { recursive: true, force: true });
    // Every log line, error and output the processes wrote during this suite: no password of the cluster in any of them.
    const all = transcript.join('\n');
    assert.ok(all.length > 0);
    for (const p of pg().passwords) assert.ok(!all.includes(p), 'a password reached a log, an error or an output');
  });

  it('memory_record stores pending (strict), a reviewer approves with `review`, memory_search then finds it in every client, feedback credits it', async () => {
    const alice = await connectTeamServer(bare, password, ['--space', 'proj'], 'alice-agent');
    const bob = await connectTeamServer(bare, password, ['--space', 'proj'], 'bob-agent');
    clients.push(alice, bob);

    const recorded = (await call(alice, 'memory_record', RECORD)).structuredContent as unknown as RecordOut;
    assert.equal(recorded.status, 'pending');
    assert.ok(recorded.id);
    const before = (await call(bob, 'memory_search', { query: 'patients admitted icu 2104' })).structuredContent as unknown as SearchOut;
    assert.deepEqual(before.results, [], 'a pending record is not retrievable');

    const queue = await runCli(['review', '--db', bare, '--space', 'proj', '--json'], password);
    assert.equal(queue.code, 0, queue.stderr);
    assert.deepEqual((JSON.parse(queue.stdout) as { pending: { id: string }[] }).pending.map((p) => p.id), [recorded.id]);
    const approved = await runCli(['review', '--db', bare, '--space', 'proj', '--approve', recorded.id], password);
    assert.equal(approved.code, 0, approved.stderr);
    assert.match(approved.stdout, new RegExp(`approve ${recorded.id}: now active`));
    assert.match(approved.stdout, /1 active, 0 pending, 0 deleted/);

    const found = (await call(bob, 'memory_search', { query: 'patients admitted icu 2104' })).structuredContent as unknown as SearchOut;
    assert.deepEqual(found.results.map((r) => r.id), [recorded.id]);
    // Searches with no outcome are exploratory: two of them counted no retrieval.
    assert.equal(found.results[0].retrievals, 0);
    const foreign = await call(bob, 'memory_feedback', { retrievalId: found.retrievalId, outcome: 'success', used: ['not-returned'] });
    assert.equal(foreign.isError, true);
    assert.match(text(foreign), /used: 'not-returned' was not among the results of memory_search/);
    const feedback = await call(bob, 'memory_feedback', { retrievalId: found.retrievalId, outcome: 'success', used: [recorded.id] });
    assert.ok(!feedback.isError, text(feedback));
    assert.match(text(feedback), /credited to 1 record/);
    assert.deepEqual((feedback.structuredContent as { credited: string[] }).credited, [recorded.id]);
    // A second record on the same search is refused; a record for it is credited once.
    const second = (await call(bob, 'memory_record', { ...RECORD, question: 'icu admissions in 2104, by count', retrievalId: found.retrievalId })).structuredContent as unknown as RecordOut;
    assert.equal(second.status, 'pending');
    const again = await call(bob, 'memory_record', { ...RECORD, retrievalId: found.retrievalId });
    assert.ok(again.isError);
    assert.match(text(again), /INVALID_STATE: retrievalId .* already has a memory_record/);

    const team = await TeamMemoryStore.connect({ url: pg().appUrl, space: 'proj', user: 'test', client: 'test' });
    try {
      const rec = await team.get(recorded.id);
      assert.equal(rec?.stats.retrievalCount, 1);
      assert.equal(rec?.stats.meanUtility, 1);
      const audit = await team.audit({ recordId: recorded.id });
      assert.deepEqual(audit.map((a) => a.operation).sort(), ['add', 'approve']);
      assert.ok(audit.every((a) => a.user === os.userInfo().username && /^(mcp|cli)@/.test(a.client)), JSON.stringify(audit));
      assert.deepEqual(await team.counts(), { pending: 1, active: 1, deleted: 0 });
      // Another space of the same server sees none of it.
      const other = await TeamMemoryStore.connect({ url: pg().appUrl, space: 'other', user: 'test', client: 'test' });
      assert.deepEqual(await other.counts(), { pending: 0, active: 0, deleted: 0 });
      await other.close();
    } finally {
      await team.close();
    }
  });

  it('`mcp --rerank --values-from DB` re-ranks memory_search once it has read the space, as TeamShapes does in process; a server without it (or without values) keeps the fused order', async () => {
    const SODIUM = { question: 'Sodium in the lab for patient 9?', code: `answer = sql("select valuenum from labevents where itemid in (select itemid from d_labitems where d_labitems.label = 'sodium') and subject_id = 9")` };
    const queries = ['What was the last sodium value of patient 12?', 'What was the last potassium value of patient 12?'];
    const expected: { query: string; fused: string; reranked: string }[] = [];
    const team = await TeamMemoryStore.connect({ url: pg().appUrl, space: 'rerank', user: 'test', client: 'test' });
    try {
      const { embedder } = await team.sharedEmbedder();
      await team.add(
        [CHART_HEART_RATE, LAB_POTASSIUM, SODIUM].map((r) => ({ question: r.question, execution: { code: r.code, language: 'python' as const, outcome: 'success' as const }, provenance: 'seed' as const })),
        { trigger: 'user', reason: 'test seed', merge: false, embedder },
      );
      const shapes = new TeamShapes(team, { domainValues: readDomainValues(EHR_DATABASE) });
      await shapes.load();
      for (const query of queries) {
        const v = embedder.embedSync(query);
        expected.push({ query, fused: (await searchTeam(team, query, v, 4))[0].record.id, reranked: (await searchTeam(team, query, v, 4, { rerank: shapes }))[0].record.id });
      }
    } finally {
      await team.close();
    }
    assert.ok(expected.every((e) => e.fused !== e.reranked), `every query orders differently re-ranked: ${JSON.stringify(expected)}`);
    const plain = await connectTeamServer(bare, password, ['--space', 'rerank'], 'plain');
    const reranking = await connectTeamServer(bare, password, ['--space', 'rerank', '--rerank', '--values-from', EHR_DATABASE], 'reranking');
    const withoutValues = await connectTeamServer(bare, password, ['--space', 'rerank', '--rerank'], 'without-values');
    clients.push(plain, reranking, withoutValues);
    const top = async (c: Client, query: string): Promise<string> => ((await call(c, 'memory_search', { query, k: 4 })).structuredContent as unknown as SearchOut).results[0].id;
    // The server reads the space in the background once connected; until then a search keeps the fused order.
    for (let waited = 0; (await top(reranking, expected[0].query)) !== expected[0].reranked && waited < 10_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
    for (const e of expected) {
      assert.equal(await top(plain, e.query), e.fused, e.query);
      assert.equal(await top(reranking, e.query), e.reranked, e.query);
      assert.equal(await top(withoutValues, e.query), e.fused, `${e.query}: --rerank without --values-from`);
    }
  });

  it("takes the password from PGPASSWORD when AGENT_MEMORY_PG_PASSWORD is not set (and AGENT_MEMORY_PG_PASSWORD first when both are)", async () => {
    const viaLibpq = await TeamMemoryStore.connect({ url: bare, space: 'env', user: 'u', client: 'c' }, { env: { PGPASSWORD: password } });
    await viaLibpq.close();
    await assert.rejects(
      TeamMemoryStore.connect({ url: bare, space: 'env', user: 'u', client: 'c', retryMs: 0 }, { env: { PGPASSWORD: password, AGENT_MEMORY_PG_PASSWORD: 'wrong-one' } }),
      /password authentication failed/,
    );
  });

  it('the commands that cannot apply to a team memory refuse a postgres:// URL (UNSUPPORTED, why and what to do instead) and create no file', async () => {
    const cwdBefore = fs.readdirSync(process.cwd()).sort();
    const program = path.join(dir, 'p.py');
    fs.writeFileSync(program, 'answer = 1\n');
    const cases: [string[], RegExp][] = [
      [['run', '--language', 'python', '--db', pg().appUrl, '--code-file', program], /--db is the SQLite data file the program queries, not a memory.*agent-memory task --db postgres/],
    ];
    for (const [argv, why] of cases) {
      const r = await runCli(argv);
      assert.equal(r.code, 1, `${argv[0]}: ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`UNSUPPORTED: 'agent-memory ${argv[0]}' works on a SQLite ${argv[0] === 'run' ? 'data' : 'memory'} file only`));
      assert.match(r.stderr, why);
      assert.match(r.stderr, /Commands that take a postgres:\/\/ URL: task, seed, export, import, backup, restore, review, revalidate, re-embed, mcp, migrate, team-setup, team-grant, audit\. Nothing was done/);
    }
    assert.deepEqual(fs.readdirSync(process.cwd()).sort(), cwdBefore);
    const mixed = await runCli(['mcp', '--db', bare, '--addition', 'all']);
    assert.equal(mixed.code, 2);
    assert.match(mixed.stderr, /--addition does not apply to a team memory/);
  });

  it('offline: memory_search and writes answer UNREACHABLE (nothing returned, nothing stored); the next call after the server is back works', async () => {
    let proxy: CuttableProxy | undefined = await startProxy(pg().port);
    try {
      const via = bare.replace(`:${pg().port}/`, `:${proxy.port}/`);
      await proxy.cut();
      // Started while the server is unreachable: the MCP server still starts.
      const agent = await connectTeamServer(via, password, ['--space', 'offline'], 'offline-agent');
      clients.push(agent);
      const search = await call(agent, 'memory_search', { query: 'icu admissions' });
      assert.ok(search.isError);
      assert.match(text(search), /^UNREACHABLE: Team memory unreachable: memory_search returned no shared records; continue the task without them/);
      const write = await call(agent, 'memory_record', RECORD);
      assert.ok(write.isError);
      assert.match(text(write), /UNREACHABLE: Team memory unreachable: nothing was stored/);
      const cli = await runCli(['review', '--db', via, '--space', 'offline'], password);
      assert.equal(cli.code, 1);
      assert.match(cli.stderr, /UNREACHABLE: The team memory at postgres:\/\/agent_memory_app@127\.0\.0\.1:\d+\/agent_memory\?sslmode=disable is unreachable .*\. Check the server and the network/);

      await proxy.restore();
      const ok = (await call(agent, 'memory_record', RECORD)).structuredContent as unknown as RecordOut;
      assert.equal(ok.status, 'pending');
      // Cut while connections are open (idle in the pool): reported as failed, then served again once back.
      await proxy.cut();
      const failed = await call(agent, 'memory_record', { ...RECORD, question: 'written while the server is unreachable' });
      assert.ok(failed.isError);
      assert.match(text(failed), /UNREACHABLE/);
      await proxy.restore();
      const back = (await call(agent, 'memory_search', { query: 'icu admissions' })).structuredContent as unknown as SearchOut;
      assert.ok(back.retrievalId);
      const team = await TeamMemoryStore.connect({ url: pg().appUrl, space: 'offline', user: 'test', client: 'test' });
      try {
        const stored = await team.listByStatus('pending', 10);
        assert.deepEqual(stored.map((r) => r.question), [RECORD.question], 'only the acknowledged write is stored');
      } finally {
        await team.close();
      }
    } finally {
      await proxy?.close();
      proxy = undefined;
    }
  });
});
