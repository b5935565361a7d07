import * as assert from 'node:assert/strict';
import { nullLogger } from '../../../../src/core/logger';
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

  it('memory_feedback on the retrievalId of a memory_record made without a search is refused', async () => {
    const team = await connect('record-only');
    const tools = new TeamMemoryTools({ team: () => Promise.resolve(team), logger: nullLogger });
    const { retrievalId } = await tools.record({ question: 'no search first', code: 'x()', language: 'go', outcome: 'success' }, client);
    await assert.rejects(() => tools.feedback({ retrievalId, outcome: 'failure', source: 'tests' }, client), /belongs to a memory_record made without a memory_search/);
  });
});
