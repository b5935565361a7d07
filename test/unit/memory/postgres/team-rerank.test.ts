import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { readDomainValues } from '../../../../src/core/data/domain-values-reader';
import type { DomainValues } from '../../../../src/core/memory/search/domain-values';
import { QuestionShapes } from '../../../../src/core/memory/search/rerank';
import { searchTeam } from '../../../../src/core/memory/postgres/team-search';
import { TeamShapes } from '../../../../src/core/memory/postgres/team-shapes';
import type { TeamMemoryStore } from '../../../../src/core/memory/postgres/team-store';
import { useTeamMemory } from '../../../support/postgres';
import { CHART_HEART_RATE, LAB_POTASSIUM } from '../../../support/records';

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');
const SODIUM = { question: 'Sodium in the lab for patient 9?', code: `answer = sql("select valuenum from labevents where itemid in (select itemid from d_labitems where d_labitems.label = 'sodium') and subject_id = 9")` };
const RECORDS = [CHART_HEART_RATE, LAB_POTASSIUM, SODIUM];
/** Lab values (two the memory's programs compare with d_labitems.label, one only the demo database holds), asked in the chart record's words. */
const QUERIES = ['What was the last sodium value of patient 12?', 'What was the last potassium value of patient 12?', 'What was the last calculated total co2 value of patient 12?'];

async function seed(team: TeamMemoryStore, records = RECORDS): Promise<string[]> {
  const { embedder } = await team.sharedEmbedder();
  const added = await team.add(
    records.map((r) => ({ question: r.question, execution: { code: r.code, language: 'python' as const, outcome: 'success' as const }, provenance: 'seed' as const })),
    { trigger: 'user', reason: 'test seed', merge: false, embedder },
  );
  return added.map((r) => r.id);
}

