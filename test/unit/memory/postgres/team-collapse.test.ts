import * as assert from 'node:assert/strict';
import { benchRecords } from '../../../../src/cli/team/bench-team-data';
import { searchTeam, MAX_SIDE_DEPTH } from '../../../../src/core/memory/postgres/team-search';
import { TeamMemoryTools } from '../../../../src/core/memory/postgres/team-tools';
import { nullLogger } from '../../../../src/core/logger';
import { writeTeam } from '../../../../src/core/memory/postgres/transfer';
import { useTeamMemory } from '../../../support/postgres';
import { SAMPLE_QUESTIONS, unitVector } from '../../../support/records';

type Row = ReturnType<typeof benchRecords>['records'][number];

/** The eight sample questions, each with a program of its own and a vector of its own. */
function originals(): Row[] {
  const base = benchRecords(SAMPLE_QUESTIONS.length, 16).records;
  return base.map((r, i) => ({ ...r, id: `q${i}`, question: SAMPLE_QUESTIONS[i], code: `answer = sql('select count(*) from table_${i}')`, embedding: Array.from(unitVector(i + 1)) }));
}

/** Each original and `copies` copies of it under new ids (same question, program and vector), as duplicated JSONL lines. */
function withCopies(rows: Row[], copies: number): Row[] {
  return rows.flatMap((r) => [r, ...Array.from({ length: copies }, (_, c) => ({ ...r, id: `${r.id}-copy${c}` }))]);
}

const content = (records: Row[]) => ({ ...benchRecords(0, 16), records });

describe('team memory search collapses identical programs (real PostgreSQL + pgvector)', function () {
  this.timeout(120_000);
  const { connect } = useTeamMemory([16]);

  it('a memory with 20 copies of every record ranks the same programs, in the same order, as without them; the copies are counted', async () => {
    // The spaces share one HNSW index (a space is filtered after the index scan): the memory without copies is
    // searched before the copies exist, so they cannot crowd its dense candidates.
    const plain = await connect('plain');
    await writeTeam(plain, content(originals()));
    const queries = SAMPLE_QUESTIONS.flatMap((question, i) => [unitVector(i + 1), null].map((vector) => ({ question, i, vector })));
    const expected: Awaited<ReturnType<typeof searchTeam>>[] = [];
    for (const q of queries) expected.push(await searchTeam(plain, q.question, q.vector, 4));
    const copied = await connect('copied');
    await writeTeam(copied, content(withCopies(originals(), 20)));
    for (const [n, q] of queries.entries()) {
      const without = expected[n];
      const withCopiesHits = await searchTeam(copied, q.question, q.vector, 4);
      // Hybrid: four; by keywords alone, the records sharing a word.
      assert.ok(q.vector ? without.length === 4 : without.length >= 1, `${without.length} hits`);
      assert.deepEqual(withCopiesHits.map((h) => h.record.execution.code), without.map((h) => h.record.execution.code), `"${q.question}" (${q.vector ? 'hybrid' : 'keyword'})`);
      assert.equal(withCopiesHits[0].record.question, q.question, 'hit@1 unchanged');
      for (const h of withCopiesHits) assert.equal(h.identical, 20, 'the 20 other records of the program are counted');
      assert.equal(new Set(withCopiesHits.map((h) => h.record.execution.code)).size, without.length, 'distinct programs');
    }
    // Without collapse the copies fill the top 4 (what the collapse fixes).
    for (const [i, question] of SAMPLE_QUESTIONS.entries()) {
      const flat = await searchTeam(copied, question, unitVector(i + 1), 4, { collapse: false });
      assert.equal(new Set(flat.map((h) => h.record.execution.code)).size, 1, `"${question}": four copies of one program`);
    }
  });

  it('the representative is the best by mean utility, then the most recent; its own similarity is reported', async () => {
    const rows = withCopies(originals().slice(0, 3), 4);
    const copy = (id: string, patch: Partial<Row>) => Object.assign(rows.find((r) => r.id === id)!, patch);
    // q0: one copy evaluated well, a more recent one never: utility wins.
    copy('q0-copy1', { utility_sum: 2, utility_count: 2 });
    copy('q0-copy3', { created_task: 50 });
    // q1: nothing evaluated: the most recent wins, even with its own (different) question and vector.
    copy('q1-copy2', { created_task: 40, question: 'a reworded question about danazol', embedding: Array.from(unitVector(77)) });
    const team = await connect('representatives');
    await writeTeam(team, content(rows));

    const [top] = await searchTeam(team, SAMPLE_QUESTIONS[0], unitVector(1), 1);
    assert.equal(top.record.id, 'q0-copy1');
    assert.equal(top.identical, 4);
    const [second] = await searchTeam(team, SAMPLE_QUESTIONS[1], unitVector(2), 1);
    assert.equal(second.record.id, 'q1-copy2');
    // The similarity of the record shown, not of the copy that ranked the program (cos(v2, v77) ≠ 1).
    const cosine = [...unitVector(2)].reduce((sum, x, j) => sum + x * unitVector(77)[j], 0);
    assert.ok(second.denseScore !== undefined && Math.abs(second.denseScore - cosine) < 1e-4, `${second.denseScore} vs ${cosine}`);
  });

  it('looks deeper when copies fill both sides: 60 copies of four programs still give four programs', async () => {
    // Every record shares the query's words and sits near its vector: the first pass (32 per side) holds one or two programs.
    const rows = originals().slice(0, 4).map((r, i) => ({ ...r, question: `how many patients had event ${i}`, embedding: Array.from(unitVector(1)) }));
    const team = await connect('deep');
    await writeTeam(team, content(withCopies(rows, 59)));
    const hits = await searchTeam(team, 'how many patients had event', unitVector(1), 4);
    assert.equal(new Set(hits.map((h) => h.record.execution.code)).size, 4, JSON.stringify(hits.map((h) => [h.record.id, h.identical])));
    assert.ok(MAX_SIDE_DEPTH >= 4 * 60, 'the deepest pass covers the memory here');
  });

  it('memory_search reports the copies behind each result', async () => {
    const team = await connect('tool');
    // No embedder named: the tool searches by keywords (its query vector has another dimension than these records').
    await writeTeam(team, { ...content(withCopies(originals(), 3)), meta: {} });
    const tools = new TeamMemoryTools({ team: () => Promise.resolve(team), logger: nullLogger });
    const out = await tools.search({ query: SAMPLE_QUESTIONS[2], k: 3, min_score: 0 }, { via: 'mcp', name: 'test-client' });
    assert.equal(out.results.length, 3);
    assert.deepEqual(out.results.map((r) => r.identical), [3, 3, 3]);
    assert.equal(new Set(out.results.map((r) => r.code)).size, 3);
    assert.equal(out.results[0].question, SAMPLE_QUESTIONS[2]);
  });
});
