import { strict as assert } from 'node:assert';
import { KeywordIndex } from '../../../src/core/memory/keyword/keyword-index';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { sampleRecord } from '../../support/records';

const WORDS = ['aspirin', 'sepsis', 'glucose', 'heart', 'rate', 'intake', 'danazol', 'hemoglobin', 'cost', 'admitted', 'discharged', 'ward', 'icu', 'lab', 'chart', 'output', 'weight', 'diagnosis', 'procedure', 'prescribed'];

function question(n: number): string {
  // Distinct rare terms per record (more terms than MiniSearch vacuums per batch, 1000), so that
  // discarding and adding reshape the term tree between its batches.
  const rare = Array.from({ length: 6 }, (_, k) => `${'abcdef'[k]}x${(n * 131 + k).toString(36)}`).join(' ');
  return `patient ${WORDS[n % WORDS.length]} ${WORDS[(n * 7) % WORDS.length]} term${n.toString(36)} ${rare}`;
}

describe('KeywordIndex under a live memory (discard + add while vacuuming)', () => {
  it('never crashes in MiniSearch’s vacuum and answers like an index built from scratch', async () => {
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown): void => {
      rejections.push(reason);
    };
    process.on('unhandledRejection', onRejection);
    const store = MemoryStore.open(':memory:');
    const index = KeywordIndex.open(store);
    try {
      let next = 0;
      const live: string[] = [];
      const add = (n: number): void => {
        for (let i = 0; i < n; i++, next++) live.push(store.add([sampleRecord({ question: question(next) })], { trigger: 'user' })[0].id);
      };
      add(300);
      index.search('patient aspirin', 4);
      for (let round = 0; round < 300; round++) {
        store.transition(live.splice(0, 3), 'delete', { trigger: 'user' });
        add(3);
        index.search(`patient ${WORDS[round % WORDS.length]} term${(next - 1).toString(36)}`, 4); // catches up: discard + add
        // Let timers run between tasks, as a real stream does (MiniSearch's own vacuum yielded here).
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.deepEqual(rejections.map(String), [], 'no unhandled rejection from the keyword index');
      const fresh = KeywordIndex.open(store, { file: null });
      assert.equal(index.size, live.length);
      for (const q of ['patient aspirin sepsis', `term${(next - 2).toString(36)}`, 'glucose heart rate', 'icu ward chart']) {
        assert.deepEqual(index.search(q, 8).map((h) => h.rid), fresh.search(q, 8).map((h) => h.rid), q);
      }
      fresh.close();
    } finally {
      process.off('unhandledRejection', onRejection);
      index.close();
      store.close();
    }
  });
});
