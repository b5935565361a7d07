import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SyntheticRecords } from '../../../src/core/bench/synthetic-records';
import { DELTA_SUFFIX } from '../../../src/core/memory/keyword/keyword-compact-delta';
import { KeywordIndex, KeywordIndexOptions } from '../../../src/core/memory/keyword/keyword-index';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { Logger, nullLogger } from '../../../src/core/logger';
import { seededRandom } from '../../../src/core/random';
import { assertSameHits } from '../../support/keyword-hits';

const TASKS = path.join(__dirname, '..', '..', '..', 'data', 'ehr', 'ehrsql-mimic3-tasks.jsonl');

describe('compact keyword index: a delta file appended beside the base', function () {
  this.timeout(180_000);
  let dir: string;
  let store: MemoryStore;
  let db: string;
  let gen: SyntheticRecords;
  let ids: string[];
  let queries: string[];
  const open = (o: KeywordIndexOptions = {}) => KeywordIndex.open(store, { logger: nullLogger, persistDebounceMs: 3_600_000, ...o });
  /** Opens the index and says whether it caught up on records from the change log (the delta did not reach the database's state). */
  const openNoting = (): { index: KeywordIndex; caughtUp: boolean } => {
    const lines: string[] = [];
    const logger: Logger = { ...nullLogger, info: (m: string) => void lines.push(m) };
    const index = open({ logger });
    return { index, caughtUp: lines.some((l) => l.includes('is behind')) };
  };
  const file = () => db + '.keywords.bin';
  const delta = () => file() + DELTA_SUFFIX;
  const random = seededRandom(23);

  /** A round of changes: deletes, a restore, adds, and an edited record leaving (its terms unknown) when `edit`. */
  const change = (edit: boolean) => {
    const leaving = ids.filter(() => random() < 0.04);
    store.transition(leaving, 'delete', { trigger: 'user' });
    for (const id of leaving) ids.splice(ids.indexOf(id), 1);
    store.transition(leaving.slice(0, 2), 'restore', { trigger: 'user' });
    ids.push(...leaving.slice(0, 2));
    ids.push(...store.add(gen.records(25), { trigger: 'import' }).map((r) => r.id));
    if (edit) {
      const edited = ids[Math.floor(random() * ids.length)];
      store.connectionForQueries().prepare('UPDATE records SET question = ? WHERE id = ?').run(`${gen.question()} edited`, edited);
      store.transition([edited], 'delete', { trigger: 'user' });
      ids.splice(ids.indexOf(edited), 1);
    }
  };

  /** Every query answered as a MiniSearch engine built afresh answers it. */
  const compareWithReference = (index: KeywordIndex, label: string) => {
    const reference = open({ engine: 'minisearch', file: null });
    for (const q of queries) assertSameHits(index.search(q, 20), reference.searchDirect(q, 20), `${label}: ${q}`);
    assert.equal(index.size, reference.size, `${label}: size`);
    reference.close();
  };

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kw-delta-'));
    db = path.join(dir, 'm.sqlite');
    store = MemoryStore.open(db);
    gen = SyntheticRecords.fromFile(TASKS, 61);
    ids = store.add(gen.records(900), { trigger: 'import' }).map((r) => r.id);
    queries = Array.from({ length: 20 }, () => gen.question());
  });
  afterEach(() => {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('appends at each persist (the base untouched) and reloads to the very same answers, bit for bit', () => {
    let index = open();
    assert.equal(index.origin, 'rebuilt:missing');
    const base = fs.readFileSync(file());
    let sizes: number[] = [];
    for (let round = 0; round < 6; round++) {
      change(false);
      index.search(queries[round], 5); // catches up
      index.flush();
      assert.ok(fs.readFileSync(file()).equals(base), `round ${round}: the base is not rewritten`);
      sizes.push(fs.statSync(delta()).size);
      const live = queries.map((q) => index.search(q, 20));
      const { index: reopened, caughtUp } = openNoting();
      assert.equal(reopened.origin, 'loaded');
      assert.ok(!caughtUp, `round ${round}: the delta brings the base to the database's state`);
      queries.forEach((q, i) => assert.deepEqual(reopened.search(q, 20), live[i], `round ${round}: ${q}`));
      reopened.close();
      compareWithReference(index, `round ${round}`);
    }
    assert.ok(sizes.every((s, i) => i === 0 || s > sizes[i - 1]), `the delta grows: ${sizes.join(', ')}`);
    // An edited record leaving (terms unknown) makes a compaction: the next persist writes a new base, no delta.
    change(true);
    index.search(queries[0], 5);
    index.flush();
    assert.ok(!fs.readFileSync(file()).equals(base), 'a new base');
    assert.ok(!fs.existsSync(delta()), 'no delta beside a new base');
    index.close();
    index = open();
    assert.equal(index.origin, 'loaded');
    compareWithReference(index, 'after the new base');
    index.close();
    sizes = [];
  });

  it('a delta cut anywhere (a crash during an append) or with a flipped byte loads the segments before it, catches up, and appends again', () => {
    const index = open();
    const ends: number[] = [fs.existsSync(delta()) ? fs.statSync(delta()).size : 0];
    for (let round = 0; round < 4; round++) {
      change(false);
      index.search(queries[0], 5);
      index.flush();
      ends.push(fs.statSync(delta()).size);
    }
    index.close();
    const whole = fs.readFileSync(delta());
    const last = ends[ends.length - 1];
    const before = ends[ends.length - 2];
    const spoilt: [string, Buffer, number][] = [
      ['cut inside the last segment', whole.subarray(0, before + Math.floor((last - before) / 2)), before],
      ['cut just after a segment’s length', whole.subarray(0, before + 4), before],
      ['cut inside the first segment', whole.subarray(0, ends[1] - 3), -1],
      ['cut inside the header', whole.subarray(0, 10), -1],
      ['a flipped byte in the third segment', Buffer.from(whole.map((b, i) => (i === ends[2] + 40 ? b ^ 0x10 : b))), ends[2]],
    ];
    for (const [label, bytes, keeps] of spoilt) {
      fs.writeFileSync(delta(), bytes);
      const reopened = open();
      assert.equal(reopened.origin, 'loaded', label);
      compareWithReference(reopened, label);
      if (keeps >= 0) assert.equal(fs.statSync(delta()).size, keeps, `${label}: cut after the last good segment`);
      // Appending again after a cut tail: the chain goes on, the next load takes it.
      change(false);
      reopened.search(queries[1], 5);
      reopened.flush();
      reopened.close();
      const { index: again, caughtUp } = openNoting();
      assert.equal(again.origin, 'loaded', `${label}: reloaded after appending`);
      assert.ok(!caughtUp, `${label}: the segment appended after the cut applies`);
      compareWithReference(again, `${label}: reloaded after appending`);
      again.close();
      fs.writeFileSync(delta(), whole); // the next case spoils the original delta again (its base is unchanged)
      if (!fs.readFileSync(delta()).equals(whole)) assert.fail('the delta was not restored');
    }
  });

  it('a delta of another base is removed; two processes appending in turn never chain onto each other’s state', () => {
    const a = open();
    change(false);
    a.search(queries[0], 5);
    a.flush();
    const old = fs.readFileSync(delta());
    // Process B opens the same files, A appends again: B's next persist finds the delta not as it left it and writes a base.
    const b = open();
    assert.equal(b.origin, 'loaded');
    change(false);
    a.search(queries[0], 5);
    a.flush();
    change(false);
    b.search(queries[0], 5);
    b.flush();
    assert.ok(!fs.existsSync(delta()), 'B wrote a new base (no delta)');
    a.close();
    b.close();
    let reopened = open();
    compareWithReference(reopened, 'after both');
    reopened.close();
    fs.writeFileSync(delta(), old); // a delta of the former base beside the new one
    reopened = open();
    assert.equal(reopened.origin, 'loaded');
    assert.ok(!fs.existsSync(delta()), 'the foreign delta is removed');
    compareWithReference(reopened, 'foreign delta');
    reopened.close();
  });
});
