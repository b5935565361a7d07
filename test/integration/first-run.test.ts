/**
 * Issue 22 in a real extension host: the gold answer is checked and shown on every path
 * (single run from Pick a Question… and from a typed question of the task file, stream rows
 * and tooltips, pickers, the result document after approval, the dashboard's "awaits your
 * approval"), a bad agentMemory.databasePath is refused while the records stay, over-long
 * questions are refused, record tabs are named by the question.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentMemoryApp, AgentTaskResult } from '../../src/core/app/types';
import type { AgentMemoryExtensionApi } from '../../src/extension';
import { seedMessage } from '../../src/vscode/commands/data-commands';
import { recordPickItems, taskPickItems } from '../../src/vscode/commands/record-commands';
import { recordDescription, type MemoryNode, type RecordNode } from '../../src/vscode/tree/tree-items';
import { closeAllEditors, freshMemory, run, setSetting, waitFor } from './helpers';

interface DemoTask {
  question: string;
  answer: unknown;
}

describe('issue 22: a first run that tells the truth', function () {
  this.timeout(240_000);
  let api: AgentMemoryExtensionApi;
  let app: AgentMemoryApp;
  let databasePath: string;
  let demo: DemoTask[];
  const records = (nodes: MemoryNode[]) => nodes.filter((n): n is RecordNode => n.kind === 'record');
  const group = async (status: 'pending' | 'active' | 'deleted') => records(await api.container.tree.getChildren({ kind: 'group', status }));
  const demoFile = () => path.join(api.container.demoDataDir, 'ehrsql-mimic3-tasks.jsonl');
  const docText = async (uri: vscode.Uri) => (await vscode.workspace.openTextDocument(uri)).getText();

  before(async () => {
    ({ api, app, databasePath } = await freshMemory('first-run'));
    await setSetting(api, 'addition.policy', 'strict');
    await run<number>('agentMemory.seedDemoMemory', 20);
    demo = fs
      .readFileSync(demoFile(), 'utf8')
      .split('\n')
      .filter((l) => l.includes('"nonempty"'))
      .map((l) => JSON.parse(l) as DemoTask);
  });
  after(closeAllEditors);

  it('Pick a Question… checks the gold answer of a single run: correct or wrong (gold answer), awaiting approval', async () => {
    const r = await run<AgentTaskResult>('agentMemory.pickQuestion', { question: demo[30].question });
    assert.equal(r.verdict.source, 'gold', JSON.stringify(r.verdict));
    assert.ok(['correct', 'wrong'].includes(r.verdict.kind));
    assert.equal(r.addition.status, 'pending', r.addition.reason);
    const uri = vscode.Uri.from({ scheme: 'agent-memory', path: `/result/${r.taskIndex}.py` });
    const header = new RegExp(`Verdict: ${r.verdict.kind} \\(gold answer\\) · awaits your approval`);
    // Task numbers start again in this suite's memory: a tab of an earlier suite's task of that number refreshes.
    await waitFor(async () => header.test(await docText(uri)), 'the result document to show this run');
    assert.match(await docText(uri), header);
  });

  it('Run Agent on a typed question of the task file checks it too; a question outside it stays "awaits your approval"', async () => {
    const r = await run<AgentTaskResult>('agentMemory.runAgent', demo[31].question);
    assert.equal(r.verdict.source, 'gold', JSON.stringify(r.verdict));
    const other = await run<AgentTaskResult>('agentMemory.runAgent', 'How many patients were admitted in 2104?');
    assert.deepEqual(other.verdict, { kind: 'unknown', source: 'human' });
  });

  it('the result document header follows the approval (no stale "not checked yet" next to "now active")', async () => {
    const r = await run<AgentTaskResult>('agentMemory.pickQuestion', { question: demo[32].question });
    const uri = vscode.Uri.from({ scheme: 'agent-memory', path: `/result/${r.taskIndex}.py` });
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    await run('agentMemory.approve', [r.addition.recordId]);
    await waitFor(async () => /now active/.test(await docText(uri)), 'the result document to refresh');
    const text = await docText(uri);
    assert.match(text, new RegExp(`Verdict: ${r.verdict.kind} \\(gold answer\\) · approved by you`), text);
    assert.doesNotMatch(text, /not checked|awaits your approval|approve or reject it/, text);
  });

  it('a stream under "I approve": every row and tooltip shows its gold verdict; Φ – is explained', async () => {
    const results = await run<AgentTaskResult[]>('agentMemory.runTaskStream', { items: demo.slice(40, 43), approveBy: 'human' });
    const pending = await group('pending');
    for (const r of results.filter((x) => x.addition.status === 'pending')) {
      const node = pending.find((n) => n.record.id === r.addition.recordId);
      assert.ok(node, `task ${r.taskIndex}'s record is listed under Pending`);
      const item = api.container.tree.getTreeItem(node);
      // A pending row says how its program ended first (ran / error / timed out / no answer), then the gold verdict.
      assert.match(String(item.description), new RegExp(`^(ran|error|timed out|no answer) · ${r.verdict.kind} · Φ`), String(item.description));
      const tooltip = (api.container.tree.resolveTreeItem(item, node).tooltip as vscode.MarkdownString).value;
      assert.match(tooltip, new RegExp(`Verdict: \\*\\*${r.verdict.kind} \\(gold answer\\) · awaits your approval\\*\\*`), tooltip);
      assert.match(tooltip, /Φ is – until a later task retrieves this record/);
    }
  });

  it('pickers, rows and tooltips speak in words: "wrong (gold answer)" never "success", "merged 3", "task N"', async () => {
    const tasks = app.tasks().filter((t) => t.code);
    const taskItems = taskPickItems(app, tasks);
    assert.ok(taskItems.length >= 3, 'the Diff picker lists the tasks');
    for (const [i, t] of tasks.entries()) {
      const d = String(taskItems[i].description);
      assert.doesNotMatch(d, /success/, d);
      if (typeof t.log.correct === 'number') assert.match(d, t.log.correct === 1 ? /correct \(gold answer\)/ : /wrong \(gold answer\)/, d);
    }
    const recordItems = recordPickItems(app, app.list({ limit: 500 }).items);
    assert.ok(recordItems.every((r) => !/success/.test(String(r.description))), 'the Open Record picker never says "success"');
    assert.ok(recordItems.some((r) => /(correct|wrong) \(gold answer\)/.test(String(r.description))), 'and shows the gold verdict where known');

    const [seed] = (await group('active')).filter((n) => n.record.stats.retrievalCount > 0);
    assert.ok(seed, 'a retrieved record');
    assert.match(recordDescription({ ...seed.record, mergedCount: 3 }), / · merged 3$/);
    assert.doesNotMatch(recordDescription({ ...seed.record, mergedCount: 3 }), /⧉/, 'no glyph that renders as an empty box');
    const item = api.container.tree.getTreeItem(seed);
    const tooltip = (api.container.tree.resolveTreeItem(item, seed).tooltip as vscode.MarkdownString).value;
    assert.match(tooltip, /\| task \d+ \| \d+ \|/, `retrieval rows name the task: ${tooltip}`);

    const welcome = (vscode.extensions.getExtension('agent-memory.agent-memory')?.packageJSON as { contributes: { viewsWelcome: { contents: string }[] } }).contributes.viewsWelcome;
    for (const w of welcome) assert.doesNotMatch(w.contents.replace(/\[[^\]]*\]\([^)]*\)/g, ''), /\$\(/, 'icons only inside link labels, where they render');
  });

  it('the dashboard: only tasks whose record is still pending await approval', async () => {
    const pendingTasks = new Set(app.list({ status: 'pending', limit: 500 }).items.map((r) => r.id));
    const d = app.dashboard();
    const waiting = app.tasks().filter((t) => t.recordId && pendingTasks.has(t.recordId) && t.utility === null && typeof t.log.correct !== 'number').length;
    assert.equal(d.summary.awaitingApproval, waiting);
    await run('agentMemory.approve', [...pendingTasks]);
    assert.equal(app.dashboard().summary.awaitingApproval, 0);
    assert.doesNotMatch(app.dashboard().summaryText, /await your approval/);
  });

  it('seeding an already seeded memory adds nothing and says why', async () => {
    const before = app.counts().active;
    assert.equal(await run<number>('agentMemory.seedDemoMemory', 20), 0);
    assert.equal(app.counts().active, before);
    assert.match(seedMessage(0, 20), /seeded 0 demo records: all 20 are already in memory \(seeded before\)/);
    assert.match(seedMessage(5, 20), /seeded 5 demo record\(s\) .*\(15 more were already in memory, seeded before\)/);
    assert.match(seedMessage(0, 100, 3), /all 100 are already in memory \(seeded before; 3 of them are deleted: restore them from the Deleted group\)/);
  });

  it('a 10,000-character question is refused; nothing runs', async () => {
    const before = app.tasks().length;
    assert.equal(await vscode.commands.executeCommand('agentMemory.runAgent', 'how many '.repeat(1200)), undefined);
    assert.equal(app.tasks().length, before);
  });

  it('a record opens in a tab named by its question, not its id', async () => {
    const [node] = await group('active');
    const uri = vscode.Uri.parse(await run<string>('agentMemory.openRecord', node.record.id));
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
    assert.ok(!tab?.label.includes(node.record.id), `tab label ${tab?.label}`);
    assert.ok(tab?.label.startsWith(node.record.question.slice(0, 10)), `tab label ${tab?.label} starts with the question`);
    assert.match(await docText(uri), new RegExp(`Record ${node.record.id}`));
  });

  it('an import with bad lines names every bad line in words; the log shows no stack trace for this user mistake', async () => {
    const counts = app.counts();
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'am-badimport-')), 'bad.jsonl');
    fs.writeFileSync(file, ['not json at all', JSON.stringify({ id: 'x' }), '', JSON.stringify({ question: 42 })].join('\n'));
    const logger = api.container.logger;
    const original = logger.error;
    const logged: string[] = [];
    logger.error = (m: string, ...a: unknown[]) => {
      logged.push(m);
      original.call(logger, m, ...a);
    };
    try {
      assert.equal(await vscode.commands.executeCommand('agentMemory.importJsonl', file), undefined, 'the import fails');
    } finally {
      logger.error = original;
    }
    const line = logged.find((m) => m.includes('importJsonl')) ?? '';
    for (const n of [1, 2, 4]) assert.match(line, new RegExp(`Line ${n}:`), line);
    assert.match(line, /fix the 3 bad lines and import again/);
    assert.doesNotMatch(line, /\n\s+at /, 'no stack trace for a user mistake');
    assert.deepEqual(app.counts(), counts, 'nothing imported');
  });

  it('a bad databasePath (under a file, in a missing folder) is refused: the memory and its records stay where they were', async () => {
    const counts = app.counts();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-badpath-'));
    const file = path.join(dir, 'plain-file.txt');
    fs.writeFileSync(file, 'not a folder');
    for (const bad of [path.join(file, 'memory.sqlite'), path.join(dir, 'no-such-folder', 'memory.sqlite')]) {
      await setSetting(api, 'databasePath', bad);
      assert.equal(api.container.databasePath(), databasePath, `still on the old database after ${bad}`);
      assert.deepEqual(app.counts(), counts, 'the records are where they were');
      assert.equal(fs.existsSync(path.join(dir, 'no-such-folder')), false, 'no folder or empty database appeared');
    }
    await setSetting(api, 'databasePath', databasePath);
    assert.deepEqual(app.counts(), counts);
  });
});
