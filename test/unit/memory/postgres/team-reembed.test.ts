import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isAgentMemoryError } from '../../../../src/core/errors';
import { nullLogger } from '../../../../src/core/logger';
import { setupTeamMemory } from '../../../../src/core/memory/postgres/team-setup';
import { TeamMemoryStore } from '../../../../src/core/memory/postgres/team-store';
import { TeamMemoryTools } from '../../../../src/core/memory/postgres/team-tools';
import { parseVector } from '../../../../src/core/memory/postgres/vector-text';
import { HashingEmbedder } from '../../../../src/core/similarity/hashing-embedder';
import { usePostgres } from '../../../support/postgres';
import { runCli, splitPassword, transcript } from '../../../support/team-processes';

describe('re-embed on a postgres:// team space (real CLI process, real cluster)', function () {
  this.timeout(600_000);
  const pg = usePostgres();
  let dir: string;
  let team: TeamMemoryStore;

  before(async () => {
    await setupTeamMemory(pg().ownerUrl, { dimensions: [] });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-team-reembed-'));
    team = await TeamMemoryStore.connect({ url: pg().appUrl, space: 'mig', user: 'test', client: 'test' });
  });
  after(async () => {
    await team?.close();
    const all = transcript.join('\n');
    for (const p of pg().passwords) assert.ok(!all.includes(p), 'a password reached an output');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a space migrated from a file (fitted embedder: memory_search refuses it) becomes searchable on both sides after re-embed, in one audited step', async () => {
    const { bare, password } = splitPassword(pg().appUrl);
    const file = path.join(dir, 'personal.sqlite');
    const seeded = await runCli(['seed', '--db', file, '--count', '20']);
    assert.equal(seeded.code, 0, seeded.stderr);
    const migrated = await runCli(['migrate', '--from', file, '--to', bare, '--to-space', 'mig'], password);
    assert.equal(migrated.code, 0, migrated.stderr);
    const tools = new TeamMemoryTools({ team: () => Promise.resolve(team), logger: nullLogger });
    const records = await team.listByStatus('active', 100);
    assert.equal(records.length, 20);
    await assert.rejects(tools.search({ query: records[0].question, k: 3 }, { via: 'mcp', name: 't' }), (e: unknown) => isAgentMemoryError(e, 'UNSUPPORTED'), 'the fitted embedder of the file cannot be shared');

    const r = await runCli(['re-embed', '--db', bare, '--space', 'mig', '--dimension', '64'], password);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), '20');
    assert.match(r.stderr, /re-embedded 20 record\(s\) of space 'mig' with hash-v1-64 \(was /);

    const shared = new HashingEmbedder({ dimension: 64 });
    const rows = await team.withClient((c) => c.query<{ question: string; embedder_id: string; embedding: string }>('SELECT question, embedder_id, embedding::text AS embedding FROM records WHERE space = $1', ['mig']), 'read');
    for (const row of rows.rows) {
      assert.equal(row.embedder_id, shared.id);
      const expected = shared.embedSync(row.question);
      const got = parseVector(row.embedding);
      assert.ok(Math.max(...Array.from(expected, (x, i) => Math.abs(x - got[i]))) < 1e-3, 'every record carries the shared vector of its question');
    }
    const found = await tools.search({ query: records[0].question, k: 3 }, { via: 'mcp', name: 't' });
    assert.equal(found.results[0].id, records[0].id, 'its own question finds it first');
    assert.ok(found.results[0].similarity !== null && found.results[0].similarity > 0.99, `the dense side scored it (${found.results[0].similarity})`);
    const audit = await team.audit({ limit: 5 });
    assert.ok(audit.some((e) => e.operation === 're-embed' && /re-embedded 20 record/.test(e.reason) && e.client.startsWith('cli@')), 'audited with the client');
    // A second run without --dimension keeps the space's dimension.
    const again = await runCli(['re-embed', '--db', bare, '--space', 'mig'], password);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /with hash-v1-64\n/, 'without --dimension the space keeps its dimension');
  });
});
