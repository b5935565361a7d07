/** Deletion with a dry-run preview: plan, then apply (tests skip the QuickPick and the modal). */
import * as assert from 'node:assert/strict';
import type { AgentMemoryApp, DeletionPlan } from '../../src/core/app/types';
import type { AgentMemoryExtensionApi } from '../../src/extension';
import type { DeletionOutcome } from '../../src/vscode/commands/policy-commands';
import type { RecordNode } from '../../src/vscode/tree/tree-items';
import { programKind } from '../../src/core/policy/deletion/kind-guard';
import { freshMemory, run, setSetting, waitFor } from './helpers';

describe('deletion with preview', function () {
  this.timeout(120_000);
  let api: AgentMemoryExtensionApi;
  let app: AgentMemoryApp;

  before(async () => {
    ({ api, app } = await freshMemory('deletion'));
    await setSetting(api, 'addition.policy', 'fixed');
    await setSetting(api, 'deletion.period', 2);
    await run('agentMemory.seedDemoMemory', 20);
    // Three tasks: the records they retrieve survive a periodic rule with a 2-task window.
    for (const q of ['What is the intake method of aspirin?', 'How many patients were admitted in 2104?', 'What is the intake method of heparin?']) {
      await run('agentMemory.runAgent', q);
    }
  });
  after(async () => {
    await setSetting(api, 'deletion.period', 200);
    await setSetting(api, 'addition.policy', 'strict');
  });

  it('previews periodic candidates with their rule and evidence, then deletes exactly the chosen one', async () => {
    const plan: DeletionPlan = app.planDeletion('periodic');
    assert.ok(plan.candidates.length >= 1, 'some seed records were not retrieved in the window');
    for (const c of plan.candidates) {
      assert.ok(c.rule.length > 0);
      assert.ok(Object.keys(c.evidence).length > 0);
      assert.equal(app.get(c.recordId)?.status, 'active', 'a dry run changes nothing');
    }
    const chosen = plan.candidates[0].recordId;
    const outcome = await run<DeletionOutcome>('agentMemory.applyPeriodicDeletion', { recordIds: [chosen], skipConfirm: true });
    assert.equal(outcome.deleted, 1);
    assert.equal(app.get(chosen)?.status, 'deleted');
    for (const c of plan.candidates.slice(1)) assert.equal(app.get(c.recordId)?.status, 'active', 'unticked candidates stay');
    const audit = app.audit(chosen).find((e) => e.operation === 'delete');
    assert.ok(audit, 'the deletion is audited');
    assert.ok(JSON.stringify(audit.evidence).includes(plan.candidates[0].rule));
  });

  it('with the periodic guard (last-of-kind) the preview keeps the last record of each program kind and says so', async () => {
    const plain = app.planDeletion('periodic');
    await setSetting(api, 'deletion.periodicGuard', 'last-of-kind');
    try {
      await waitFor(() => (app.planDeletion('periodic') as DeletionPlan & { params?: Record<string, unknown> }).params?.periodicGuard === 'last-of-kind', 'the app to apply periodicGuard = last-of-kind');
      const guarded = app.planDeletion('periodic');
      const guard = guarded.guard;
      assert.ok(guard && guard.kept.length >= 1, 'the seed records are of different kinds: the guard keeps some');
      assert.match(guard.sentence, /agentMemory\.deletion\.periodicGuard = last-of-kind/);
      const plainIds = new Set(plain.candidates.map((c) => c.recordId));
      for (const c of [...guarded.candidates, ...guard.kept]) assert.ok(plainIds.has(c.recordId), 'the guard only keeps records back, it adds none');
      if (!plain.floor) assert.equal(guarded.candidates.length + guard.kept.length, plain.candidates.length);
      // Each kept record is the last active one of its kind once the guarded plan is applied.
      const leaving = new Set(guarded.candidates.map((c) => c.recordId));
      const staying = app.list({ status: 'active', limit: 1000 }).items.filter((r) => !leaving.has(r.id));
      for (const k of guard.kept) {
        const record = app.get(k.recordId)!;
        const kind = programKind(record.execution.code, record.execution.language);
        assert.deepEqual(staying.filter((r) => programKind(r.execution.code, r.execution.language) === kind).map((r) => r.id), [k.recordId]);
      }
    } finally {
      await setSetting(api, 'deletion.periodicGuard', 'none');
      await waitFor(() => (app.planDeletion('periodic') as DeletionPlan & { params?: Record<string, unknown> }).params?.periodicGuard === 'none', 'the app to apply periodicGuard = none');
    }
  });

  it('applies combined deletion to every candidate and the records move to Deleted in the tree', async () => {
    const plan = app.planDeletion('combined');
    assert.ok(plan.candidates.length >= 1);
    const outcome = await run<DeletionOutcome>('agentMemory.applyDeletion', 'combined', { skipConfirm: true });
    assert.equal(outcome.deleted, plan.candidates.length);
    const deletedInTree = ((await api.container.tree.getChildren({ kind: 'group', status: 'deleted' })) as RecordNode[]).filter((n) => n.kind === 'record').map((n) => n.record.id);
    for (const c of plan.candidates) assert.ok(deletedInTree.includes(c.recordId), `${c.recordId} is listed under Deleted`);
    assert.equal(app.planDeletion('combined').candidates.length, 0, 'nothing left to delete right away');
  });

  it('restores records from the deletion', async () => {
    const [deleted] = app.list({ status: 'deleted', limit: 1 }).items;
    await run('agentMemory.restore', deleted.id);
    assert.equal(app.get(deleted.id)?.status, 'active');
  });

  it('the Delete command respects the memory floor: it deletes down to minActiveRecords, keeps the rest, and only the deleted ones can be undone', async () => {
    const active = app.list({ status: 'active', sort: 'recency', limit: 1000 }).items.map((r) => r.id);
    assert.ok(active.length >= 3, `active records: ${active.length}`);
    // A floor one below the current size: of three chosen records, exactly the first may go.
    await setFloor(active.length - 1);
    // Three of a small memory is more than 25 % of it: the modal asks again; answer it with its Delete button.
    const originalModal = api.container.prompts.modal;
    api.container.prompts.modal = (_message, _detail, buttons) => Promise.resolve(buttons[buttons.length - 1]);
    try {
      const deleted = await run<string[]>('agentMemory.deleteRecords', active.slice(0, 3));
      assert.deepEqual(deleted, [active[0]]);
      assert.equal(app.get(active[0])?.status, 'deleted');
      assert.equal(app.get(active[1])?.status, 'active', 'kept by the floor');
      assert.equal(app.get(active[2])?.status, 'active', 'kept by the floor');
      assert.equal(app.counts().active, active.length - 1);
      // At the floor, a second delete changes nothing.
      assert.deepEqual(await run<string[]>('agentMemory.deleteRecords', [active[1]]), []);
      assert.equal(app.get(active[1])?.status, 'active');
      await run('agentMemory.undo');
      assert.equal(app.get(active[0])?.status, 'active', 'the undo restores the one record that was deleted');
    } finally {
      api.container.prompts.modal = originalModal;
      await setFloor(1);
    }
  });

  /**
   * Sets agentMemory.deletion.minActiveRecords and waits until the app applies it (the host
   * configures the app after an async key read, later than setSetting returns): a dry run
   * (no change) reports the floor its memory manager uses.
   */
  async function setFloor(n: number): Promise<void> {
    await setSetting(api, 'deletion.minActiveRecords', n);
    await waitFor(() => (app.planDeletion('periodic') as DeletionPlan & { params?: Record<string, unknown> }).params?.minActiveRecords === n, `the app to apply minActiveRecords = ${n}`);
  }
});
