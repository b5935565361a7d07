import { strict as assert } from 'node:assert';
import { KeywordIndex } from '../../../src/core/memory/keyword/keyword-index';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { sampleRecord } from '../../support/records';

const WORDS = ['aspirin', 'sepsis', 'glucose', 'heart', 'rate', 'intake', 'hemoglobin', 'cost', 'admitted', 'icu', 'lab', 'chart', 'weight', 'prescribed'];

function question(n: number): string {
  return `how many patient ${WORDS[n % WORDS.length]} ${WORDS[(n * 5) % WORDS.length]} ${WORDS[(n * 3) % WORDS.length]} term${n % 17}`;
}

const QUERIES = ['patient aspirin sepsis', 'count select from t3', 'sql count t1 glucose', 'glucose heart rate term3', 'icu lab chart weight', 'how many prescribed cost term11', 'admitted hemoglobin intake'];

/**
 * A record that leaves the keyword index with its indexed text unchanged is removed at once (MiniSearch
 * `remove`) instead of discarded and vacuumed (a walk of every term). The reference is an index on the
 * same store that discards and vacuums (`removeLeaving: false`): every search must give the same records
 * with the same scores, bit for bit, through MiniSearch's own search and through the scorer.
 */
describe('KeywordIndex: a leaving record is removed at once, leaving the index as discard + vacuum does', () => {
  it('answers with the same records and scores as the discarding index, through deletions, a restore and an edited record', async () => {
    const store = MemoryStore.open(':memory:');
    // MiniSearch's engine (removing vs discarding is its own; the compact engine is compared with it in keyword-compact.test.ts).
    const fast = KeywordIndex.open(store, { file: null, engine: 'minisearch' });
    const reference = KeywordIndex.open(store, { file: null, engine: 'minisearch', removeLeaving: false });
    try {
      const live: string[] = [];
      let next = 0;
      const add = (n: number): void => {
        for (let i = 0; i < n; i++, next++) live.push(store.add([sampleRecord({ question: question(next), code: `answer = sql("select count(*) from t${next % 5}")` })], { trigger: 'user' })[0].id);
      };
      let compared = 0;
      const same = async (label: string): Promise<void> => {
        // The reference's vacuum settles over microtasks (KeywordIndex.vacuum): let it, as a live stream does between tasks.
        reference.search('patient', 1);
        await new Promise((resolve) => setImmediate(resolve));
        for (const q of QUERIES) {
          const direct = reference.searchDirect(q, 1000);
          assert.ok(direct.length > 0, `${label}: ${q} finds records`);
          assert.deepEqual(fast.searchDirect(q, 1000), direct, `${label}: ${q} (MiniSearch's own search)`);
          assert.deepEqual(fast.search(q, 8), reference.search(q, 8), `${label}: ${q} (the scorer)`);
          compared += direct.length;
        }
      };
      add(60);
      await same('built');
      for (let round = 0; round < 20; round++) {
        store.transition(live.splice(round % 7, 2), 'delete', { trigger: 'user' });
        add(2);
        await same(`round ${round}`);
      }
      assert.equal(fast.size, live.length);
      // A deleted record restored comes back (at the end of the document order, in both).
      const [restored] = store.list({ status: 'deleted' }).items;
      store.transition([restored.id], 'restore', { trigger: 'user' });
      live.push(restored.id);
      await same('restored');
      // An edited record (the database's text no longer the indexed one) takes the discard path in both.
      const edited = live[3];
      store.connectionForQueries().prepare('UPDATE records SET question = ? WHERE id = ?').run('an edited question about aspirin and sepsis', edited);
      await same('edited');
      store.transition([edited], 'delete', { trigger: 'user' });
      await same('edited, then deleted');
      assert.ok(compared > 1000, `${compared} hits compared`);
      // 41 deletions left with their indexed text (removed at once); the edit left with another text (discarded, then
      // re-added with the new one, which its deletion then removed). The reference discarded all 42.
      assert.deepEqual(fast.left, { removed: 41, discarded: 1 });
      assert.deepEqual(reference.left, { removed: 0, discarded: 42 });
    } finally {
      fast.close();
      reference.close();
      store.close();
    }
  });
});
