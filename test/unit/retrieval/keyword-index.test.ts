import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import MiniSearch from 'minisearch';
import { codeTerms, KEYWORD_FIELD_BOOST } from '../../../src/core/memory/keyword/keyword-documents';
import { KEYWORD_FILE_SUFFIX, KeywordIndex } from '../../../src/core/memory/keyword/keyword-index';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { tokenizeForKeywords } from '../../../src/core/memory/text-processing';
import { SAMPLE_QUESTIONS, sampleRecord } from '../../support/records';

const QUESTIONS = SAMPLE_QUESTIONS.slice(0, 6);

describe('KeywordIndex', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kw-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  function seed(store: MemoryStore): void {
    store.add(QUESTIONS.map((q, i) => sampleRecord({ id: `r${i}`, question: q })), { trigger: 'user' });
  }
  const ids = (store: MemoryStore, hits: { rid: number }[]) => hits.map((h) => store.idOf(h.rid));

  it('finds records by question words and code identifiers', () => {
    const store = MemoryStore.open(':memory:');
    seed(store);
    store.add([sampleRecord({ id: 'code', question: 'unrelated words here', code: "answer = sql('select * from microbiologyevents')" })], { trigger: 'user' });
    const index = KeywordIndex.open(store);
    assert.equal(index.origin, 'memory');
    assert.equal(ids(store, index.search('intake method for danazol', 3))[0], 'r1');
    assert.equal(ids(store, index.search('microbiologyevents', 3))[0], 'code');
    index.close();
    store.close();
  });

  it('weighs a word found in a record’s code as much as one found in its question', () => {
    // Mirror records: "strptime" is one record's question word and the other's only call, every field one word long.
    const store = MemoryStore.open(':memory:');
    store.add([sampleRecord({ id: 'asks', question: 'strptime', code: 'reformat()' }), sampleRecord({ id: 'calls', question: 'reformat', code: 'strptime()' })], { trigger: 'user' });
    const index = KeywordIndex.open(store);
    const hits = index.search('strptime', 2);
    assert.deepEqual(new Set(ids(store, hits)), new Set(['asks', 'calls']));
    assert.ok(Math.abs(hits[0].score - hits[1].score) < 1e-9, `code match ${hits[1].score} vs question match ${hits[0].score}`);
    index.close();
    store.close();
  });

  it('scores exactly like MiniSearch’s own OR search', () => {
    const store = MemoryStore.open(':memory:');
    seed(store);
    const index = KeywordIndex.open(store);
    const reference = new MiniSearch<{ id: number; question: string; code: string }>({
      fields: ['question', 'code'],
      tokenize: (text, field) => (field === 'code' ? codeTerms(text) : tokenizeForKeywords(text)),
      processTerm: (t) => t,
    });
    reference.addAll(store.activeTexts().map((t) => ({ id: t.rid, question: t.question, code: t.code })));
    for (const q of ['how many patients were prescribed', 'patient heart rate', 'lab test cost']) {
      const expected = reference.search(q, { boost: KEYWORD_FIELD_BOOST, combineWith: 'OR' });
      const got = index.search(q, 10);
      assert.deepEqual(got.map((h) => h.rid), expected.slice(0, 10).map((r) => r.id), q);
      got.forEach((h, i) => assert.ok(Math.abs(h.score - expected[i].score) < 1e-9, `${q}: score ${h.score} vs ${expected[i].score}`));
    }
    index.close();
    store.close();
  });

  it('never returns pending records and drops deleted ones at once', () => {
    const store = MemoryStore.open(':memory:');
    const index = KeywordIndex.open(store);
    store.add([sampleRecord({ id: 'p', question: 'zebra count question', status: 'pending' }), sampleRecord({ id: 'a', question: 'zebra habitat question' })], { trigger: 'agent' });
    assert.deepEqual(ids(store, index.search('zebra', 5)), ['a']);
    store.transition(['a'], 'delete', { trigger: 'user' });
    assert.deepEqual(index.search('zebra', 5), []);
    store.transition(['p'], 'approve', { trigger: 'user' });
    assert.deepEqual(ids(store, index.search('zebra', 5)), ['p']);
    store.transition(['a'], 'restore', { trigger: 'user' });
    assert.deepEqual(new Set(ids(store, index.search('zebra', 5))), new Set(['a', 'p']));
    index.close();
    store.close();
  });

  it('persists beside the database and loads the file when it is current', () => {
    const db = path.join(dir, 'm.sqlite');
    let store = MemoryStore.open(db);
    let index = KeywordIndex.open(store);
    assert.equal(index.origin, 'rebuilt:missing');
    seed(store);
    index.close();
    store.close();
    assert.ok(fs.existsSync(db + KEYWORD_FILE_SUFFIX));
    // A MiniSearch file an earlier version wrote beside it is removed (the compact index does not read it).
    fs.writeFileSync(db + '.minisearch.json', '{}');
    store = MemoryStore.open(db);
    index = KeywordIndex.open(store);
    assert.equal(index.origin, 'loaded');
    assert.ok(!fs.existsSync(db + '.minisearch.json'));
    assert.equal(ids(store, index.search('danazol intake', 1))[0], 'r1');
    index.close();
    store.close();
  });

  it('catches a file up on what changed while it was closed (deleted here, added elsewhere)', () => {
    const db = path.join(dir, 'm.sqlite');
    let store = MemoryStore.open(db);
    seed(store);
    KeywordIndex.open(store).close();
    // One delete and one add keep the active count: the old count-based check took this file for current.
    store.transition(['r1'], 'delete', { trigger: 'user' });
    store.add([sampleRecord({ id: 'late', question: 'platypus question' })], { trigger: 'user' });
    store.close();
    const messages: string[] = [];
    const logger = { trace() {}, debug() {}, info: (m: string) => messages.push(m), warn: (m: string) => messages.push(m), error() {} };
    store = MemoryStore.open(db);
    const index = KeywordIndex.open(store, { logger });
    assert.equal(index.origin, 'loaded');
    assert.ok(messages.some((m) => /behind .*catching up on 2 records/.test(m)), messages.join('\n'));
    assert.deepEqual(ids(store, index.search('platypus', 3)), ['late']);
    assert.deepEqual(index.search('danazol', 3), []);
    assert.equal(index.documentFrequency('danazol'), 0);
    index.close();
    store.close();
  });

  it('rebuilds a file older than the change log reaches, and logs why', () => {
    const db = path.join(dir, 'm.sqlite');
    let store = MemoryStore.open(db);
    seed(store);
    KeywordIndex.open(store).close();
    store.connectionForQueries().exec('DELETE FROM record_changes'); // as if pruned
    store.add([sampleRecord({ id: 'late', question: 'platypus question' })], { trigger: 'user' });
    store.close();
    const messages: string[] = [];
    const logger = { trace() {}, debug() {}, info: (m: string) => messages.push(m), warn: (m: string) => messages.push(m), error() {} };
    store = MemoryStore.open(db);
    const index = KeywordIndex.open(store, { logger });
    assert.equal(index.origin, 'rebuilt:stale');
    assert.ok(messages.some((m) => /stale/.test(m)), messages.join('\n'));
    assert.deepEqual(ids(store, index.search('platypus', 3)), ['late']);
    index.close();
    store.close();
  });

  it('rebuilds a corrupt file', () => {
    const db = path.join(dir, 'm.sqlite');
    let store = MemoryStore.open(db);
    seed(store);
    KeywordIndex.open(store).close();
    store.close();
    const file = db + KEYWORD_FILE_SUFFIX;
    const text = fs.readFileSync(file);
    fs.writeFileSync(file, text.subarray(0, Math.floor(text.length / 2)));
    store = MemoryStore.open(db);
    const index = KeywordIndex.open(store);
    assert.equal(index.origin, 'rebuilt:corrupt');
    assert.equal(ids(store, index.search('danazol intake', 1))[0], 'r1');
    index.close();
    store.close();
    // The rebuilt index was written back and loads next time.
    store = MemoryStore.open(db);
    const again = KeywordIndex.open(store);
    assert.equal(again.origin, 'loaded');
    again.close();
    store.close();
  });

  it('picks up records written by another connection before answering', () => {
    const db = path.join(dir, 'm.sqlite');
    const store = MemoryStore.open(db);
    seed(store);
    const index = KeywordIndex.open(store);
    const other = MemoryStore.open(db);
    other.add([sampleRecord({ id: 'other', question: 'okapi sighting question' })], { trigger: 'user' });
    other.close();
    assert.deepEqual(ids(store, index.search('okapi', 3)), ['other']);
    index.close();
    store.close();
  });

  it('skips the most frequent terms when a query would visit too many postings', () => {
    const store = MemoryStore.open(':memory:');
    store.add(Array.from({ length: 50 }, (_, i) => sampleRecord({ id: `c${i}`, question: `common words number ${i}` })), { trigger: 'user' });
    store.add([sampleRecord({ id: 'rare', question: 'common words with quokka' })], { trigger: 'user' });
    const index = KeywordIndex.open(store, { maxPostings: 5 });
    assert.equal(index.documentFrequency('common'), 51);
    assert.deepEqual(ids(store, index.search('common words quokka', 10)), ['rare']);
    index.close();
    store.close();
  });
});
