/**
 * Issue 12 in a real extension host: ran vs correct in streams, strict addition in editor
 * streams, undo, the Filter button's argument, empty-group hints and the view message,
 * the readable diff, Test Connection on a refused port, the model status item.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ConnectionResult } from '../../src/core/agent/model/connection-test';
import type { AgentMemoryApp, AgentTaskResult } from '../../src/core/app/types';
import type { AgentMemoryExtensionApi } from '../../src/extension';
import type { MemoryNode, RecordNode } from '../../src/vscode/tree/tree-items';
import { closeAllEditors, freshMemory, run, setSetting, waitFor } from './helpers';

describe('issue 12: honest outcomes, undo, filter, connection test', function () {
  this.timeout(180_000);
  let api: AgentMemoryExtensionApi;
  let app: AgentMemoryApp;
  const group = async (status: 'pending' | 'active' | 'deleted') => (await api.container.tree.getChildren({ kind: 'group', status }));
  const records = (nodes: MemoryNode[]) => nodes.filter((n): n is RecordNode => n.kind === 'record');
  const demoFile = () => path.join(api.container.demoDataDir, 'ehrsql-mimic3-tasks.jsonl');

  before(async () => {
    ({ api, app } = await freshMemory('ux'));
    await setSetting(api, 'addition.policy', 'strict');
    await run<number>('agentMemory.seedDemoMemory', 20);
  });
  after(async () => {
    await closeAllEditors();
    await setSetting(api, 'model.baseUrl', '');
    await setSetting(api, 'model.name', '');
  });

  it('an editor stream under strict addition checks each answer against gold but leaves the records pending', async () => {
    const pendingBefore = app.counts().pending;
    const results = await run<AgentTaskResult[]>('agentMemory.runTaskStream', { file: demoFile(), limit: 3 });
    assert.equal(results.length, 3);
    for (const r of results) {
      assert.ok(r.verdict.source === 'gold', `gold verdict: ${JSON.stringify(r.verdict)}`);
      assert.ok(['correct', 'wrong'].includes(r.verdict.kind));
      if (r.addition.added) assert.equal(r.addition.status, 'pending', r.addition.reason);
    }
    assert.equal(app.counts().pending, pendingBefore + results.filter((r) => r.addition.added).length);
  });

  it('bench mode (approveBy gold) adds only correct answers, "approved by gold answer"', async () => {
    // Questions the first stream did not run (the same question again would merge into its pending record).
    const items = fs.readFileSync(demoFile(), 'utf8').split('\n').filter((l) => l.includes('"nonempty"')).slice(3, 5).map((l) => {
      const t = JSON.parse(l) as { question: string; answer: unknown };
      return { question: t.question, answer: t.answer };
    });
    const results = await run<AgentTaskResult[]>('agentMemory.runTaskStream', { items, approveBy: 'gold' });
    for (const r of results) {
      assert.equal(r.addition.status, r.verdict.kind === 'correct' ? 'active' : null, `${r.verdict.kind}: ${r.addition.reason}`);
      assert.match(r.addition.reason, /per strict:ground-truth/);
    }
  });

  it('undo reverts the last approval, rejection, deletion and restore', async () => {
    const [a, b] = app.list({ status: 'pending' }).items.map((r) => r.id);
    assert.ok(a && b, 'two pending records from the stream');
    // The task's Φ is the gold answer's from the start (it credited the demonstrations at once); the
    // human decision is logged beside it and taken back with the undo, the gold Φ stays.
    const taskOf = (id: string) => app.task(app.get(id)?.metadata.taskIndex as number);
    const [goldA, goldB] = [taskOf(a)?.utility, taskOf(b)?.utility];
    assert.ok((goldA === 0 || goldA === 1) && (goldB === 0 || goldB === 1), `the gold answers gave Φ ${goldA}, ${goldB}`);
    await run('agentMemory.approve', [a]);
    assert.equal(app.get(a)?.status, 'active');
    assert.deepEqual([taskOf(a)?.utility, taskOf(a)?.log.decision], [goldA, 'approved']);
    await run('agentMemory.undo');
    assert.equal(app.get(a)?.status, 'pending', 'approval undone');
    assert.deepEqual([taskOf(a)?.utility, taskOf(a)?.log.decision], [goldA, undefined], 'the approval is taken back, the gold Φ stays');
    await run('agentMemory.reject', [b]);
    assert.equal(app.get(b)?.status, 'deleted');
    assert.deepEqual([taskOf(b)?.utility, taskOf(b)?.log.decision], [goldB, 'rejected']);
    await run('agentMemory.undo');
    assert.equal(app.get(b)?.status, 'pending', 'rejection undone');
    assert.deepEqual([taskOf(b)?.utility, taskOf(b)?.log.decision], [goldB, undefined], 'the rejection is taken back, the gold Φ stays');
    const active = app.list({ status: 'active', limit: 1 }).items[0].id;
    await run('agentMemory.deleteRecords', [active]);
    await run('agentMemory.undo');
    assert.equal(app.get(active)?.status, 'active', 'deletion undone');
    await run('agentMemory.deleteRecords', [active]);
    await run('agentMemory.restore', [active]);
    await run('agentMemory.undo');
    assert.equal(app.get(active)?.status, 'deleted', 'restore undone');
    assert.equal(await vscode.commands.executeCommand('agentMemory.undo'), undefined, 'nothing left to undo');
    await run('agentMemory.restore', [active]);
  });

  it('the Filter button gets the selected row as its argument: it must prompt, not fail', async () => {
    const [node] = records(await group('active'));
    // What VS Code passes to a view/title command once a row is selected: the tree node.
    const pending = vscode.commands.executeCommand('agentMemory.filter', node);
    let settled = false;
    pending.then(() => (settled = true), () => (settled = true));
    // Close the prompt as a user would (Escape) until the command finishes.
    await waitFor(async () => {
      await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
      return settled;
    }, 'the filter prompt to open and close');
    assert.equal(await pending, undefined, 'cancelled quietly (the prompt was closed), no schema error');
    assert.equal(api.container.tree.isFiltered, false);
    const described = await run<string>('agentMemory.filter', { text: 'zzz-no-such-text' });
    assert.match(described, /filter: "zzz-no-such-text"/);
    assert.match(api.container.treeView.message ?? '', /^Sorted by recency \(newest first\)\. Showing records matching "zzz-no-such-text"\.$/);
    const hint = (await group('active'))[0];
    assert.equal(hint.kind, 'hint');
    assert.match(hint.kind === 'hint' ? hint.text : '', /No record matches the filter/);
    await run('agentMemory.clearFilter');
    assert.equal(api.container.treeView.message, 'Sorted by recency (newest first). No filter.');
  });

  it('diffWithDemonstration shows code without the header, SQL one clause per line', async () => {
    const task = await run<AgentTaskResult>('agentMemory.runAgent', 'How many patients were admitted in 2104?');
    await run('agentMemory.diffWithDemonstration', task.taskIndex);
    await waitFor(() => vscode.window.tabGroups.activeTabGroup.activeTab?.input instanceof vscode.TabInputTextDiff, 'a diff editor');
    const input = vscode.window.tabGroups.activeTabGroup.activeTab!.input as vscode.TabInputTextDiff;
    const left = (await vscode.workspace.openTextDocument(input.original)).getText();
    assert.ok(!left.startsWith('#'), `no header comment: ${left.slice(0, 80)}`);
    assert.match(left, /\n\s+from /i, `SQL laid out one clause per line: ${left}`);
  });

  it('Test Connection on a refused port names the cause and a fix; the status item shows the failure', async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const result = await run<{ connection: ConnectionResult }>('agentMemory.configureModel', { baseUrl: `http://127.0.0.1:${port}/v1`, model: 'm', apiKey: 'sk-secret-never-shown' });
    assert.equal(result.connection.ok, false);
    assert.equal(result.connection.problem, 'refused');
    assert.match(result.connection.fix ?? '', /Start the model server/);
    assert.ok(!JSON.stringify(result).includes('sk-secret-never-shown'), 'the key is never echoed');
    assert.match(api.container.modelStatus.text, /\$\(warning\)/);
    await run('agentMemory.configureModel', { baseUrl: '', model: '', apiKey: '' });
    await waitFor(() => api.container.modelStatus.text === '$(hubot) reuse model', 'the status item to show the reuse model');
  });
});
