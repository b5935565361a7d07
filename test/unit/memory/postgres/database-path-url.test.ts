import { strict as assert } from 'node:assert';
import { databasePathProblem } from '../../../../src/core/memory/sqlite/database-path';

describe('agentMemory.databasePath given a postgres:// URL (the editor opens files only so far)', () => {
  it('is refused as a team URL, never taken for a file path, and the message names the host without the password', () => {
    const problem = databasePathProblem('postgres://app:S3cretPassw0rd@db.example:5432/mem?sslmode=verify-full');
    assert.equal(problem?.kind, 'team-url');
    assert.match(problem.message, /names a team memory \(postgres:\/\/app@db\.example:5432\/mem\?sslmode=verify-full\)/);
    assert.match(problem.message, /agent-memory mcp --db/);
    assert.match(problem.message, /Remove the password from the setting: it belongs in AGENT_MEMORY_PG_PASSWORD/);
    assert.ok(!problem.message.includes('S3cretPassw0rd'));
    const bare = databasePathProblem('postgresql://app@db.example/mem');
    assert.equal(bare?.kind, 'team-url');
    assert.doesNotMatch(bare.message, /Remove the password/);
  });
});
