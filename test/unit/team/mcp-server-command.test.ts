import * as assert from 'node:assert/strict';
import { PASSWORD_ENV } from '../../../src/core/memory/postgres/connection';
import { mcpServerCommand, mcpTeamServerCommand, withTeamPassword } from '../../../src/core/tools/mcp-server-command';

describe('the MCP server child the editor starts (core/tools/mcp-server-command)', () => {
  it('on the personal memory: --db FILE --addition P', () => {
    const c = mcpServerCommand('/ext', '/data/memory.sqlite', 'strict', '/bin/node');
    assert.deepEqual(c, { command: '/bin/node', args: ['/ext/dist/cli.js', 'mcp', '--db', '/data/memory.sqlite', '--addition', 'strict'], env: { ELECTRON_RUN_AS_NODE: '1' } });
    // agentMemory.retrieval.rerank on: the server re-ranks memory_search.
    assert.deepEqual(mcpServerCommand('/ext', '/data/memory.sqlite', 'strict', '/bin/node', true).args.slice(-1), ['--rerank']);
    // The agent's database: the server's search gets its values (the re-ranking applies only with them; the floor reads them).
    assert.deepEqual(mcpServerCommand('/ext', '/data/memory.sqlite', 'strict', '/bin/node', true, 300, '/data/ehr.sqlite').args.slice(6), ['--rerank', '--memory-budget-mb', '300', '--values-from', '/data/ehr.sqlite']);
  });

  it('on the team memory: --db URL --space NAME; the password only in the environment, added at start', () => {
    const c = mcpTeamServerCommand('/ext', { url: 'postgres://app@db/mem?sslmode=verify-full', space: 'repo' }, '/bin/node');
    assert.deepEqual(c.args, ['/ext/dist/cli.js', 'mcp', '--db', 'postgres://app@db/mem?sslmode=verify-full', '--space', 'repo']);
    assert.equal(c.env[PASSWORD_ENV], undefined, 'the provided (cacheable) definition carries no password');
    const env = withTeamPassword(c.env, 'pw-123');
    assert.deepEqual(env, { ELECTRON_RUN_AS_NODE: '1', [PASSWORD_ENV]: 'pw-123' });
    assert.ok(!c.args.join(' ').includes('pw-123'));
    assert.deepEqual(withTeamPassword(c.env, undefined), { ELECTRON_RUN_AS_NODE: '1' });
    assert.equal(c.env[PASSWORD_ENV], undefined, 'adding the password does not change the original definition');
    // agentMemory.retrieval.rerank on: the team server re-ranks memory_search too.
    assert.deepEqual(mcpTeamServerCommand('/ext', { url: 'postgres://app@db/mem', space: 'repo' }, '/bin/node', true).args.slice(-1), ['--rerank']);
    assert.deepEqual(mcpTeamServerCommand('/ext', { url: 'postgres://app@db/mem', space: 'repo' }, '/bin/node', true, '/data/ehr.sqlite').args.slice(-3), ['--rerank', '--values-from', '/data/ehr.sqlite']);
  });
});
