/**
 * Deletions the user reviews, in the real extension host: under strict addition with
 * automatic deletion, rules only propose (nothing is deleted until confirmed), the
 * explorer lists the proposals with their reasons, Keep exempts one (audited), and a
 * confirmation of more than 25 % of the active memory asks again with the count, its
 * Enter-key default (the first button) keeping the records. A modal cannot be clicked
 * from the extension host: the Container's Prompts object records the question and answers it.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { AgentMemoryApp, AgentTaskResult } from '../../src/core/app/types';
import type { AgentMemoryExtensionApi } from '../../src/extension';
import { freshMemory, run, setSetting } from './helpers';

describe('proposed deletions (deletion.review = propose under strict)', function () {
  this.timeout(180_000);
  let api: AgentMemoryExtensionApi;
  let app: AgentMemoryApp;
  const asked: { message: string; buttons: string[] }[] = [];
  let answer: (buttons: string[]) => string | undefined = () => undefined;
  let originalModal: AgentMemoryExtensionApi['container']['prompts']['modal'];

  before(async () => {
    ({ api, app } = await freshMemory('review'));
    await setSetting(api, 'addition.policy', 'strict');
    await setSetting(api, 'deletion.period', 2);
    await setSetting(api, 'deletion.automatic', 'periodic');
    await run('agentMemory.seedDemoMemory', 20);
    for (const q of ['What is the intake method of aspirin?', 'How many patients were admitted in 2104?', 'What is the intake method of heparin?']) {
      await run('agentMemory.runAgent', q);
    }
    originalModal = api.container.prompts.modal;
    api.container.prompts.modal = (message, _detail, buttons) => {
      asked.push({ message, buttons });
      return Promise.resolve(answer(buttons));
    };
  });
  after(async () => {
    api.container.prompts.modal = originalModal;
    await setSetting(api, 'deletion.automatic', 'none');
    await setSetting(api, 'deletion.period', 200);
  });

  it('nothing is deleted until confirmed; the explorer lists each proposal with its reason', async () => {
    assert.equal(app.counts().deleted, 0, 'automatic deletion deleted nothing');
    const proposals = app.proposedDeletions();
    assert.ok(proposals.length > 0, 'the periodic rule proposed records');
    const root = await api.container.tree.getChildren();
    assert.equal(root[0].kind, 'proposals', 'the Proposed deletions group comes first');
    const children = (await api.container.tree.getChildren(root[0]));
    assert.equal(children.length, proposals.length);
    const item = api.container.tree.getTreeItem(children[0]);
    assert.equal(item.contextValue, 'memory:proposal');
    // MarkdownString.appendText writes spaces as &nbsp;.
    const tooltip = String((item.tooltip as { value?: string }).value ?? item.tooltip).replace(/&nbsp;/g, ' ');
    assert.match(tooltip, /Proposed by the periodic rule at task \d+: Retrieved \d+ times? in /);
    // The explorer's text filter applies to the proposals too (matched on the question).
    const word = proposals[0].question.split(/\s+/).find((w) => w.length > 4)!;
    api.container.tree.setFilter({ text: word.toUpperCase() });
    try {
      const filtered = await api.container.tree.getChildren((await api.container.tree.getChildren())[0]);
      assert.equal(filtered.length, proposals.filter((p) => p.question.toLowerCase().includes(word.toLowerCase())).length);
      api.container.tree.setFilter({ text: 'zz-no-question-has-this-zz' });
      assert.ok(!(await api.container.tree.getChildren()).some((n) => n.kind === 'proposals'), 'no match: no Proposed deletions group');
    } finally {
      api.container.tree.setFilter({});
    }
  });

  it('Keep exempts one record and the audit records the choice', async () => {
    const [first] = app.proposedDeletions();
    const kept = await run<string[]>('agentMemory.keepRecord', first.recordId);
    assert.deepEqual(kept, [first.recordId]);
    assert.ok(!app.proposedDeletions().some((p) => p.recordId === first.recordId));
    assert.ok(app.audit(first.recordId).some((e) => e.operation === 'keep'), 'the keep is audited');
    assert.equal(app.get(first.recordId)?.status, 'active');
  });

  it('confirming more than 25 % asks again with the count; Enter (the first button) keeps them; Delete deletes them', async () => {
    const ids = app.proposedDeletions().map((p) => p.recordId);
    const active = app.counts().active;
    assert.ok(ids.length * 4 > active, `a large deletion: ${ids.length} of ${active}`);
    answer = (buttons) => buttons[0];
    // Kept: the command ends as cancelled (returns nothing), so it is called directly, not through run().
    await vscode.commands.executeCommand('agentMemory.confirmAllDeletions');
    assert.equal(asked.length, 1, 'asked once');
    assert.match(asked[0].message, new RegExp(`Delete ${ids.length} of ${active} active record`));
    assert.equal(asked[0].buttons[0], "Don't Delete", 'the Enter-key default only cancels, and is not named like Keep (which exempts)');
    assert.equal(app.counts().deleted, 0, 'Enter deleted nothing');
    assert.ok(ids.every((id) => !app.audit(id).some((e) => e.operation === 'keep')), 'and exempted nothing');
    assert.deepEqual(app.proposedDeletions().map((p) => p.recordId).sort(), [...ids].sort(), 'the proposals stand');

    answer = (buttons) => buttons.find((b) => b.startsWith('Delete'));
    const deleted = await run<string[]>('agentMemory.confirmAllDeletions');
    assert.equal(deleted.length, ids.length);
    for (const id of ids) assert.equal(app.get(id)?.status, 'deleted');
    assert.ok(app.audit(ids[0]).some((e) => e.operation === 'delete' && e.evidence.policy === 'periodic'), 'deleted with the rule evidence');
  });
});

describe('automatic deletion under review = immediate: a sweep of more than 25 % is proposed, never deleted on its own', function () {
  this.timeout(180_000);
  let api: AgentMemoryExtensionApi;
  let app: AgentMemoryApp;

  before(async () => {
    ({ api, app } = await freshMemory('review-immediate'));
    await setSetting(api, 'addition.policy', 'all');
    await setSetting(api, 'deletion.review', 'immediate');
    await setSetting(api, 'deletion.period', 2);
    await setSetting(api, 'deletion.automatic', 'periodic');
    await run('agentMemory.seedDemoMemory', 20);
  });
  after(async () => {
    await setSetting(api, 'deletion.automatic', 'none');
    await setSetting(api, 'deletion.period', 200);
    await setSetting(api, 'deletion.review', 'auto');
  });

  it('the seeds (none retrieved in the window) would all go: the task result says proposed (large), nothing is deleted', async () => {
    const active = app.counts().active;
    const results: AgentTaskResult[] = [];
    for (const q of ['What is the intake method of aspirin?', 'How many patients were admitted in 2104?', 'What is the intake method of heparin?']) {
      results.push(await run('agentMemory.runAgent', q));
    }
    const large = results.flatMap((r) => r.deletions).filter((d) => d.large === true);
    assert.ok(large.length > 0, `a large sweep was proposed instead: ${JSON.stringify(results.map((r) => r.deletions))}`);
    assert.ok(large.every((d) => d.recordIds.length === 0), 'a large sweep deletes none');
    assert.ok((large[0].proposed?.length ?? 0) * 4 > active, `the first large sweep proposed more than 25 % of ${active}: ${large[0].proposed?.length}`);
    assert.equal(app.counts().deleted, 0, 'nothing deleted on its own');
    assert.ok(app.proposedDeletions().length * 4 > active, 'the candidates wait under Proposed deletions');
    assert.equal((await api.container.tree.getChildren())[0].kind, 'proposals');
  });
});
