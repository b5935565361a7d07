import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { deletionQueries } from '../../../src/core/memory/sqlite/queries/deletion-candidates';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { deleteWithinFloor } from '../../../src/core/policy/deletion/floor';
import { sampleRecord } from '../../support/records';

describe('bounded active count (the floor decides without counting the whole memory)', () => {
  it('countActiveUpTo is min(active, cap) and ignores pending and deleted records', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'count-active-'));
    const store = MemoryStore.open(path.join(dir, 'm.sqlite'));
    try {
      store.add(Array.from({ length: 7 }, (_, i) => sampleRecord({ id: `a${i}`, question: `q${i}` })), { trigger: 'user' });
      store.add([sampleRecord({ id: 'p', question: 'pending one', status: 'pending' })], { trigger: 'user' });
      store.transition(['a0', 'a1'], 'delete', { trigger: 'user' });
      const q = deletionQueries(store);
      assert.equal(q.countActive(), 5);
      assert.deepEqual([0, 1, 4, 5, 6, 100].map((cap) => q.countActiveUpTo(cap)), [0, 1, 4, 5, 5, 5]);
      // 5 active, floor 3, asked to delete 4 active + the pending one: 2 active go, 2 are kept, the pending one goes.
      const r = deleteWithinFloor(store, ['a2', 'a3', 'a4', 'a5', 'p'], { trigger: 'user', reason: 'test', minActiveRecords: 3, inactive: 'skip' });
      assert.deepEqual(r.deleted, ['a2', 'a3']);
      assert.deepEqual(r.floorKept, ['a4', 'a5']);
      assert.deepEqual(r.skipped, ['p']);
      assert.equal(r.activeBefore, 5);
      assert.equal(q.countActive(), 3);
    } finally {
      store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
