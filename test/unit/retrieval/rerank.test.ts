import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { MemoryRetriever } from '../../../src/core/agent/retriever';
import { readDomainValues } from '../../../src/core/data/domain-values-reader';
import { HybridSearch } from '../../../src/core/memory/search/hybrid-search';
import { DomainValues } from '../../../src/core/memory/search/domain-values';
import { identifierWords, QuestionShapes, RERANK_DEPTH } from '../../../src/core/memory/search/rerank';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { HashingEmbedder } from '../../../src/core/similarity/hashing-embedder';
import { CHART_HEART_RATE, LAB_POTASSIUM, sampleRecord } from '../../support/records';

const COST_PROCEDURE = { question: 'What is the cost of a procedure named knee replacement?', code: `answer = sql("select cost from cost where event_type = 'procedures_icd' and title = 'knee replacement'")` };
const COST_PATIENT = { question: 'What is the cost of the hospital stay of patient 42?', code: `answer = sql("select sum(cost) from cost where subject_id = 42")` };
const WARD = { question: 'What was the first ward of patient 7 this year?', code: 'answer = sql("select wardid from transfers where subject_id = 7")' };
const CAREUNIT = { question: 'What was the first care unit of patient 7 this year?', code: 'answer = sql("select careunit from transfers where subject_id = 7")' };

/** Values of a database the programs query: with them attached the re-ranking applies (rerankApplies). */
const VALUES = new DomainValues([['hip replacement', 'd_icd_procedures.short_title'], ['potassium', 'd_labitems.label']]);

function shapesOf(...records: { question: string; code: string }[]): QuestionShapes {
  const shapes = new QuestionShapes();
  records.forEach((r, i) => shapes.set(i, r.question, r.code));
  return shapes;
}

