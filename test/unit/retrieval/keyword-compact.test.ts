import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SyntheticRecords } from '../../../src/core/bench/synthetic-records';
import { CompactPostings } from '../../../src/core/memory/keyword/keyword-compact';
import { readCompactFile, writeCompactFile } from '../../../src/core/memory/keyword/keyword-compact-file';
import { Doc, newMiniSearch, SCORER_OPTIONS, tokenize } from '../../../src/core/memory/keyword/keyword-documents';
import { KeywordIndex, KeywordIndexOptions } from '../../../src/core/memory/keyword/keyword-index';
import { postingsReader } from '../../../src/core/memory/keyword/keyword-postings';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { nullLogger } from '../../../src/core/logger';
import { seededRandom } from '../../../src/core/random';
import { assertSameHits } from '../../support/keyword-hits';

const TASKS = path.join(__dirname, '..', '..', '..', 'data', 'ehr', 'ehrsql-mimic3-tasks.jsonl');

describe('compact keyword index (typed-array postings) against MiniSearch', function () {
  this.timeout(180_000);
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kw-compact-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads every term with MiniSearch’s scores, bit for bit, through adds, removals, edits and compactions', () => {
    const gen = SyntheticRecords.fromFile(TASKS, 41);
    const random = seededRandom(9);
    const ms = newMiniSearch();
    const compact = CompactPostings.empty();
    const docs = new Map<number, Doc>();
    let next = 1;
    const add = (n: number) => {
      for (const r of gen.records(n)) {
        const doc = { id: next++, question: r.question, code: r.execution.code };
        docs.set(doc.id, doc);
        ms.add(doc);
        compact.add(doc);
      }
    };
    let checked = 0;
    const compare = (label: string) => {
      const live = [...docs.keys()];
      const ordinals = new Map(live.map((rid, i) => [rid, i]));
      assert.deepEqual([...compact.documentIds()], live, `${label}: documents in insertion order`);
      assert.equal(compact.documentCount, ms.documentCount);
      const read = postingsReader(ms, SCORER_OPTIONS)!;
      const df = new Map<string, number[]>();
      for (const rid of live) {
        SCORER_OPTIONS.fields.forEach((f, i) => {
          const doc = docs.get(rid)!;
          for (const t of new Set(tokenize(f === 'code' ? doc.code : doc.question, f))) {
            const counts = df.get(t) ?? df.set(t, [0, 0]).get(t)!;
            counts[i]++;
          }
        });
      }
      const terms = new Set(live.slice(-60).flatMap((rid) => [...tokenize(docs.get(rid)!.question, 'question'), ...tokenize(docs.get(rid)!.code, 'code')]));
      for (const term of terms) {
        const want = read(term, ordinals)!;
        const got = compact.readTerm(term, ordinals)!;
        const byOrd = (r: typeof want) => new Map(Array.from(r.ords, (o, j) => [o, [r.scores[j], r.field[j]]]));
        assert.deepEqual(byOrd(got), byOrd(want), `${label}: ${term}`);
        assert.deepEqual(compact.perField(term), df.get(term) ?? [0, 0], `${label}: ${term} frequencies`);
        checked++;
      }
    };
    add(400);
    compare('built');
    for (let round = 0; round < 8; round++) {
      for (const rid of [...docs.keys()].filter(() => random() < 0.08)) {
        const doc = docs.get(rid)!;
        docs.delete(rid);
        ms.remove(doc);
        // Every third one leaves with another text in the database (an edited record: its terms are not known).
        compact.remove(rid, rid % 3 === 0 ? { ...doc, question: `${doc.question} edited` } : doc);
      }
      add(40);
      if (round % 3 === 2) compact.compact();
      compare(`round ${round}`);
    }
    assert.ok(compact.compactions >= 3, `${compact.compactions} compactions`);
    assert.ok(checked > 1000, `${checked} terms compared`);
  });

  // The reference is a MiniSearch engine built afresh at each comparison: the MiniSearch engine kept up to date counts a
  // leaving edited record's frequencies from its new text (TermFrequencies.count), so its query term selection drifts.
  it('a real store with random adds, deletes, restores and edits: the same hits as a MiniSearch engine built afresh (scores to 1e-9), also after a reload', () => {
    const db = path.join(dir, 'm.sqlite');
    const store = MemoryStore.open(db);
    const gen = SyntheticRecords.fromFile(TASKS, 43);
    const random = seededRandom(17);
    const open = (o: KeywordIndexOptions = {}) => KeywordIndex.open(store, { logger: nullLogger, persistDebounceMs: 3_600_000, ...o });
    const ids = store.add(gen.records(1200), { trigger: 'import' }).map((r) => r.id);
    let compact = open();
    const queries = Array.from({ length: 25 }, () => gen.question());
    let compared = 0;
    const compare = (label: string) => {
      const reference = open({ engine: 'minisearch', file: null });
      for (const q of queries) {
        const want = reference.searchDirect(q, 20);
        assert.ok(want.length > 0, `${label}: ${q} finds records`);
        assertSameHits(compact.search(q, 20), want, `${label}: ${q}`);
        assertSameHits(compact.searchDirect(q, 20), want, `${label} (direct): ${q}`);
        assertSameHits(compact.search(q, 5), reference.search(q, 5), `${label} (top 5): ${q}`);
        compared++;
      }
      assert.equal(compact.size, reference.size);
      reference.close();
    };
    compare('built');
    const take = (id: string) => ids.splice(ids.indexOf(id), 1);
    for (let round = 0; round < 10; round++) {
      const leaving = ids.filter(() => random() < 0.05);
      store.transition(leaving, 'delete', { trigger: 'user' });
      leaving.forEach(take);
      if (round % 2 === 1) {
        store.transition(leaving.slice(0, 3), 'restore', { trigger: 'user' });
        ids.push(...leaving.slice(0, 3));
      }
      ids.push(...store.add(gen.records(30), { trigger: 'import' }).map((r) => r.id));
      const edited = ids[Math.floor(random() * ids.length)];
      store.connectionForQueries().prepare('UPDATE records SET question = ? WHERE id = ?').run(`${gen.question()} edited`, edited);
      store.transition([edited], 'delete', { trigger: 'user' });
      take(edited);
      compare(`round ${round}`);
      if (round === 4) {
        compact.close(); // written (compacted) to its file
        compact = open();
        assert.equal(compact.origin, 'loaded');
        compare('reloaded');
      }
    }
    assert.ok(compared >= 25 * 12);
    compact.close();
    store.close();
  });

  it('loads its file (arrays used in place) and catches up; a corrupt, truncated or foreign file is rebuilt and written back', () => {
    const db = path.join(dir, 'm.sqlite');
    let store = MemoryStore.open(db);
    const gen = SyntheticRecords.fromFile(TASKS, 44);
    store.add(gen.records(300), { trigger: 'import' });
    const q = gen.question();
    let index = KeywordIndex.open(store);
    assert.equal(index.origin, 'rebuilt:missing');
    const before = index.search(q, 10);
    index.close();
    const file = index.persistFile!;
    const read = readCompactFile(file, nullLogger);
    assert.equal(read.origin, 'loaded');
    // Written again from what was read: the same bytes (a round trip loses nothing).
    if (read.origin === 'loaded') {
      writeCompactFile(path.join(dir, 'again.bin'), read.seq, CompactPostings.fromState(read.state).state());
      assert.ok(fs.readFileSync(path.join(dir, 'again.bin')).equals(fs.readFileSync(file)));
    }
    const added = store.add(gen.records(5), { trigger: 'import' });
    store.close();
    store = MemoryStore.open(db);
    index = KeywordIndex.open(store);
    assert.equal(index.origin, 'loaded');
    assert.equal(index.size, 305);
    assert.ok(index.search(added[0].question, 5).some((h) => store.idOf(h.rid) === added[0].id));
    index.close();
    const good = fs.readFileSync(file);
    const damage: [string, (b: Buffer) => Buffer][] = [
      ['a flipped byte', (b) => { const c = Buffer.from(b); c[Math.floor(c.length / 2)] ^= 0x40; return c; }],
      ['truncated', (b) => b.subarray(0, b.length - 9)],
      ['another format', () => Buffer.from('{"format":3}\n[]\n{}')],
    ];
    for (const [label, spoil] of damage) {
      fs.writeFileSync(file, spoil(good));
      index = KeywordIndex.open(store);
      assert.equal(index.origin, 'rebuilt:corrupt', label);
      assert.deepEqual(index.search(q, 10).map((h) => h.rid), before.map((h) => h.rid), label);
      index.close();
      const again = KeywordIndex.open(store);
      assert.equal(again.origin, 'loaded', `${label}: written back`);
      again.close();
    }
    store.close();
  });

  it('takes its term cache budget in bytes (13 per cached posting)', () => {
    const store = MemoryStore.open(':memory:');
    store.add(SyntheticRecords.fromFile(TASKS, 45).records(600), { trigger: 'import' });
    const small = KeywordIndex.open(store, { termCacheBytes: 13 * 400 });
    const large = KeywordIndex.open(store);
    while (small.warmStep(50));
    while (large.warmStep(50));
    assert.ok(small.cacheStats.warmedPostings > 0 && small.cacheStats.warmedPostings <= 400, `${small.cacheStats.warmedPostings} postings warmed within 400`);
    assert.ok(large.cacheStats.warmedPostings > 400, `${large.cacheStats.warmedPostings} postings warmed by default`);
    small.close();
    large.close();
    store.close();
  });
});
