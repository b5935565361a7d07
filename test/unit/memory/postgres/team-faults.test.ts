import * as assert from 'node:assert/strict';
import { isAgentMemoryError } from '../../../../src/core/errors';
import { TeamChange, TeamChangeFeed } from '../../../../src/core/memory/postgres/change-feed';
import { describeConnection, poolConfig } from '../../../../src/core/memory/postgres/connection';
import { searchTeam } from '../../../../src/core/memory/postgres/team-search';
import { TeamMemoryStore } from '../../../../src/core/memory/postgres/team-store';
import { setupTeamMemory } from '../../../../src/core/memory/postgres/team-setup';
import { redactText } from '../../../../src/core/security/redact';
import { usePostgres } from '../../../support/postgres';
import { sampleRecord, unitVector } from '../../../support/records';

describe('team memory: search, security and server restarts (real server)', function () {
  this.timeout(90_000);
  const pg = usePostgres();
  const passwordOf = (url: string): string => decodeURIComponent(new URL(url).password);

  before(async () => {
    await setupTeamMemory(pg().ownerUrl, { dimensions: [16] });
  });

  it('answers hybrid queries: pgvector for the dense side, tsvector for the keyword side; only active records', async () => {
    const team = await TeamMemoryStore.connect({ url: pg().appUrl, space: 'search', user: 'u', client: 'c' });
    try {
      const inputs = Array.from({ length: 30 }, (_, i) => sampleRecord({ id: `q${i}`, question: `question number ${i} about ${i % 2 ? 'admissions' : 'prescriptions'}` }));
      await team.add(inputs, { trigger: 'user', embeddings: inputs.map((_, i) => unitVector(i)), embedderId: 'test-16' });
      const byVector = await searchTeam(team, 'zzz', unitVector(7), 3);
      assert.equal(byVector[0].record.id, 'q7');
      assert.ok(Math.abs(byVector[0].denseScore! - 1) < 1e-5);
      const byWords = await searchTeam(team, 'prescriptions', null, 5);
      assert.equal(byWords.length, 5);
      assert.ok(byWords.every((h) => /prescriptions/.test(h.record.question)));
      await team.transition(['q7'], 'delete', { trigger: 'user' });
      assert.ok(!(await searchTeam(team, 'number 7', unitVector(7), 5)).some((h) => h.record.id === 'q7'));
      await assert.rejects(team.add([sampleRecord()], { trigger: 'user', embeddings: [unitVector(1, 8)], embedderId: 'other-8' }), (e) => isAgentMemoryError(e, 'EMBEDDER_MISMATCH'));
      // Vectors come back exactly (float32 through pgvector's text form).
      const stored = await team.withClient((c) => c.query<{ e: string }>("SELECT embedding::text AS e FROM records WHERE space = 'search' AND id = 'q3'"), 'read');
      assert.deepEqual(Float32Array.from(stored.rows[0].e.slice(1, -1).split(','), Number), unitVector(3));
    } finally {
      await team.close();
    }
  });

  it('honours sslmode: require against a server without TLS fails instead of falling back; prefer is refused', async () => {
    const url = pg().appUrl.replace('sslmode=disable', 'sslmode=require');
    await assert.rejects(TeamMemoryStore.connect({ url, user: 'u', client: 'c' }), (e) => isAgentMemoryError(e) && /SSL/i.test(e.message) && !e.message.includes(passwordOf(pg().appUrl)));
    assert.throws(() => poolConfig({ url: pg().appUrl.replace('sslmode=disable', 'sslmode=prefer'), user: 'u', client: 'c' }), /sslmode=prefer is not supported/);
    assert.equal(poolConfig({ url: 'postgres://app@db.example.com/mem', user: 'u', client: 'c' }).sslMode, 'verify-full');
  });

  it('takes the password from the environment; it never appears in descriptions, errors or redacted text', async () => {
    const password = passwordOf(pg().appUrl);
    const bare = pg().appUrl.replace(`:${encodeURIComponent(password)}@`, '@');
    assert.ok(!bare.includes(password));
    const team = await TeamMemoryStore.connect({ url: bare, user: 'u', client: 'c' }, { env: { AGENT_MEMORY_PG_PASSWORD: password } });
    await team.close();
    assert.ok(!describeConnection(pg().appUrl).includes(password));
    assert.ok(!redactText(`failed: ${pg().appUrl}`).includes(password));
    assert.ok(!redactText(`${bare}&password=${password}`).includes(password));
    const wrong = TeamMemoryStore.connect({ url: bare, user: 'u', client: 'c' }, { env: { AGENT_MEMORY_PG_PASSWORD: 'not-the-password' } });
    await assert.rejects(wrong, (e) => isAgentMemoryError(e, 'CONFIG') && /password authentication failed.*set AGENT_MEMORY_PG_PASSWORD/.test(e.message) && !e.message.includes('not-the-password'));
  });

  it('survives a server restart: writes after it succeed, the change feed reconnects and catches up, nothing acknowledged is lost', async () => {
    const team = await TeamMemoryStore.connect({ url: pg().appUrl, space: 'restart', user: 'u', client: 'c' });
    const feed = await TeamChangeFeed.start({ url: pg().appUrl, space: 'restart', user: 'u', client: 'feed' });
    const seen: TeamChange[] = [];
    feed.onDidChange((c) => seen.push(c));
    try {
      const before = await team.add([sampleRecord({ id: 'before' })], { trigger: 'user' });
      pg().restart('immediate');
      // The pool's idle connections died with the server: the next write reconnects.
      const after = await team.add([sampleRecord({ id: 'after', question: 'after the restart' })], { trigger: 'user' });
      assert.deepEqual([before[0].id, after[0].id], ['before', 'after']);
      assert.deepEqual((await team.getMany(['before', 'after'])).map((r) => r.id), ['before', 'after']);
      const deadline = Date.now() + 15_000;
      while (!seen.some((c) => c.id === 'after') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(seen.map((c) => c.id), ['before', 'after']);
    } finally {
      await feed.close();
      await team.close();
    }
  });

  it('reports UNREACHABLE (never done) when the server is down, naming the host without the password', async () => {
    const team = await TeamMemoryStore.connect({ url: pg().appUrl, space: 'down', user: 'u', client: 'c' });
    const url = new URL(pg().appUrl);
    url.port = '1'; // nothing listens there
    try {
      const dead = await TeamMemoryStore.connect({ url: url.toString(), user: 'u', client: 'c' }).catch((e: unknown) => e);
      assert.ok(isAgentMemoryError(dead, 'UNREACHABLE'), String(dead));
      assert.ok(!dead.message.includes(passwordOf(pg().appUrl)));
      assert.match(dead.message, /127\.0\.0\.1:1/);
    } finally {
      await team.close();
    }
  });
});
