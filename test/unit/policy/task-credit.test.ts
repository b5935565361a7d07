import { strict as assert } from 'node:assert';
import { MemoryManager } from '../../../src/core/policy/memory-manager';
import type { TaskCredit } from '../../../src/core/policy/memory-manager-types';
import type { Evaluation } from '../../../src/core/policy/utility';
import { History } from './history-helpers';

const gt = (utility: number): Evaluation => ({ utility, evaluator: 'strict:ground-truth', reason: 'test' });

describe("a task's credit chosen by the caller (the memory tools): never all k unless asked", () => {
  let h: History;
  let manager: MemoryManager;
  const codes: Record<string, string> = { r1: 'select a', r2: 'select b', r3: 'select c' };
  beforeEach(() => {
    h = new History();
    for (const id of ['r1', 'r2', 'r3']) h.record(id, 0);
    // The manager's own attribution is the paper's `shown` (every shown record takes Φ): the agent loop's default.
    manager = new MemoryManager(h.store, { addition: 'fixed', codeSimilarity: (reference, candidate) => (reference === candidate ? 0.9 : 0.1) });
  });
  afterEach(() => {
    manager.dispose();
    h.close();
  });

  const task = (finalCode: string | null, credit?: TaskCredit) => {
    const t = h.tasks.begin('q');
    h.tasks.logRetrievals(t, ['r1', 'r2', 'r3'].map((recordId, rank) => ({ recordId, rank, inputSimilarity: 0.5 })));
    const retrieved = ['r1', 'r2', 'r3'].map((recordId) => ({ recordId, inputSimilarity: 0.5, shown: true, code: codes[recordId], language: 'python' as const }));
    return manager.afterTask({ taskIndex: t, retrieved, evaluation: gt(1), candidate: null, finalCode, language: 'python', ...(credit ? { credit } : {}) });
  };
  const evaluated = () => ['r1', 'r2', 'r3'].map((id) => h.store.require(id).stats.evaluatedCount);

  it('without a credit the manager\'s attribution holds (the agent loop: every shown record)', () => {
    assert.deepEqual(task('select b').attribution.credited, ['r1', 'r2', 'r3']);
    assert.deepEqual(evaluated(), [1, 1, 1]);
  });

  it('used: exactly the named records take Φ; [] credits none', () => {
    assert.deepEqual(task('select a', { used: ['r3'] }).attribution, { attribution: 'followed', shown: ['r1', 'r2', 'r3'], credited: ['r3'], shownNotFollowed: ['r1', 'r2'] });
    assert.deepEqual(task('select a', { used: [] }).attribution.credited, []);
    assert.deepEqual(evaluated(), [0, 0, 1]);
  });

  it("followed: the records the final code follows (code similarity ≥ the threshold); without final code, none", () => {
    assert.deepEqual(task('select b', 'followed').attribution.credited, ['r2']);
    assert.deepEqual(task(null, 'followed').attribution.credited, []);
    assert.deepEqual(evaluated(), [0, 1, 0]);
    assert.deepEqual(h.tasks.retrievalsOf('r2').map((r) => [r.followed, r.utility]), [[false, null], [true, 1]]);
  });
});
