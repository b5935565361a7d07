/**
 * What a new user hit in the first hour (issue 38): the status bar after another process
 * wrote, a second task stream while one runs, stream toasts that count merges. Real
 * extension host, real SQLite file, a real child process writing it.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as vscode from 'vscode';
import * as path from 'node:path';
import type { AgentMemoryApp, AgentTaskResult } from '../../src/core/app/types';
import { readTaskStreamFile } from '../../src/core/app/task-stream-file';
import { CANCEL_STREAM, DEMO_TASK_FILE } from '../../src/vscode/commands/agent-commands';
import type { AgentMemoryExtensionApi } from '../../src/extension';
import { freshMemory, run, setSetting, waitFor } from './helpers';

/** Runs `statement` (with `params`) on the SQLite file from another Node process, as an MCP server would write it. */
function writeFromAnotherProcess(api: AgentMemoryExtensionApi, file: string, statement: string, params: unknown[]): void {
  const script = `const D = require('better-sqlite3'); const db = new D(${JSON.stringify(file)}); db.prepare(${JSON.stringify(statement)}).run(...${JSON.stringify(params)}); db.close();`;
  execFileSync(process.execPath, ['-e', script], { cwd: api.container.context.extensionUri.fsPath, env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } });
}

describe('newcomer: status bar, task streams', function () {
  this.timeout(180_000);
  let api: AgentMemoryExtensionApi;
  let app: AgentMemoryApp;
  let databasePath: string;

  before(async () => {
    ({ api, app, databasePath } = await freshMemory('newcomer'));
    await setSetting(api, 'addition.policy', 'strict');
    await run('agentMemory.seedDemoMemory', 5);
  });

  const barText = (c: { active: number; pending: number }) => `$(database) ${c.active} · $(clock) ${c.pending} pending`;

  it('the status bar counts what another process wrote to the database (an MCP server), without a command', async () => {
    const c = app.counts();
    await waitFor(() => api.container.statusBar.text === barText(c), `status bar "${api.container.statusBar.text}"`);
    const id = app.list({ status: 'active', limit: 1 }).items[0].id;
    writeFromAnotherProcess(api, databasePath, "UPDATE records SET status = 'pending' WHERE id = ?", [id]);
    const expected = barText({ active: c.active - 1, pending: c.pending + 1 });
    await waitFor(() => api.container.statusBar.text === expected, `status bar "${api.container.statusBar.text}" to read "${expected}"`);
  });

  it('Refresh Explorer reads the counts again too', async () => {
    // Another active record goes pending: counts the bar has never shown.
    const before = app.counts();
    const id = app.list({ status: 'active', limit: 1 }).items[0].id;
    writeFromAnotherProcess(api, databasePath, "UPDATE records SET status = 'pending' WHERE id = ?", [id]);
    await vscode.commands.executeCommand('agentMemory.refreshExplorer');
    const expected = barText({ active: before.active - 1, pending: before.pending + 1 });
    await waitFor(() => api.container.statusBar.text === expected, `status bar "${api.container.statusBar.text}" to read "${expected}" after Refresh`);
  });

  it('a second task stream while one runs: said at once with Cancel, no picker queued; Cancel stops the running one', async () => {
    const items = readTaskStreamFile(path.join(api.container.demoDataDir, DEMO_TASK_FILE), { limit: 20, nonEmptyOnly: true });
    const said: string[] = [];
    const original = api.container.notices.info;
    api.container.notices.info = (message, ...buttons) => {
      said.push(message);
      return Promise.resolve(buttons.includes(CANCEL_STREAM) ? CANCEL_STREAM : undefined);
    };
    try {
      const pendingBefore = app.counts().pending;
      const first = vscode.commands.executeCommand<AgentTaskResult[]>('agentMemory.runTaskStream', { items });
      await waitFor(() => app.counts().pending > pendingBefore, 'the first stream to finish a task', 60_000);
      // Without arguments a stream asks for its task file first: that picker must not wait behind the running stream.
      const second = vscode.commands.executeCommand('agentMemory.runTaskStream');
      try {
        await waitFor(() => said.some((m) => m.includes('a task stream is running')), 'the "a task stream is running" notice');
      } finally {
        await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
      }
      assert.equal(await second, undefined, 'the second stream did not start');
      const results = await first;
      assert.ok(results.length < items.length, `Cancel Stream stopped the running stream (${results.length} of ${items.length} ran)`);
      assert.match(said.find((m) => m.includes('a task stream is running')) ?? '', /\(\d+\/20 done\)/);
    } finally {
      api.container.notices.info = original;
    }
  });
});

describe('newcomer: the outcome of a pending record, and approving a failed one', function () {
  this.timeout(120_000);
  let api: AgentMemoryExtensionApi;
  let app: AgentMemoryApp;

  before(async () => {
    ({ api, app } = await freshMemory('outcomes'));
    await setSetting(api, 'addition.policy', 'strict');
  });

  it('the explorer shows each pending record\'s outcome; approving a failed one asks again, Enter keeps it pending', async () => {
    const client = { via: 'vscode-lm' as const, name: 'outcomes-test' };
    const failed = await app.memoryTools().record({ question: 'fix the off-by-one in paginate()', code: 'return items.slice(page * size, page * size + size + 1)', language: 'typescript', outcome: 'failure' }, client);
    const worked = await app.memoryTools().record({ question: 'sort dicts by a key', code: 'sorted(rows, key=lambda r: r["k"])', language: 'python', outcome: 'success' }, client);
    assert.deepEqual([failed.status, worked.status], ['pending', 'pending']);
    const nodes = (await api.container.tree.getChildren({ kind: 'group', status: 'pending' })).filter((n) => n.kind === 'record');
    const description = (id: string) => String(api.container.tree.getTreeItem(nodes.find((n) => n.kind === 'record' && n.record.id === id)!).description);
    assert.match(description(failed.id!), /^error · /, 'the failed record says so first');
    assert.match(description(worked.id!), /^ran · /);

    const asked: { message: string; buttons: string[] }[] = [];
    const original = api.container.prompts.modal;
    try {
      api.container.prompts.modal = (message, _detail, buttons) => {
        asked.push({ message, buttons });
        return Promise.resolve(buttons[0]);
      };
      // The successful one needs no second question.
      await run('agentMemory.approve', [worked.id]);
      assert.equal(asked.length, 0);
      assert.equal(app.get(worked.id!)?.status, 'active');
      // Enter (the first button) keeps the failed one pending.
      assert.equal(await vscode.commands.executeCommand('agentMemory.approve', [failed.id]), undefined);
      assert.equal(asked.length, 1);
      assert.match(asked[0].message, /failed \(error\)/);
      assert.equal(app.get(failed.id!)?.status, 'pending');
      api.container.prompts.modal = (message, _detail, buttons) => Promise.resolve(buttons.find((b) => b === 'Approve Anyway'));
      await run('agentMemory.approve', [failed.id]);
      assert.equal(app.get(failed.id!)?.status, 'active');
    } finally {
      api.container.prompts.modal = original;
    }
  });
});
