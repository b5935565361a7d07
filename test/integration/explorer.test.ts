/** The memory explorer inside a real extension host: groups, items, paging, sort/filter, tooltips. */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { AgentMemoryApp } from '../../src/core/app/types';
import type { AgentMemoryExtensionApi } from '../../src/extension';
import type { MemoryNode, RecordNode } from '../../src/vscode/tree/tree-items';
import { freshMemory, run, setSetting } from './helpers';

describe('memory explorer', function () {
  this.timeout(120_000);
  let api: AgentMemoryExtensionApi;
  let app: AgentMemoryApp;

  const groups = async () => (await api.container.tree.getChildren());
  const group = async (status: 'pending' | 'active' | 'deleted') => {
    const children = await api.container.tree.getChildren({ kind: 'group', status });
    return children;
  };
  const records = (nodes: MemoryNode[]) => nodes.filter((n): n is RecordNode => n.kind === 'record');

  before(async () => {
    ({ api, app } = await freshMemory('explorer'));
    await setSetting(api, 'addition.policy', 'strict');
  });

  it('shows no groups for an empty memory, so the welcome view appears', async () => {
    assert.deepEqual(await groups(), []);
  });

  it('lists Pending / Active / Deleted with the records after seeding and one task', async () => {
    assert.equal(await run<number>('agentMemory.seedDemoMemory', 6), 6);
    const result = await run<{ addition: { recordId: string | null; status: string | null }; question: string }>('agentMemory.runAgent', 'How many patients were admitted in 2104?');
    assert.equal(result.addition.status, 'pending');

    const top = await groups();
    assert.deepEqual(top.map((g) => (g.kind === 'group' ? g.status : g.kind)), ['pending', 'active', 'deleted']);
    const groupItem = api.container.tree.getTreeItem(top[1]);
    assert.equal(groupItem.label, 'Active');
    assert.equal(groupItem.description, String(app.counts().active));

    const pending = records(await group('pending'));
    assert.equal(pending.length, 1);
    assert.equal(pending[0].record.id, result.addition.recordId);
    const item = api.container.tree.getTreeItem(pending[0]);
    assert.equal(item.label, 'How many patients were admitted in 2104?');
    assert.match(String(item.contextValue), /^memory:pending(:misaligned)?$/);
    // Short enough for the default sidebar width (the language is in the tooltip); a pending row says how its program ended first (issue 35).
    assert.match(String(item.description), /^(ran|error|timed out|no answer) · Φ(–|\d\.\d\d) ·\d+×$/);
    assert.equal((item.iconPath as vscode.ThemeIcon).id, 'clock');
    assert.equal(item.command?.command, 'agentMemory.openRecord');

    const active = records(await group('active'));
    assert.equal(active.length, app.counts().active);
    for (const node of active) {
      const d = String(api.container.tree.getTreeItem(node).description);
      assert.ok(d.endsWith(`·${node.record.stats.retrievalCount}×`), `${d} should end with the retrieval count ${node.record.stats.retrievalCount}`);
    }
    assert.ok(active.some((n) => n.record.stats.retrievalCount > 0), 'the task retrieved at least one seed record');
  });

  it('gives a markdown tooltip with the code excerpt and the evidence', async () => {
    const [node] = records(await group('active'));
    const item = api.container.tree.resolveTreeItem(api.container.tree.getTreeItem(node), node);
    const tooltip = item.tooltip as vscode.MarkdownString;
    assert.ok(tooltip instanceof vscode.MarkdownString);
    assert.ok(tooltip.value.includes('```python'), tooltip.value);
    assert.ok(tooltip.value.includes('execution **ran**'), tooltip.value);
    assert.match(tooltip.value, /Similarity when created: input/);
  });

  it('sorts by retrievals and filters by text, showing the filter in the description', async () => {
    await run('agentMemory.sortBy', 'retrievals');
    const sorted = records(await group('active')).map((n) => n.record.stats.retrievalCount);
    assert.deepEqual(sorted, [...sorted].sort((a, b) => b - a));

    const someQuestion = records(await group('active'))[0].record.question;
    const word = someQuestion.split(/\s+/).find((w) => w.length > 6) ?? someQuestion.slice(0, 8);
    const description = await run<string>('agentMemory.filter', { text: word });
    assert.ok(description.includes(`"${word}"`), description);
    const filtered = records(await group('active'));
    assert.ok(filtered.length >= 1);
    for (const n of filtered) assert.ok(`${n.record.question}\n${n.record.execution.code}`.toLowerCase().includes(word.toLowerCase()));
    assert.equal(api.container.treeView.description, description);

    await run('agentMemory.clearFilter');
    assert.equal(records(await group('active')).length, app.counts().active);
    await run('agentMemory.sortBy', 'recency');
  });

  it('pages 200 records at a time with a "Load more…" item', async () => {
    await run<number>('agentMemory.seedDemoMemory', 450);
    const total = app.counts().active;
    assert.ok(total > 400);
    let nodes = await group('active');
    assert.equal(records(nodes).length, 200);
    const more = nodes[nodes.length - 1];
    assert.equal(more.kind, 'loadMore');
    assert.equal(more.kind === 'loadMore' && more.remaining, total - 200);
    await vscode.commands.executeCommand('agentMemory.loadMore', 'active');
    nodes = await group('active');
    assert.equal(records(nodes).length, 400);
    assert.equal(new Set(records(nodes).map((n) => n.record.id)).size, 400, 'no duplicates across pages');
  });
});