describe('QuestionShapes (re-ranking)', () => {
  it('masks vocabulary values and words no stored question uses as value slots, merging adjacent ones', () => {
    const shapes = shapesOf(COST_PROCEDURE, COST_PATIENT);
    assert.deepEqual(shapes.maskQuery('What is the cost of a procedure named hip replacement?'), ['what', 'is', 'the', 'cost', 'of', 'a', 'procedure', 'named', '<value>']);
    assert.deepEqual(shapes.maskQuery('What is the cost of knee replacement?'), ['what', 'is', 'the', 'cost', 'of', '<value>']);
  });

  it('follows records as they go: a removed record no longer makes its words known', () => {
    const shapes = shapesOf(COST_PROCEDURE, WARD);
    assert.deepEqual(shapes.maskQuery('the ward'), ['the', 'ward']);
    shapes.delete(1);
    assert.deepEqual(shapes.maskQuery('the ward'), ['the', '<value>']);
  });

  it('prefers the candidate with as many value slots as the query over a better-scored one with more', () => {
    const shapes = shapesOf(COST_PROCEDURE, COST_PATIENT);
    const candidates = [
      { id: 'patient', key: 1, score: 1, ...COST_PATIENT },
      { id: 'procedure', key: 0, score: 0.9, ...COST_PROCEDURE },
    ];
    // "hip replacement" is a value slot; the patient id is a number shape, not a value slot.
    assert.deepEqual(shapes.rerank('What is the cost of a procedure named hip replacement?', candidates).map((c) => c.id), ['procedure', 'patient']);
    assert.deepEqual(shapes.rerank('What is the cost of a procedure named hip replacement?', candidates, { slots: false, links: false, columns: false }).map((c) => c.id), ['patient', 'procedure']);
  });

  it('prefers the candidate whose program the query names the way its own question did (links)', () => {
    const shapes = shapesOf(WARD, CAREUNIT);
    const candidates = [
      { id: 'careunit', key: 1, score: 1, ...CAREUNIT },
      { id: 'ward', key: 0, score: 0.95, ...WARD },
    ];
    assert.deepEqual(shapes.rerank('Which ward did patient 9 stay in first?', candidates, { slots: false, links: true, columns: false }).map((c) => c.id), ['ward', 'careunit']);
    assert.deepEqual(shapes.rerank('Which care unit did patient 9 stay in first?', candidates, { slots: false, links: true, columns: false }).map((c) => c.id), ['careunit', 'ward']);
  });

  it('prefers the candidate whose program compares the query\'s known values with the same column (value columns)', () => {
    const LAB = { question: 'What was the last potassium value of patient 4?', code: `answer = sql("select valuenum from labevents where itemid in (select itemid from d_labitems where d_labitems.label = 'potassium') and subject_id = 4")` };
    const CHART = { question: 'What was the last heart rate value of patient 5?', code: `answer = sql("select valuenum from chartevents where itemid in (select itemid from d_items where d_items.label = 'heart rate') and subject_id = 5")` };
    const SODIUM = { question: 'Sodium in the lab for patient 9?', code: `answer = sql("select valuenum from labevents where itemid in (select itemid from d_labitems where d_labitems.label = 'sodium') and subject_id = 9")` };
    const shapes = shapesOf(LAB, CHART, SODIUM);
    assert.deepEqual(shapes.queryColumns('Minimum sodium of patient 12 since 2104?'), [['d_labitems.label']]);
    assert.deepEqual(shapes.queryColumns('Minimum troponin of patient 12?'), [], 'a value the memory never compared names no column');
    const candidates = [
      { id: 'chart', key: 1, score: 1, ...CHART },
      { id: 'lab', key: 0, score: 0.95, ...LAB },
    ];
    const only = { slots: false, links: false, columns: true };
    assert.deepEqual(shapes.rerank('What was the last sodium value of patient 12?', candidates, only).map((c) => c.id), ['lab', 'chart']);
    assert.deepEqual(shapes.rerank('What was the last sodium value of patient 12?', candidates, { ...only, columns: false }).map((c) => c.id), ['chart', 'lab']);
    // The column leaves with the last record that compared the value.
    shapes.delete(2);
    assert.deepEqual(shapes.queryColumns('Minimum sodium of patient 12 since 2104?'), []);
  });

  it('with the data\'s values, a value no stored program compares still names its columns; the memory\'s own use speaks first', () => {
    const LAB = { question: 'What was the last potassium value of patient 4?', code: `answer = sql("select valuenum from labevents where itemid in (select itemid from d_labitems where d_labitems.label = 'potassium') and subject_id = 4")` };
    const CHART = { question: 'What was the last heart rate value of patient 5?', code: `answer = sql("select valuenum from chartevents where itemid in (select itemid from d_items where d_items.label = 'heart rate') and subject_id = 5")` };
    const shapes = shapesOf(LAB, CHART);
    const query = 'What was the last troponin value of patient 12?';
    const candidates = [
      { id: 'chart', key: 1, score: 1, ...CHART },
      { id: 'lab', key: 0, score: 0.95, ...LAB },
    ];
    const only = { slots: false, links: false, columns: true };
    assert.deepEqual(shapes.rerank(query, candidates, only).map((c) => c.id), ['chart', 'lab'], 'without the data, troponin is unknown');
    shapes.setDomainValues(new DomainValues([['Troponin', 'd_labitems.label'], ['heart rate', 'd_items.label'], ['heart rate', 'd_labitems.label'], ['value', 'd_items.label']]));
    assert.deepEqual(shapes.queryColumns(query), [['d_labitems.label']], '"value" is a word the stored questions use: not a value');
    assert.deepEqual(shapes.rerank(query, candidates, only).map((c) => c.id), ['lab', 'chart']);
    assert.deepEqual(shapes.queryColumns('heart rate of patient 3'), [['d_items.label']], 'the memory compares heart rate with d_items.label: its column, not the data\'s two');
  });

  it('a candidate shape kept between queries follows a change of its record\'s text (never a stale shape)', () => {
    const shapes = shapesOf(WARD, CAREUNIT);
    const query = 'Which care unit did patient 9 stay in first?';
    const before = [
      { id: 'ward', key: 0, score: 1, ...WARD },
      { id: 'careunit', key: 1, score: 0.95, ...CAREUNIT },
    ];
    assert.deepEqual(shapes.rerank(query, before, { slots: false, links: true, columns: false }).map((c) => c.id), ['careunit', 'ward']);
    // The two records swap texts: key 1 now holds the ward program, key 0 the care-unit one.
    shapes.set(0, CAREUNIT.question, CAREUNIT.code);
    shapes.set(1, WARD.question, WARD.code);
    const after = [
      { id: 'ward', key: 1, score: 1, ...WARD },
      { id: 'careunit', key: 0, score: 0.95, ...CAREUNIT },
    ];
    assert.deepEqual(shapes.rerank(query, after, { slots: false, links: true, columns: false }).map((c) => c.id), ['careunit', 'ward']);
  });

  it('holds each record\'s program identity: equal across layout noise, apart across languages and programs, gone with the record', () => {
    const shapes = new QuestionShapes();
    shapes.set(1, 'q', 'answer = sql("select 1")\n', 'python');
    shapes.set(2, 'q', 'answer  =  sql("select 1")\n\n', 'python');
    shapes.set(3, 'q', 'answer = sql("select 1")', 'javascript');
    shapes.set(4, 'q', 'answer = sql("select 2")', 'python');
    assert.equal(shapes.programId(1), shapes.programId(2));
    assert.notEqual(shapes.programId(1), shapes.programId(3));
    assert.notEqual(shapes.programId(1), shapes.programId(4));
    assert.ok(Number.isSafeInteger(shapes.programId(1)));
    shapes.delete(2);
    assert.equal(shapes.programId(2), undefined);
  });

  it('reads identifiers of any language, leaving literals out', () => {
    assert.deepEqual(identifierWords(`const wardId = rows.filter((r) => r.careUnit === 'MICU ward')`).sort(), ['care', 'const', 'filter', 'rows', 'unit', 'ward'].sort());
  });

  it('re-orders only the best RERANK_DEPTH candidates', () => {
    const shapes = shapesOf(COST_PROCEDURE, COST_PATIENT);
    const filler = Array.from({ length: RERANK_DEPTH }, (_, i) => ({ id: `f${i}`, key: 100 + i, score: 1 - i / 100, ...COST_PATIENT }));
    const out = shapes.rerank('What is the cost of a procedure named hip replacement?', [...filler, { id: 'procedure', key: 0, score: 0.1, ...COST_PROCEDURE }]);
    assert.equal(out[out.length - 1].id, 'procedure');
  });
});

