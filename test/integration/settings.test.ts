/** A settings change reaches the app before setSetting returns: the next command uses it. */
import * as assert from 'node:assert/strict';
import type { AgentMemoryApp, AgentTaskResult } from '../../src/core/app/types';
import type { AgentMemoryExtensionApi } from '../../src/extension';
import { closeAllEditors, freshMemory, run, setSetting } from './helpers';

describe('settings applied signal', function () {
  this.timeout(120_000);
  let api: AgentMemoryExtensionApi;
  let app: AgentMemoryApp;

  before(async () => {
    ({ api, app } = await freshMemory('settings'));
    await setSetting(api, 'addition.policy', 'strict');
    await run('agentMemory.seedDemoMemory', 5);
  });
  after(async () => {
    await closeAllEditors();
    await setSetting(api, 'addition.policy', 'strict');
  });

  it('the extension announces a change once the app has it (onDidApplySettings after the settings service)', async () => {
    const order: string[] = [];
    const a = api.container.settings.onDidChange((s) => order.push(`seen ${s.retrieval.k}`));
    const b = api.container.onDidApplySettings((s) => order.push(`applied ${s.retrieval.k}`));
    try {
      await setSetting(api, 'retrieval.k', 3);
    } finally {
      a.dispose();
      b.dispose();
    }
    assert.deepEqual(order, ['seen 3', 'applied 3']);
    await setSetting(api, 'retrieval.k', undefined);
  });

  it('a task run right after setSetting uses the new addition policy (fixed, then all, then strict)', async () => {
    await setSetting(api, 'addition.policy', 'fixed');
    const fixed = await run<AgentTaskResult>('agentMemory.runAgent', 'How many patients were admitted in 2104?');
    assert.equal(fixed.addition.added, false, `fixed adds nothing: ${fixed.addition.reason}`);

    await setSetting(api, 'addition.policy', 'all');
    const all = await run<AgentTaskResult>('agentMemory.runAgent', 'What is the intake method of aspirin?');
    assert.equal(all.addition.status, 'active', `all adds an active record: ${all.addition.reason}`);

    await setSetting(api, 'addition.policy', 'strict');
    const strict = await run<AgentTaskResult>('agentMemory.runAgent', 'What is the intake method of heparin?');
    assert.equal(strict.addition.status, 'pending', `strict waits for the user: ${strict.addition.reason}`);
    assert.equal(app.get(strict.addition.recordId!)?.status, 'pending');
  });
});