describe('team memory search re-ranks as the personal memory does (TeamShapes; real PostgreSQL + pgvector)', function () {
  this.timeout(120_000);
  const { connect } = useTeamMemory([]);
  let values: DomainValues;
  before(() => {
    values = readDomainValues(path.join(ROOT, 'data', 'ehr', 'mimic3-demo.sqlite'));
  });

  it('re-orders the fused top exactly as the personal stage re-orders it over the same records; the value columns move the lab programs up', async () => {
    const team = await connect('parity');
    const ids = await seed(team);
    const shapes = new TeamShapes(team, { domainValues: values });
    await shapes.load();
    assert.equal(shapes.size, 3);
    // The personal memory's stage over the same records.
    const personal = new QuestionShapes();
    personal.setDomainValues(values);
    RECORDS.forEach((r, i) => personal.set(i, r.question, r.code, 'python'));
    const { embedder } = await team.sharedEmbedder();
    const tops: { fused: string; reranked: string }[] = [];
    for (const query of QUERIES) {
      const vector = embedder.embedSync(query);
      const fused = await searchTeam(team, query, vector, 4);
      const reranked = await searchTeam(team, query, vector, 4, { rerank: shapes });
      const expected = personal
        .rerank(query, fused.map((h) => ({ key: ids.indexOf(h.record.id), score: h.score, question: h.record.question, code: h.record.execution.code })))
        .map((c) => ids[c.key]);
      assert.deepEqual(reranked.map((h) => h.record.id), expected, query);
      assert.deepEqual(new Set(reranked.map((h) => h.record.id)), new Set(fused.map((h) => h.record.id)), 'the same records, re-ordered');
      tops.push({ fused: fused[0].record.id, reranked: reranked[0].record.id });
    }
    // Fused, the chart record (the most shared words) leads for every query; re-ranked, a lab program does
    // (the value columns; co2 is a lab test only the demo database says so).
    assert.deepEqual(tops.map((t) => t.fused), [ids[0], ids[0], ids[0]]);
    for (const t of tops) assert.ok(t.reranked === ids[1] || t.reranked === ids[2], JSON.stringify(t));
  });

  it('without the data\'s values the re-ranking does not apply: the fused search exactly (records, order, scores), nothing read', async () => {
    const team = await connect('novalues');
    await seed(team);
    const shapes = new TeamShapes(team);
    assert.equal(shapes.applies, false);
    const { embedder } = await team.sharedEmbedder();
    for (const query of QUERIES) {
      const v = embedder.embedSync(query);
      for (const k of [1, 4]) {
        const strip = (hits: Awaited<ReturnType<typeof searchTeam>>) => hits.map((h) => ({ id: h.record.id, score: h.score, identical: h.identical }));
        assert.deepEqual(strip(await searchTeam(team, query, v, k, { rerank: shapes })), strip(await searchTeam(team, query, v, k)), `${query} k ${k}`);
      }
    }
    assert.equal(shapes.ready, false, 'the space was not read for the re-ranking');
    shapes.setDomainValues(values);
    assert.equal(shapes.applies, true);
  });

  it('keeps the fused order until the space is read, then re-ranks; k is respected', async () => {
    const team = await connect('loading');
    const ids = await seed(team);
    const shapes = new TeamShapes(team, { domainValues: values });
    const { embedder } = await team.sharedEmbedder();
    const query = QUERIES[0];
    const fused = await searchTeam(team, query, embedder.embedSync(query), 4);
    const first = await searchTeam(team, query, embedder.embedSync(query), 4, { rerank: shapes });
    assert.deepEqual(first.map((h) => h.record.id), fused.map((h) => h.record.id), 'not read yet: the fused order');
    await shapes.load(); // the read the first search started
    assert.ok(shapes.ready);
    const all = await searchTeam(team, query, embedder.embedSync(query), 4, { rerank: shapes });
    assert.notEqual(all[0].record.id, fused[0].record.id, 'read: re-ranked');
    assert.ok(all[0].record.id !== ids[0]);
    const one = await searchTeam(team, query, embedder.embedSync(query), 1, { rerank: shapes });
    assert.deepEqual(one.map((h) => h.record.id), [all[0].record.id], 'k 1: the re-ranked top');
  });

  it("follows other clients' changes through change_log: its state equals a fresh read after additions, edits, retirements, restores and purges", async () => {
    const team = await connect('fresh');
    const other = await connect('fresh', { client: 'other' });
    const ids = await seed(team, RECORDS.slice(0, 2));
    const shapes = new TeamShapes(team);
    await shapes.load();
    const fresh = async (): Promise<ReturnType<TeamShapes['snapshot']>> => {
      const s = new TeamShapes(team);
      await s.load();
      return s.snapshot();
    };
    const [sodium] = await seed(other, [SODIUM]);
    await shapes.catchUp();
    assert.equal(shapes.size, 3, 'another client added a record');
    assert.deepEqual(shapes.snapshot(), await fresh());
    // An edit (kind 'updated'), a retirement, a restore, a purge, and utility counters (not read again).
    await other.withClient((c) => c.query("UPDATE records SET question = 'Serum sodium of patient 9 in the lab?' WHERE space = $1 AND id = $2", [other.space, sodium]), 'test edit');
    await other.withClient((c) => c.query('UPDATE records SET retrieval_count = retrieval_count + 1 WHERE space = $1', [other.space]), 'test counters');
    await other.transition([ids[0]], 'delete', { trigger: 'user', reason: 'test' });
    await shapes.catchUp();
    assert.equal(shapes.size, 2, 'a deleted record is no longer held');
    assert.ok(shapes.snapshot().known.some(([w]) => w === 'serum'), 'the edited question is held');
    assert.deepEqual(shapes.snapshot(), await fresh());
    await other.transition([ids[0]], 'restore', { trigger: 'user', reason: 'test' });
    await other.transition([ids[1]], 'delete', { trigger: 'user', reason: 'test' });
    await other.transition([ids[1]], 'purge', { trigger: 'user', reason: 'test' });
    await shapes.catchUp();
    assert.equal(shapes.size, 2);
    assert.deepEqual(shapes.snapshot(), await fresh());
    assert.ok(!shapes.snapshot().phrases.some(([p]) => p === 'potassium'), 'the purged program\'s values are no longer counted');
  });
});
