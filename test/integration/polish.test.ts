/**
 * Issue 38's polish items in a real extension host: settings problems shown once and cleared
 * when fixed (a status item, no repeated toasts), Create Folder says it switched to an empty
 * memory and the missing-folder toast offers Use the Default, approving twice says "already
 * approved", an import with bad lines offers to import the valid ones, a stale row keeps its
 * question in its accessible label. The toasts go through `container.notices`, which the tests
 * record and answer (a test cannot click a toast).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentMemoryApp } from '../../src/core/app/types';
import type { AgentMemoryExtensionApi } from '../../src/extension';
import type { NoticeLevel } from '../../src/vscode/notices';
import type { RecordNode } from '../../src/vscode/tree/tree-items';
import { freshMemory, run, setSetting, waitFor } from './helpers';

interface Shown {
  level: NoticeLevel;
  message: string;
  buttons: string[];
}

/** Writes an invalid value (the settings keep the default, so setSetting's wait for the value would never end): waits for the next applied event. */
async function setInvalid(api: AgentMemoryExtensionApi, key: string, value: unknown): Promise<void> {
  const applied = new Promise<void>((resolve) => {
    const subscription = api.container.onDidApplySettings(() => {
      subscription.dispose();
      resolve();
    });
  });
  await vscode.workspace.getConfiguration('agentMemory').update(key, value, vscode.ConfigurationTarget.Workspace);
  await applied;
}

