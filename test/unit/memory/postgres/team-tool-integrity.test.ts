import * as assert from 'node:assert/strict';
import { nullLogger } from '../../../../src/core/logger';
import { createTeamTaskMemory } from '../../../../src/core/memory/postgres/team-task-memory';
import { TeamMemoryTools } from '../../../../src/core/memory/postgres/team-tools';
import { useTeamMemory } from '../../../support/postgres';

describe('team memory tools: one record per retrieval, ground truth kept (real PostgreSQL + pgvector)', function () {
  this.timeout(120_000);
  const { connect } = useTeamMemory([384]);
  const client = { via: 'mcp' as const, name: 'agent' };

  it('memory_record on one retrievalId from three clients at once: one record, the others refused', async () => {
    const teams = await Promise.all([0, 1, 2].map((i) => connect('race', { client: `c${i}` })));
    const tools = teams.map((team) => new TeamMemoryTools({ team: () => Promise.resolve(team), logger: nullLogger }));
    await tools[0].record({ question: 'sum a CSV column in Go', code: 'total()', language: 'go', outcome: 'success' }, client);
    const { retrievalId } = await tools[0].search({ query: 'sum a CSV column in Go' }, client);
    const before = (await teams[0].counts()).active + (await teams[0].counts()).pending;
    const settled = await Promise.allSettled(tools.map((t, i) => t.record({ question: `sum column ${i}`, code: `total(${i})`, language: 'go', outcome: 'success', retrievalId }, client)));
    assert.deepEqual(settled.map((s) => s.status).sort(), ['fulfilled', 'rejected', 'rejected']);
    for (const s of settled) if (s.status === 'rejected') assert.match(String(s.reason), /already has a memory_record/);
    const after = await teams[0].counts();
    assert.equal(after.active + after.pending, before + 1);
  });

  it("a self-report does not replace the client's tests; tests again do", async () => {
    const team = await connect('tests-kept');
    const tools = new TeamMemoryTools({ team: () => Promise.resolve(team), logger: nullLogger });
    await tools.record({ question: 'parse a date in Go', code: 'parse()', language: 'go', outcome: 'success' }, client);
    const { retrievalId } = await tools.search({ query: 'parse a date in Go' }, client);
    assert.equal((await tools.feedback({ retrievalId, outcome: 'failure', source: 'tests' }, client)).utility, 0);
    await assert.rejects(() => tools.feedback({ retrievalId, outcome: 'success' }, client), /already has an outcome from the client's tests/);
    assert.equal((await tools.feedback({ retrievalId, outcome: 'success', source: 'tests' }, client)).utility, 1);
  });

  it('outcomes, exploratory searches and used: a failed record only with include_failures, no count without an outcome, Φ only to what was used', async () => {
    const team = await connect('outcomes');
    const tools = new TeamMemoryTools({ team: () => Promise.resolve(team), logger: nullLogger });
    const { embedder } = await team.sharedEmbedder();
    const added = await team.add(
      [
        { question: 'paginate rows in go', execution: { code: 'func page(rows []Row, n int) []Row { return rows[n*10 : n*10+10] }', language: 'go', outcome: 'success' }, provenance: 'user', status: 'active' },
        { question: 'paginate all rows at once in go', execution: { code: 'func pages(rows []Row) [][]Row { for { } }', language: 'go', outcome: 'timeout' }, provenance: 'user', status: 'active' },
        { question: 'paginate a slice of rows by page number in go', execution: { code: 'func slicePage(rows []Row, p int) []Row { return rows[p*20 : (p+1)*20] }', language: 'go', outcome: 'success' }, provenance: 'user', status: 'active' },
      ],
      { trigger: 'user', reason: 'test', evidence: {}, embedder },
    );
    const failed = added[1].id;
    const plain = await tools.search({ query: 'paginate rows in go', k: 3 }, client);
    assert.deepEqual(plain.results.map((r) => r.outcome), ['success', 'success']);
    const all = await tools.search({ query: 'paginate rows in go', k: 3, include_failures: true }, client);
    assert.equal(all.results.find((r) => r.id === failed)?.outcome, 'timeout');
    assert.deepEqual((await team.getMany(added.map((r) => r.id))).map((r) => r.stats.retrievalCount), [0, 0, 0], 'exploratory searches count nothing');

    const used = plain.results[1].id;
    const fed = await tools.feedback({ retrievalId: plain.retrievalId, outcome: 'success', used: [used] }, client);
    assert.deepEqual([fed.updated, fed.credited], [1, [used]]);
    const after = new Map((await team.getMany(added.map((r) => r.id))).map((r) => [r.id, r.stats]));
    for (const r of plain.results) assert.equal(after.get(r.id)!.retrievalCount, 1, 'an outcome counts the retrieval of what the search returned');
    assert.equal(after.get(used)!.meanUtility, 1);
    assert.equal(after.get(plain.results[0].id)!.meanUtility, null, 'returned, not used: no Φ');
    assert.equal(after.get(failed)!.retrievalCount, 0);
    await assert.rejects(() => tools.feedback({ retrievalId: all.retrievalId, outcome: 'success', used: ['nope'] }, client), /used: 'nope' was not among the results/);
    const none = await tools.feedback({ retrievalId: all.retrievalId, outcome: 'failure' }, client);
    assert.deepEqual(none.credited, []);
    assert.match(none.note ?? '', /No record was credited/);
  });

  it('a space whose nearest records all failed (or are in another language) still returns the ones that worked, looking deeper', async () => {
    const team = await connect('deeper');
    const { embedder } = await team.sharedEmbedder();
    const near = Array.from({ length: 24 }, (_, i) => ({
      question: `paginate rows in go, attempt ${i}`,
      execution: { code: `func page${i}(rows []Row) []Row { for { } }`, language: 'go', outcome: 'timeout' as const },
      provenance: 'user' as const,
      status: 'active' as const,
    }));
    const far = [
      { question: 'page through table rows in go', execution: { code: 'func page(rows []Row, n int) []Row { return rows[n*10 : n*10+10] }', language: 'go', outcome: 'success' as const }, provenance: 'user' as const, status: 'active' as const },
      { question: 'page through table rows in python', execution: { code: 'def page(rows, n):\n    return rows[n * 10 : n * 10 + 10]', language: 'python', outcome: 'success' as const }, provenance: 'user' as const, status: 'active' as const },
    ];
    const added = await team.add([...near, ...far], { trigger: 'user', reason: 'test', evidence: {}, embedder });
    const [worked, python] = added.slice(near.length).map((r) => r.id);
    const tools = new TeamMemoryTools({ team: () => Promise.resolve(team), logger: nullLogger });
    // The failures are the nearest: the first 8 (what a search 4·k deep fetched before) hold none that worked.
    const all = await tools.search({ query: 'paginate rows in go', k: 8, include_failures: true, min_score: 0 }, client);
    assert.ok(all.results.every((r) => r.outcome === 'timeout'), 'the nearest records all failed');
    const found = await tools.search({ query: 'paginate rows in go', k: 2, min_score: 0 }, client);
    assert.ok(found.results.some((r) => r.id === worked), 'the record that worked is found below the failures');
    assert.ok(found.results.every((r) => r.outcome === 'success'));
    // The task pipeline's retriever, asked for Python only, finds the one Python record below 25 Go ones.
    const memory = createTeamTaskMemory(team, { embedder });
    const demos = await memory.retriever.retrieve('paginate rows in go', embedder.embedSync('paginate rows in go'), 1, { languages: ['python'] });
    assert.deepEqual(demos.map((d) => d.recordId), [python]);
  });

  it('memory_feedback on the retrievalId of a memory_record made without a search is refused', async () => {
    const team = await connect('record-only');
    const tools = new TeamMemoryTools({ team: () => Promise.resolve(team), logger: nullLogger });
    const { retrievalId } = await tools.record({ question: 'no search first', code: 'x()', language: 'go', outcome: 'success' }, client);
    await assert.rejects(() => tools.feedback({ retrievalId, outcome: 'failure', source: 'tests' }, client), /belongs to a memory_record made without a memory_search/);
  });
});
