/** Approve / reject (tree multi-select, ids, CodeLens), restore, purge, status bar. */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { AgentMemoryApp, AgentTaskResult } from '../../src/core/app/types';
import type { AgentMemoryExtensionApi } from '../../src/extension';
import type { RecordNode } from '../../src/vscode/tree/tree-items';
import { closeAllEditors, freshMemory, run, setSetting, waitFor } from './helpers';

describe('approve and reject', function () {
  this.timeout(120_000);
  let api: AgentMemoryExtensionApi;
  let app: AgentMemoryApp;

  const pendingNodes = async () => ((await api.container.tree.getChildren({ kind: 'group', status: 'pending' })) as RecordNode[]).filter((n) => n.kind === 'record');

  before(async () => {
    ({ api, app } = await freshMemory('approval'));
    await setSetting(api, 'addition.policy', 'strict');
    await run('agentMemory.seedDemoMemory', 5);
  });
  after(closeAllEditors);

  it('approves several pending records selected in the tree (item, items[])', async () => {
    const a = await run<AgentTaskResult>('agentMemory.runAgent', 'How many patients were admitted in 2104?');
    const b = await run<AgentTaskResult>('agentMemory.runAgent', 'What is the intake method of aspirin?');
    const nodes = await pendingNodes();
    assert.deepEqual(new Set(nodes.map((n) => n.record.id)), new Set([a.addition.recordId, b.addition.recordId]));
    const activeBefore = app.counts().active;

    const approved = await run<string[]>('agentMemory.approve', nodes[0], nodes);
    assert.equal(approved.length, 2);
    assert.equal(app.get(a.addition.recordId!)?.status, 'active');
    assert.equal(app.get(b.addition.recordId!)?.status, 'active');
    assert.equal(app.counts().active, activeBefore + 2);
    assert.equal((await pendingNodes()).length, 0);
    const approvals = app.audit(a.addition.recordId!).filter((e) => e.operation === 'approve');
    assert.equal(approvals.length, 1);
    assert.equal(approvals[0].trigger, 'user');
  });

  it('updates the status bar from the change event', async () => {
    const c = app.counts();
    await waitFor(() => api.container.statusBar.text === `$(database) ${c.active} · $(clock) ${c.pending} pending`, `status bar "${api.container.statusBar.text}"`);
  });

  it('offers Approve / Reject as a CodeLens above the code of a pending result', async () => {
    const result = await run<AgentTaskResult>('agentMemory.runAgent', 'What is the intake method of heparin?');
    const doc = vscode.window.activeTextEditor?.document;
    assert.ok(doc && doc.uri.scheme === 'agent-memory', 'the result document is shown');
    assert.ok(doc.getText().includes(result.code));
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri);
    const commands = lenses.map((l) => l.command?.command);
    assert.deepEqual(commands, ['agentMemory.approve', 'agentMemory.reject']);
    const codeLine = doc.getText().split('\n').findIndex((l) => l === result.code.split('\n')[0]);
    assert.equal(lenses[0].range.start.line, codeLine, 'the lens sits above the generated code');

    await vscode.commands.executeCommand(lenses[1].command!.command, ...(lenses[1].command!.arguments ?? []));
    assert.equal(app.get(result.addition.recordId!)?.status, 'deleted');
    const after = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri);
    assert.equal(after.length, 0, 'no lens once the record is no longer pending');
  });

  it('restores a rejected record to pending, then purges a deleted one for good', async () => {
    const rejected = app.list({ status: 'deleted' }).items[0];
    assert.ok(rejected);
    await run('agentMemory.restore', [rejected.id]);
    assert.equal(app.get(rejected.id)?.status, 'pending');
    await run('agentMemory.reject', rejected.id);
    await run('agentMemory.purge', [rejected.id], { skipConfirm: true });
    assert.equal(app.get(rejected.id), undefined);
    assert.ok(app.audit(rejected.id).some((e) => e.operation === 'purge'));
  });

  it('refuses to approve a record that is not pending, changing nothing', async () => {
    const active = app.list({ status: 'active', limit: 1 }).items[0];
    const result = await vscode.commands.executeCommand('agentMemory.approve', [active.id]);
    assert.equal(result, undefined);
    assert.equal(app.get(active.id)?.status, 'active');
  });
});
