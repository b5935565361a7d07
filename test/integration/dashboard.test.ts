/** The dashboard webview draws its charts and updates live while tasks run. */
import * as assert from 'node:assert/strict';
import type { AgentMemoryApp } from '../../src/core/app/types';
import type { AgentMemoryExtensionApi } from '../../src/extension';
import { closeAllEditors, freshMemory, run, setSetting, waitFor } from './helpers';

describe('dashboard', function () {
  this.timeout(120_000);
  let api: AgentMemoryExtensionApi;
  let app: AgentMemoryApp;

  before(async () => {
    ({ api, app } = await freshMemory('dashboard'));
    await setSetting(api, 'addition.policy', 'all');
    await run('agentMemory.seedDemoMemory', 5);
  });
  after(async () => {
    await closeAllEditors();
    await setSetting(api, 'addition.policy', 'strict');
  });

  it('opens and reports its four charts drawn', async () => {
    await run('agentMemory.openDashboard');
    assert.equal(api.container.dashboard.isOpen, true);
    assert.deepEqual(api.container.dashboard.lastRendered, { charts: 4, tasks: app.tasks().length });
  });

  it('redraws on core change events while tasks run', async () => {
    await run('agentMemory.runTaskStream', { items: [{ question: 'What is the intake method of aspirin?' }, { question: 'What is the intake method of heparin?' }] });
    const tasks = app.tasks().length;
    assert.ok(tasks >= 2);
    await waitFor(() => api.container.dashboard.lastRendered?.tasks === tasks, `the dashboard to show ${tasks} tasks (shows ${api.container.dashboard.lastRendered?.tasks})`);
  });
});
