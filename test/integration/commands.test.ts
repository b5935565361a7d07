/**
 * Every contributed command runs in the real extension host. Commands take optional
 * arguments so no QuickPick/InputBox is needed; a last test checks that every command
 * declared in package.json was exercised here.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentMemoryApp, AgentTaskResult } from '../../src/core/app/types';
import type { AgentMemoryExtensionApi } from '../../src/extension';
import { startFakeOpenAI } from '../support/fake-openai-server';
import { closeAllEditors, EXTENSION_ID, freshMemory, run, setSetting, waitFor } from './helpers';

describe('commands', function () {
  this.timeout(180_000);
  let api: AgentMemoryExtensionApi;
  let app: AgentMemoryApp;
  let task: AgentTaskResult;
  const exercised = new Set<string>();
  const cmd = <T>(id: string, ...args: unknown[]) => {
    exercised.add(id);
    return run<T>(id, ...args);
  };
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-memory-cmd-'));

  before(async () => {
    ({ api, app } = await freshMemory('commands'));
    await setSetting(api, 'addition.policy', 'strict');
  });
  after(closeAllEditors);

  it('activates without opening the database (figure printed for the report)', () => {
    // A figure, not an assertion: performance is shown by measurements, not timed tests.
    console.log(`      activate() took ${api.activationMs.toFixed(1)} ms (performance.now() around it)`);
    assert.ok(api.activationMs > 0);
  });

  it('seedDemoMemory adds the requested number of seed records', async () => {
    assert.equal(await cmd<number>('agentMemory.seedDemoMemory', 12), 12);
    assert.equal(app.counts().active, 12);
    assert.ok(app.list({ status: 'active' }).items.every((r) => r.provenance === 'seed'));
  });

  it('runAgent answers a question, logs the task and shows the result document', async () => {
    task = await cmd<AgentTaskResult>('agentMemory.runAgent', 'How many patients were admitted in 2104?');
    assert.equal(app.task(task.taskIndex)?.question, 'How many patients were admitted in 2104?');
    assert.ok(task.demonstrations.length > 0);
    const doc = vscode.window.activeTextEditor?.document;
    assert.equal(doc?.uri.scheme, 'agent-memory');
    assert.ok(doc?.getText().includes('Demonstrations used'));
  });

  it('runTaskStream runs the demo questions with progress', async () => {
    const before = app.tasks().length;
    const results = await cmd<AgentTaskResult[]>('agentMemory.runTaskStream', { file: path.join(api.container.demoDataDir, 'ehrsql-mimic3-tasks.jsonl'), limit: 3 });
    assert.equal(results.length, 3);
    assert.equal(app.tasks().length, before + 3);
  });

  it('approve, reject, deleteRecords, restore and purge change status', async () => {
    // Stream tasks carry ground truth (strict Φ decides directly); single questions go pending.
    await cmd<AgentTaskResult>('agentMemory.runAgent', 'How many patients were discharged from the hospital in 2103?');
    const pending = app.list({ status: 'pending' }).items.map((r) => r.id);
    assert.ok(pending.length >= 2, `pending records: ${pending.length}`);
    await cmd('agentMemory.approve', [pending[0]]);
    await cmd('agentMemory.reject', [pending[1]]);
    await cmd('agentMemory.deleteRecords', pending[0]);
    assert.equal(app.get(pending[0])?.status, 'deleted');
    await cmd('agentMemory.restore', [pending[0]]);
    assert.equal(app.get(pending[0])?.status, 'active');
    await cmd('agentMemory.purge', [pending[1]], { skipConfirm: true });
    assert.equal(app.get(pending[1]), undefined);
  });

  it('openRecord shows the code with the question in a read-only document', async () => {
    const record = app.list({ status: 'active', limit: 1 }).items[0];
    const uri = await cmd<string>('agentMemory.openRecord', record.id);
    const doc = vscode.window.activeTextEditor?.document;
    assert.equal(doc?.uri.toString(), uri);
    assert.equal(doc?.languageId, 'python');
    assert.ok(doc?.getText().includes(record.question));
    assert.ok(doc?.getText().includes(record.execution.code));
  });

  it('diffWithDemonstration compares the task with its top demonstration', async () => {
    const diff = await cmd<{ demonstrationId: string }>('agentMemory.diffWithDemonstration', task.taskIndex);
    const top = [...task.demonstrations].sort((a, b) => (b.inputSimilarity ?? -1) - (a.inputSimilarity ?? -1))[0];
    assert.equal(diff.demonstrationId, top.recordId);
    await waitFor(() => vscode.window.tabGroups.activeTabGroup.activeTab?.input instanceof vscode.TabInputTextDiff, 'a diff editor');
  });

  it('setAdditionPolicy writes the setting', async () => {
    assert.equal(await cmd<string>('agentMemory.setAdditionPolicy', 'coarse'), 'coarse');
    assert.equal(api.container.settings.value.addition.policy, 'coarse');
    await cmd('agentMemory.setAdditionPolicy', 'strict');
  });

  it('the deletion commands plan and apply (nothing to delete right after seeding)', async () => {
    for (const id of ['agentMemory.applyCombinedDeletion', 'agentMemory.applyPeriodicDeletion', 'agentMemory.applyHistoryDeletion', 'agentMemory.applyForgettingDeletion']) {
      const outcome = await cmd<{ plan: { candidates: unknown[] }; deleted: number }>(id, { skipConfirm: true });
      assert.equal(outcome.deleted, outcome.plan.candidates.length, id);
    }
    const outcome = await cmd<{ deleted: number }>('agentMemory.applyDeletion', 'history', { skipConfirm: true });
    assert.equal(typeof outcome.deleted, 'number');
  });

  it('exportJsonl then importJsonl round-trips records', async () => {
    const file = path.join(tmp, 'active.jsonl');
    const n = await cmd<number>('agentMemory.exportJsonl', file, 'active');
    assert.equal(n, app.counts().active);
    assert.equal(fs.readFileSync(file, 'utf8').trim().split('\n').length, n);
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n').slice(0, 2).map((l) => {
      const o = JSON.parse(l) as Record<string, unknown>;
      delete o.id;
      return JSON.stringify(o);
    });
    const importFile = path.join(tmp, 'two.jsonl');
    fs.writeFileSync(importFile, lines.join('\n') + '\n');
    const before = app.counts().active + app.counts().pending;
    assert.equal(await cmd<number>('agentMemory.importJsonl', importFile), 2);
    assert.equal(app.counts().active + app.counts().pending, before + 2);
  });

  it('reembed re-embeds the memory', async () => {
    assert.equal(typeof (await cmd<number>('agentMemory.reembed')), 'number');
  });

  it('configureModel stores the endpoint in settings and the key in SecretStorage', async () => {
    const out = await cmd<{ apiKeyStored: boolean }>('agentMemory.configureModel', { baseUrl: 'http://127.0.0.1:9/v1', model: 'test-model', apiKey: 'sk-test' });
    assert.equal(out.apiKeyStored, true);
    assert.equal(api.container.settings.value.model.baseUrl, 'http://127.0.0.1:9/v1');
    assert.equal(await api.container.apiKey.get(), 'sk-test');
    const settingsFile = fs.readFileSync(path.join(vscode.workspace.workspaceFolders![0].uri.fsPath, '.vscode', 'settings.json'), 'utf8');
    assert.ok(!settingsFile.includes('sk-test'), 'the key never lands in settings.json');
    await cmd('agentMemory.configureModel', { baseUrl: '', model: '', apiKey: '' });
    assert.equal(await api.container.apiKey.get(), undefined);
  });

  it('configureEmbedding keeps its key apart; Re-embed Memory switches the memory to the model (then the cache answers) and back', async () => {
    const key = 'sk-embed-integration-0123456789';
    const fake = await startFakeOpenAI({ apiKey: key, embeddingDimension: 24 });
    try {
      const out = await cmd<{ apiKeyStored: boolean; reembedded: number | null }>('agentMemory.configureEmbedding', { baseUrl: fake.baseURL, model: 'fake-embed', apiKey: key, reembed: true });
      assert.equal(out.apiKeyStored, true);
      assert.equal(await api.container.embeddingApiKey.get(), key);
      assert.notEqual(await api.container.apiKey.get(), key, 'the chat model key is another secret');
      assert.ok(out.reembedded !== null && out.reembedded > 0);
      const sent = fake.requests.length;
      assert.ok(sent >= 1 && fake.requests.every((r) => r.headers.authorization === `Bearer ${key}`));
      assert.equal(await cmd<number>('agentMemory.reembed'), out.reembedded);
      assert.equal(fake.requests.length, sent, 'unchanged text is not sent again');
      const settingsFile = fs.readFileSync(path.join(vscode.workspace.workspaceFolders![0].uri.fsPath, '.vscode', 'settings.json'), 'utf8');
      assert.ok(!settingsFile.includes(key), 'the key never lands in settings.json');
    } finally {
      await fake.close();
    }
    const back = await cmd<{ reembedded: number | null }>('agentMemory.configureEmbedding', { baseUrl: '', model: '', apiKey: '', reembed: true });
    assert.ok(back.reembedded !== null && back.reembedded > 0, 'back to the built-in embedder, offline');
    assert.equal(await api.container.embeddingApiKey.get(), undefined);
  });

  it('showRoleMemories opens a JSON document and resetRoleMemory resets one role', async () => {
    await cmd('agentMemory.showRoleMemories');
    const doc = vscode.window.activeTextEditor?.document;
    assert.equal(doc?.languageId, 'json');
    const roles = JSON.parse(doc.getText()) as { role: string }[];
    assert.deepEqual(roles.map((r) => r.role).sort(), ['coder', 'debugger']);
    assert.equal(await cmd<string>('agentMemory.resetRoleMemory', 'coder', { skipConfirm: true }), 'coder');
    assert.equal(app.roleMemories().find((r) => r.role === 'coder')?.updates, 0);
  });

  it('openDashboard draws its charts', async () => {
    assert.equal(await cmd<boolean>('agentMemory.openDashboard'), true);
    assert.equal(api.container.dashboard.lastRendered?.charts, 5);
  });

  it('pickQuestion runs a question of the task file; undo reverts a deletion; testConnection reports a refused port; openWalkthrough opens', async () => {
    const file = path.join(api.container.demoDataDir, 'ehrsql-mimic3-tasks.jsonl');
    const question = (JSON.parse(fs.readFileSync(file, 'utf8').split('\n').find((l) => l.includes('"nonempty"'))!) as { question: string }).question;
    const picked = await cmd<AgentTaskResult>('agentMemory.pickQuestion', { file, question });
    assert.equal(picked.question, question);
    assert.equal(await vscode.commands.executeCommand('agentMemory.pickQuestion', { file, question: 'not in the file?' }), undefined, 'a question outside the file is refused');

    const id = app.list({ status: 'active', limit: 1 }).items[0].id;
    await cmd('agentMemory.deleteRecords', [id]);
    assert.equal(app.get(id)?.status, 'deleted');
    await cmd('agentMemory.undo');
    assert.equal(app.get(id)?.status, 'active');

    // A port nothing listens on (port 9 would not do: fetch refuses it as a "bad port").
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await cmd('agentMemory.configureModel', { baseUrl: `http://127.0.0.1:${port}/v1`, model: 'test-model', apiKey: '' });
    const result = await cmd<{ ok: boolean; problem?: string }>('agentMemory.testConnection');
    assert.deepEqual([result.ok, result.problem], [false, 'refused']);
    await cmd('agentMemory.configureModel', { baseUrl: '', model: '', apiKey: '' });

    assert.equal(await cmd<boolean>('agentMemory.openWalkthrough'), true);
    await closeAllEditors();
  });

  it('sortBy, filter, clearFilter, refreshExplorer, loadMore, showLogs run', async () => {
    assert.equal(await cmd<string>('agentMemory.sortBy', 'utility'), 'utility');
    assert.match(await cmd<string>('agentMemory.filter', { language: 'python', misalignedOnly: true }), /python, misaligned/);
    assert.doesNotMatch(await cmd<string>('agentMemory.clearFilter'), /filter:/);
    for (const id of ['agentMemory.refreshExplorer', 'agentMemory.showLogs']) {
      exercised.add(id);
      await vscode.commands.executeCommand(id);
    }
    exercised.add('agentMemory.loadMore');
    await vscode.commands.executeCommand('agentMemory.loadMore', 'active');
  });

  it('review commands with nothing proposed change nothing; revalidate re-runs every program on the unchanged data', async () => {
    // The endpoint changes of the tests above re-create the app lazily: open it before reading it.
    await api.getApp();
    // With nothing proposed the four answer "nothing to do" (the proposed-deletions suite drives them with proposals).
    const before = app.counts();
    for (const id of ['agentMemory.confirmDeletion', 'agentMemory.keepRecord', 'agentMemory.confirmAllDeletions', 'agentMemory.keepAllDeletions']) {
      exercised.add(id);
      await vscode.commands.executeCommand(id);
    }
    assert.deepEqual(app.counts(), before);
    const report = await cmd<{ checked: number; failing: number; changed: number }>('agentMemory.revalidate');
    assert.ok(report.checked > 0, `programs re-run: ${report.checked}`);
    assert.equal(report.failing, 0, 'the data did not change: nothing fails');
  });

  it('team memory commands without a team memory: the password is stored and cleared; the others refuse (the team suite drives them on a real server)', async () => {
    assert.equal(api.container.team.config.kind, 'off');
    assert.equal(await cmd<boolean>('agentMemory.setTeamPassword', 'not-a-real-password'), true);
    assert.equal(await api.container.context.secrets.get('agentMemory.team.password'), 'not-a-real-password');
    assert.equal(api.container.team.session, undefined, 'no team URL: nothing connects');
    assert.equal(await cmd<boolean>('agentMemory.clearTeamPassword'), true);
    assert.equal(await api.container.context.secrets.get('agentMemory.team.password'), undefined);
    for (const id of ['agentMemory.approveTeamRecords', 'agentMemory.rejectTeamRecords', 'agentMemory.restoreTeamRecords', 'agentMemory.refreshTeam', 'agentMemory.loadMoreTeam', 'agentMemory.openTeamRecord']) {
      exercised.add(id);
      assert.equal(await vscode.commands.executeCommand(id, id === 'agentMemory.loadMoreTeam' ? 'pending' : 'some-id'), undefined, `${id} without a team memory`);
    }
  });

  it('every command declared in package.json is registered and exercised above', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
    const declared = ((ext.packageJSON as { contributes: { commands: { command: string }[] } }).contributes.commands).map((c) => c.command);
    const registered = new Set(await vscode.commands.getCommands(true));
    assert.deepEqual(declared.filter((c) => !registered.has(c)), []);
    assert.deepEqual(declared.filter((c) => !exercised.has(c)), [], 'commands without a test');
  });
});
