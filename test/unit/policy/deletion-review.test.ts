import { strict as assert } from 'node:assert';
import { PROPOSALS_SQL, reviewQueries, STALE_PROPOSALS_SQL } from '../../../src/core/memory/sqlite/queries/review';
import { isLargeDeletion, largeDeletionMessage } from '../../../src/core/policy/deletion-review';
import { MemoryManager } from '../../../src/core/policy/memory-manager';
import { DeletionReview, resolveDeletionReview } from '../../../src/core/policy/names';
import { History } from './history-helpers';

/** Four old active records, strict addition, automatic periodic deletion with a 2-task period. */
function setup(review?: DeletionReview): { h: History; manager: MemoryManager; runTask(): ReturnType<MemoryManager['afterTask']> } {
  const h = new History();
  for (const id of ['a', 'b', 'c', 'd']) h.record(id, 0);
  const manager = new MemoryManager(h.store, { addition: 'strict', mode: 'editor', deletion: 'periodic', deletionParams: { period: 2 }, ...(review ? { review } : {}) });
  const runTask = () => manager.afterTask({ taskIndex: manager.tasks.begin('a question'), retrieved: [], evaluation: null, candidate: null });
  return { h, manager, runTask };
}

describe('deletions the user reviews (deletion.review = propose)', () => {
  it('a proposal whose record was retrieved after it is withdrawn (audited), never confirmed on its old evidence', () => {
    const { h, manager, runTask } = setup('propose');
    for (let i = 0; i < 3; i++) runTask();
    const [first, second, third] = reviewQueries(h.store).proposals().map((p) => p.recordId);
    // Retrieved by a task of the agent: withdrawn at that task.
    const t = manager.tasks.begin('another question');
    manager.tasks.logRetrievals(t, [{ recordId: first, rank: 0, inputSimilarity: 0.9 }]);
    const rec = h.store.require(first);
    manager.afterTask({ taskIndex: t, retrieved: [{ recordId: first, code: rec.execution.code, language: rec.execution.language, inputSimilarity: 0.9, shown: true }], evaluation: null, candidate: null });
    assert.ok(!reviewQueries(h.store).proposals().some((p) => p.recordId === first), 'withdrawn at the task that retrieved it');
    const withdraw = h.store.audit({ recordId: first }).find((e) => e.operation === 'withdraw');
    assert.equal(withdraw?.evidence.retrievedAt, t);
    // Retrieved where no task of the agent runs (a tool's search logs the retrieval only): the confirm withdraws it.
    const s2 = manager.tasks.begin('a search from a tool');
    manager.tasks.logRetrievals(s2, [{ recordId: second, rank: 0, inputSimilarity: 0.9 }]);
    const confirmed = manager.confirmProposals([second, third]);
    assert.deepEqual(confirmed.withdrawn, [second]);
    assert.deepEqual(confirmed.deleted, [third]);
    assert.equal(h.store.require(second).status, 'active', 'not deleted on stale evidence');
    assert.equal(h.store.require(first).status, 'active');
    manager.dispose();
    h.close();
  });

  it('the proposals drive the withdrawal (after every task) and the list: each record looked up by rid, never a scan of all records', () => {
    const { h, manager } = setup('propose');
    const db = h.store.connectionForQueries();
    for (const sql of [STALE_PROPOSALS_SQL, PROPOSALS_SQL]) {
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail).join('\n');
      assert.match(plan, /SCAN p\b/, plan);
      assert.match(plan, /SEARCH r USING INTEGER PRIMARY KEY/, plan);
      assert.doesNotMatch(plan, /SCAN r\b/, plan);
    }
    manager.dispose();
    h.close();
  });

  it('under strict + automatic deletion, a rule only proposes: nothing is deleted until confirmed', () => {
    const { h, manager, runTask } = setup('propose');
    for (let i = 0; i < 4; i++) runTask();
    assert.equal(h.store.counts().active, 4, 'no record deleted');
    assert.equal(h.store.counts().deleted, 0);
    const proposals = reviewQueries(h.store).proposals();
    // The memory floor (1) keeps one record out of the proposals.
    assert.equal(proposals.length, 3);
    for (const p of proposals) {
      assert.equal(p.policy, 'periodic');
      assert.equal(p.rule, 'periodic');
      assert.equal(typeof p.evidence.retrievalsInWindow, 'number', 'the evidence the reason sentence is built from');
      assert.match(p.trigger, /^rule:/);
    }
    assert.ok(h.store.audit({ recordId: proposals[0].recordId }).some((e) => e.operation === 'propose'), 'the proposal is audited');
    // Proposing again on the next task adds no duplicate.
    runTask();
    assert.equal(reviewQueries(h.store).proposals().length, 3);
    manager.dispose();
    h.close();
  });

  it('confirm soft-deletes with the rule evidence in the audit; keep exempts the record for one period and is audited', () => {
    const { h, manager, runTask } = setup('propose');
    runTask();
    runTask();
    runTask();
    const [first, second, third] = reviewQueries(h.store).proposals().map((p) => p.recordId);
    const confirmed = manager.confirmProposals([first]);
    assert.deepEqual(confirmed.deleted, [first]);
    assert.equal(h.store.require(first).status, 'deleted');
    const del = h.store.audit({ recordId: first }).find((e) => e.operation === 'delete');
    assert.equal(del?.trigger, 'user');
    assert.equal(del?.evidence.policy, 'periodic');
    assert.match(String(del?.evidence.proposedBy), /^rule:/);

    const taskAtKeep = manager.tasks.currentIndex;
    assert.deepEqual(manager.keepProposals([second]), [second]);
    const keep = h.store.audit({ recordId: second }).find((e) => e.operation === 'keep');
    assert.ok(keep, 'the keep is audited');
    assert.equal(keep.evidence.untilTask, taskAtKeep + 2);
    assert.deepEqual(reviewQueries(h.store).proposals().map((p) => p.recordId), [third], 'kept and confirmed records leave the list');

    // Within the period the kept record is not proposed again; after it, it is.
    runTask();
    assert.ok(!reviewQueries(h.store).proposals().some((p) => p.recordId === second));
    runTask();
    runTask();
    assert.ok(reviewQueries(h.store).proposals().some((p) => p.recordId === second), 'proposed again once its period is over');
    assert.equal(h.store.require(second).status, 'active');
    manager.dispose();
    h.close();
  });

  it('immediate (the default of the manager, as the bench uses it) deletes at once, as before', () => {
    const { h, manager, runTask } = setup();
    const deleted = [runTask(), runTask(), runTask()].flatMap((r) => r.deletions.flatMap((d) => d.recordIds));
    assert.equal(deleted.length, 3);
    assert.equal(h.store.counts().deleted, 3);
    assert.equal(reviewQueries(h.store).proposals().length, 0);
    manager.dispose();
    h.close();
  });

  it('auto means propose under strict addition, immediate otherwise', () => {
    assert.equal(resolveDeletionReview('auto', 'strict'), 'propose');
    assert.equal(resolveDeletionReview('auto', 'all'), 'immediate');
    assert.equal(resolveDeletionReview('immediate', 'strict'), 'immediate');
    assert.equal(resolveDeletionReview('propose', 'coarse'), 'propose');
  });

  it('a deletion of more than 25 % of the active memory is large, and the question names the count', () => {
    assert.equal(isLargeDeletion(25, 100), false);
    assert.equal(isLargeDeletion(26, 100), true);
    assert.equal(isLargeDeletion(1, 3), true);
    assert.equal(isLargeDeletion(0, 0), false);
    assert.match(largeDeletionMessage(89, 101), /Delete 89 of 101 active record\(s\) \(88 % of the memory\)/);
  });

  it('under immediate review in the app, an automatic rule that would delete more than 25 % proposes instead; a small one deletes', () => {
    const h = new History();
    for (const id of ['a', 'b', 'c', 'd']) h.record(id, 0);
    const manager = new MemoryManager(h.store, { addition: 'all', mode: 'editor', deletion: 'periodic', deletionParams: { period: 2 }, review: 'immediate', proposeLargeDeletions: true });
    const runTask = () => manager.afterTask({ taskIndex: manager.tasks.begin('a question'), retrieved: [], evaluation: null, candidate: null });
    let large = false;
    for (let i = 0; i < 4; i++) large = runTask().deletions.some((d) => d.largeProposed === true) || large;
    assert.ok(large, 'the sweep says it proposed because the deletion was large');
    assert.equal(h.store.counts().active, 4, 'nothing deleted: 3 of 4 is more than 25 %');
    assert.equal(reviewQueries(h.store).proposals().length, 3, 'the candidates wait for the user');
    manager.dispose();
    h.close();

    // 1 candidate of 10 active records is not large: deleted at once, as immediate review says.
    const small = new History();
    for (let i = 0; i < 9; i++) small.record(`fresh${i}`, 5);
    small.record('old', 0);
    const m2 = new MemoryManager(small.store, { addition: 'all', mode: 'editor', deletion: 'periodic', deletionParams: { period: 2, protectSeeds: false }, review: 'immediate', proposeLargeDeletions: true });
    const deleted: string[] = [];
    for (let i = 0; i < 6; i++) deleted.push(...m2.afterTask({ taskIndex: m2.tasks.begin('q'), retrieved: [], evaluation: null, candidate: null }).deletions.flatMap((d) => d.recordIds));
    assert.ok(deleted.length > 0 && 4 * deleted.length <= 10, `small sweeps delete: ${JSON.stringify(deleted)}`);
    m2.dispose();
    small.close();
  });
});