describe('HybridSearch with the re-ranking stage', () => {
  const embedder = new HashingEmbedder();
  /** An in-memory store holding these records as r0, r1, … (embedded with the unfitted built-in embedder). */
  function storeOf(...list: { question: string; code: string }[]): MemoryStore {
    const store = MemoryStore.open(':memory:');
    const records = list.map((r, i) => sampleRecord({ id: `r${i}`, question: r.question, code: r.code }));
    store.add(records, { trigger: 'user', embeddings: records.map((r) => embedder.embedSync(r.question)), embedderId: embedder.id });
    return store;
  }

  it('re-orders the collapsed top and still returns k distinct programs', () => {
    const store = storeOf(WARD, CAREUNIT, COST_PROCEDURE, COST_PATIENT);
    const search = HybridSearch.open(store, { file: null, domainValues: VALUES });
    try {
      const q = 'Which ward was patient 12 in first this year?';
      const query = { text: q, vector: embedder.embedSync(q) };
      assert.equal(search.shapes.shapes()?.size, 4, 'the search holds every active record\'s shape');
      const hits = search.search(query, 3, { rerank: true });
      assert.equal(hits.length, 3);
      assert.equal(new Set(hits.map((h) => h.recordId)).size, 3);
      assert.equal(hits[0].recordId, 'r0');
    } finally {
      search.close();
      store.close();
    }
  });

  it('the app\'s retriever follows agentMemory.retrieval.rerank (configure): fused, re-ranked, and re-ranked with the agent database\'s values', () => {
    const store = storeOf(CHART_HEART_RATE, LAB_POTASSIUM);
    const retriever = MemoryRetriever.open(store, { file: null });
    try {
      // "calculated total co2" is in no stored program: only the database says it is a lab test.
      const q = 'What was the last calculated total co2 value of patient 12?';
      const top = (): string => retriever.retrieve(q, embedder.embedSync(q), 2)[0].recordId;
      assert.equal(top(), 'r0', 'fused: the chart record shares more words');
      retriever.configure({ rerank: true, domainValues: null });
      assert.equal(top(), 'r0', 'without the database\'s values the re-ranking does not apply: the fused order');
      retriever.configure({ rerank: true, domainValues: VALUES });
      assert.equal(top(), 'r0', 're-ranked with values that do not hold it: the value names no column');
      retriever.configure({ rerank: true, domainValues: readDomainValues(path.join(__dirname, '..', '..', '..', 'data', 'ehr', 'mimic3-demo.sqlite')) });
      assert.equal(top(), 'r1', 'with the database\'s values it is a d_labitems.label value: the lab program');
      retriever.configure({ rerank: false, domainValues: null });
      assert.equal(top(), 'r0');
    } finally {
      retriever.close();
      store.close();
    }
  });

  it('the agent\'s retriever re-ranks when opened with rerank and the data\'s values (the bench\'s `rerank` switch), and keeps the fused order otherwise', () => {
    const COST_PROCEDURE_OF_PATIENT = { question: 'What is the cost of a procedure for patient 42?', code: `answer = sql("select sum(cost) from cost where event_type = 'procedures_icd' and subject_id = 42")` };
    const store = storeOf(COST_PROCEDURE, COST_PROCEDURE_OF_PATIENT, WARD, CAREUNIT);
    const fused = MemoryRetriever.open(store, { file: null });
    const reranked = MemoryRetriever.open(store, { file: null, rerank: true, domainValues: VALUES });
    const withoutValues = MemoryRetriever.open(store, { file: null, rerank: true });
    try {
      // One value slot ("hip arthroplasty"), as the knee-replacement record's question; the patient record's words overlap more.
      const q = 'What is the cost of a procedure named hip arthroplasty for patient?';
      assert.equal(fused.retrieve(q, embedder.embedSync(q), 4)[0].recordId, 'r1');
      assert.equal(reranked.retrieve(q, embedder.embedSync(q), 4)[0].recordId, 'r0');
      assert.equal(withoutValues.retrieve(q, embedder.embedSync(q), 4)[0].recordId, 'r1', 'without the values: the fused order');
    } finally {
      fused.close();
      reranked.close();
      withoutValues.close();
      store.close();
    }
  });
});
