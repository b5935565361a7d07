/** Issue 36's smaller items, each shown: redaction of key=value secrets, '@' in a URL password, NUL and deep JSON on import, database errors kept from MCP clients, a wordless team search. */
import * as assert from 'node:assert/strict';
import { AgentMemoryError, isAgentMemoryError } from '../../../src/core/errors';
import { Logger, nullLogger } from '../../../src/core/logger';
import { parseJsonl } from '../../../src/core/memory/io/jsonl-format';
import { poolConfig } from '../../../src/core/memory/postgres/connection';
import { TeamMemoryTools } from '../../../src/core/memory/postgres/team-tools';
import { redactText } from '../../../src/core/security/redact';
import { clientMessage } from '../../../src/mcp/server';
import { useTeamMemory } from '../../support/postgres';
import { Client } from 'pg';

const LINE = { question: 'how many patients?', execution: { code: 'x', language: 'python', outcome: 'success' }, status: 'active', provenance: 'import' };

describe('issue 36: the smaller trust items', function () {
  this.timeout(120_000);

  it('password=, passwd= and secret= assignments are redacted whatever the value looks like; code is not', () => {
    assert.equal(redactText('psql "host=db password=hunter2 user=app"'), 'psql "host=db password=[redacted:assignment] user=app"');
    assert.equal(redactText('passwd=abc'), 'passwd=[redacted:assignment]');
    assert.equal(redactText('CLIENT_SECRET=xyz;next'), 'CLIENT_SECRET=[redacted:assignment];next');
    assert.equal(redactText('password=getpass()'), 'password=getpass()');
    assert.equal(redactText('password=$PGPASSWORD'), 'password=$PGPASSWORD');
    assert.equal(redactText('password_file=/etc/pw'), 'password_file=/etc/pw');
  });

  it("a URL whose password holds an unescaped '@' is refused before connecting, without the password", () => {
    assert.throws(
      () => poolConfig({ url: 'postgres://bob:p@ssw0rd@db.example.com:5432/mem', user: 'u', client: 'c' }),
      (e) => isAgentMemoryError(e, 'CONFIG') && /%40/.test(e.message) && !e.message.includes('p@ss') && !e.message.includes('ssw0rd'),
    );
    assert.equal(poolConfig({ url: 'postgres://bob:p%40ssw0rd@db.example.com:5432/mem', user: 'u', client: 'c' }).config.password, 'p@ssw0rd');
  });

  it('NUL characters and over-deep JSON are refused on import, naming the line and the field (nothing imported)', () => {
    const deep = `${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`;
    const lines = [JSON.stringify(LINE), JSON.stringify({ ...LINE, question: 'a\u0000b' }), JSON.stringify({ ...LINE, metadata: { x: 1 } }).replace('{"x":1}', deep)];
    assert.throws(() => parseJsonl(lines.join('\n')), (e) => {
      assert.ok(isAgentMemoryError(e, 'IMPORT'));
      assert.match(e.message, /Line 2: field 'question': holds a NUL character/);
      assert.match(e.message, /Line 3: field 'metadata(\.a)+': is nested deeper than 32 levels/);
      assert.doesNotMatch(e.message, /call stack/);
      return true;
    });
  });

  it("an MCP client gets a plain message for a database error; the detail (constraint names) goes to the server's log", () => {
    const logged: string[] = [];
    const logger: Logger = { ...nullLogger, error: (m: string) => logged.push(m) };
    const db = new AgentMemoryError('DATABASE', 'The team memory refused to add records: duplicate key value violates unique constraint "records_space_id_key". Nothing was changed.', { pgCode: '23505' });
    const text = clientMessage('memory_record', db, logger);
    assert.match(text, /^DATABASE: the team memory refused memory_record/);
    assert.doesNotMatch(text, /records_space_id_key|constraint/);
    assert.match(logged.join('\n'), /records_space_id_key/);
    const raw = Object.assign(new Error('relation "records" does not exist'), { code: '42P01' });
    assert.doesNotMatch(clientMessage('memory_search', raw, logger), /relation|records/);
    // Typed errors of the product keep their message (they say what to do).
    assert.equal(clientMessage('memory_search', new AgentMemoryError('FORBIDDEN', 'role x is not a reviewer of space a'), logger), 'FORBIDDEN: role x is not a reviewer of space a');
  });

  describe('a wordless team search (real PostgreSQL)', () => {
    const { pg, connect } = useTeamMemory([]);
    it('`%_%` answers no results and logs no task and no retrieval', async () => {
      const team = await connect('wordless');
      await team.add([{ question: 'how many patients', execution: { code: 'x', language: 'python', outcome: 'success' } }], { trigger: 'user' });
      const tools = new TeamMemoryTools({ team: () => Promise.resolve(team), logger: nullLogger });
      const out = await tools.search({ query: '%_%' }, { via: 'mcp', name: 'test' });
      assert.deepEqual(out.results, []);
      const owner = new Client({ connectionString: pg().ownerUrl });
      await owner.connect();
      try {
        const n = (await owner.query<{ t: number; r: number }>("SELECT (SELECT count(*)::int FROM tasks WHERE space = 'wordless') AS t, (SELECT count(*)::int FROM retrievals WHERE space = 'wordless') AS r")).rows[0];
        assert.deepEqual(n, { t: 0, r: 0 });
        // A worded query still searches and logs.
        await tools.search({ query: 'patients' }, { via: 'mcp', name: 'test' });
        assert.equal((await owner.query<{ t: number }>("SELECT count(*)::int AS t FROM tasks WHERE space = 'wordless'")).rows[0].t, 1);
      } finally {
        await owner.end();
      }
    });
  });
});