describe('issue 38 polish: notices, approvals, import, accessible rows', function () {
  this.timeout(180_000);
  let api: AgentMemoryExtensionApi;
  let app: AgentMemoryApp;
  let databasePath: string;
  let shown: Shown[] = [];
  /** The button the next toasts answer with (undefined: dismissed). */
  let answer: (s: Shown) => string | undefined = () => undefined;
  let originalShow: AgentMemoryExtensionApi['container']['notices']['show'];
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'am-polish-'));

  before(async () => {
    ({ api, app, databasePath } = await freshMemory('polish'));
    originalShow = api.container.notices.show;
    api.container.notices.show = (level, message, buttons) => {
      const s = { level, message, buttons };
      shown.push(s);
      return Promise.resolve(answer(s));
    };
    await setSetting(api, 'addition.policy', 'strict');
    await run('agentMemory.seedDemoMemory', 10);
  });
  beforeEach(() => {
    shown = [];
    answer = () => undefined;
  });
  after(async () => {
    api.container.notices.show = originalShow;
    await setSetting(api, 'retrieval.k', undefined);
    await setSetting(api, 'deletion.alpha', undefined);
    await setSetting(api, 'databasePath', databasePath);
  });

  it('an invalid setting: one toast, a status item while it lasts; fixing one of two repeats nothing; fixed, the item goes', async () => {
    const status = api.container.settingProblems;
    await setInvalid(api, 'retrieval.k', -3);
    assert.equal(shown.length, 1, JSON.stringify(shown));
    assert.match(shown[0].message, /agentMemory\.retrieval\.k/);
    assert.ok(status.visible && /retrieval\.k/.test(status.problems.join('\n')), 'the status item names the problem');
    await setInvalid(api, 'deletion.alpha', 'many');
    assert.equal(shown.length, 2, 'the second problem is told once');
    assert.match(shown[1].message, /agentMemory\.deletion\.alpha/);
    await setSetting(api, 'addition.policy', 'all');
    await setSetting(api, 'addition.policy', 'strict');
    await setSetting(api, 'deletion.alpha', undefined);
    assert.equal(shown.length, 2, `other changes and fixing one problem repeat no toast: ${JSON.stringify(shown.slice(2))}`);
    assert.deepEqual(status.problems.length, 1);
    await setSetting(api, 'retrieval.k', undefined);
    assert.equal(status.visible, false, 'fixed: the status item is gone');
    assert.equal(status.item.text === '' || !status.visible, true);
    assert.equal(shown.length, 2);
  });

  it('a databasePath in a missing folder: buttons Create Folder, Use the Default, Open Setting; no repeat on other changes; Create Folder says the memory is new and empty', async () => {
    const file = path.join(tmp, 'missing', 'memory.sqlite');
    await setSetting(api, 'databasePath', file);
    assert.equal(api.container.databasePath(), databasePath, 'refused: still on the old database');
    assert.equal(shown.length, 1);
    assert.deepEqual(shown[0].buttons, ['Create Folder', 'Use the Default', 'Open Setting']);
    assert.ok(api.container.settingProblems.problems.some((p) => p.startsWith('agentMemory.databasePath')), 'the status item names it');
    await setSetting(api, 'retrieval.k', 3);
    assert.equal(shown.length, 1, 'the same refusal is not toasted again on another change');
    await setSetting(api, 'retrieval.k', undefined);

    // Set it again and answer Create Folder: the memory switches to a new, empty database, and says so.
    await setSetting(api, 'databasePath', databasePath);
    assert.equal(api.container.settingProblems.visible, false, 'back on the old path: the refusal is over');
    shown = [];
    answer = (s) => (s.buttons.includes('Create Folder') ? 'Create Folder' : undefined);
    await setSetting(api, 'databasePath', file);
    await waitFor(() => api.container.databasePath() === file, 'the memory to switch to the created folder');
    await waitFor(() => shown.some((s) => s.level === 'info'), 'the notice that the memory switched');
    const told = shown.find((s) => s.level === 'info')!.message;
    assert.match(told, /new, empty database/);
    assert.ok(told.includes(databasePath), `names where the records so far stay: ${told}`);
    assert.equal(api.container.settingProblems.visible, false);
    await setSetting(api, 'databasePath', databasePath);
  });

  it('a stale toast of a fixed databasePath does nothing when clicked (Use the Default never resets a valid setting)', async () => {
    let click: ((button: string) => void) | undefined;
    api.container.notices.show = (level, message, buttons) => {
      shown.push({ level, message, buttons });
      return new Promise((resolve) => (click = resolve));
    };
    try {
      await setSetting(api, 'databasePath', path.join(tmp, 'gone', 'memory.sqlite'));
      assert.ok(click, 'the refusal was shown');
      await setSetting(api, 'databasePath', databasePath);
      click('Use the Default');
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(vscode.workspace.getConfiguration('agentMemory').inspect('databasePath')?.workspaceValue, databasePath);
      assert.equal(api.container.databasePath(), databasePath);
    } finally {
      api.container.notices.show = (level, message, buttons) => {
        const s = { level, message, buttons };
        shown.push(s);
        return Promise.resolve(answer(s));
      };
    }
  });

  it('Ctrl+Alt+A twice on the same row: the second press says "already approved", no raw id error', async () => {
    const result = await run<{ addition: { recordId: string | null } }>('agentMemory.runAgent', 'How many patients were admitted in 2104?');
    const id = result.addition.recordId;
    assert.ok(id && app.get(id)?.status === 'pending', 'a pending record to approve');
    await vscode.commands.executeCommand('agentMemory.explorer.focus');
    const pending = (await api.container.tree.getChildren({ kind: 'group', status: 'pending' })).find((n): n is RecordNode => n.kind === 'record' && n.record.id === id)!;
    await api.container.treeView.reveal(pending, { select: true, focus: true });
    await waitFor(() => api.container.treeView.selection.some((n) => n.kind === 'record' && n.record.id === id), 'the row to be selected');
    assert.deepEqual(await run<string[]>('agentMemory.approve', { fromSelection: true }), [id]);
    assert.equal(app.get(id)?.status, 'active');
    shown = [];
    // The same keys again (the selection may still hold the row drawn as pending).
    assert.equal(await vscode.commands.executeCommand('agentMemory.approve', { fromSelection: true }), undefined, 'nothing to do');
    // A stale row's ✓ (the record's id) says the same.
    assert.equal(await vscode.commands.executeCommand('agentMemory.approve', [id]), undefined);
    assert.equal(shown.length, 2, JSON.stringify(shown));
    for (const s of shown) {
      assert.equal(s.level, 'info');
      assert.match(s.message, /already approved/);
      assert.ok(!s.message.includes(id), `no raw id: ${s.message}`);
    }
  });

  it('an import with bad lines offers "Import the N valid lines": declined, nothing is written; accepted, the valid ones are', async () => {
    const line = (id: string) => JSON.stringify({ id, question: `imported question ${id}?`, execution: { code: 'answer = 1', language: 'python', outcome: 'success' }, status: 'active', provenance: 'import', createdTask: 0, createdAt: '2024-01-01T00:00:00.000Z' });
    const file = path.join(tmp, 'mixed.jsonl');
    fs.writeFileSync(file, [line('polish-1'), '{oops', line('polish-2'), '{"id": 3}'].join('\n') + '\n');
    const before = app.counts().active;
    assert.equal(await vscode.commands.executeCommand('agentMemory.importJsonl', file), undefined, 'dismissed: cancelled');
    assert.equal(shown.length, 1);
    assert.deepEqual(shown[0].buttons, ['Import the 2 valid lines', 'Show Logs']);
    assert.match(shown[0].message, /2 of the 4 lines of mixed\.jsonl are invalid: Line 2: not valid JSON.*Line 4: field/);
    assert.equal(app.counts().active, before, 'nothing written before the user chose');
    answer = (s) => s.buttons[0];
    assert.equal(await run<number>('agentMemory.importJsonl', file), 2);
    assert.equal(app.counts().active, before + 2);
    assert.ok(app.get('polish-1') && app.get('polish-2'));
  });

  it("a stale row's accessible label starts with its whole question (the plain tooltip does not replace it)", async () => {
    const [record] = app.list({ status: 'active', limit: 1 }).items;
    const node: RecordNode = { kind: 'record', record, misaligned: false, stale: true };
    const item = api.container.tree.getTreeItem(node);
    assert.match(String(item.description), /^stale · /);
    const label = item.accessibilityInformation?.label ?? '';
    assert.ok(label.startsWith(`${record.question}, stale · `), label);
    assert.match(label, /Stale: its program now fails/);
    const resolved = api.container.tree.resolveTreeItem(item, node);
    assert.match(String(resolved.description), /^stale · (?!stale)/, 'marked once after the tooltip is resolved');
    assert.ok(resolved.accessibilityInformation?.label.startsWith(record.question));
    const plain = api.container.tree.getTreeItem({ ...node, stale: false });
    assert.ok(plain.accessibilityInformation?.label.startsWith(`${record.question}, `));
  });
});
