/**
 * Memory that stays true, in the real extension host: the agent's database (a copy of the
 * demo data set as agentMemory.agent.dataPath) changes under the editor (a column the programs
 * use is renamed); the data watcher notices without a command, re-runs the programs whose data
 * fingerprint differs, marks the ones that now fail stale, and retrieval stops using them.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import type { AgentMemoryApp } from '../../src/core/app/types';
import type { AgentMemoryExtensionApi } from '../../src/extension';
import { freshMemory, run, setSetting, waitFor } from './helpers';

describe('revalidation when the agent data changes (data watcher)', function () {
  this.timeout(240_000);
  let api: AgentMemoryExtensionApi;
  let app: AgentMemoryApp;
  let data: string;

  before(async () => {
    ({ api, app } = await freshMemory('revalidation'));
    data = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'am-watch-')), 'agent-data.sqlite');
    fs.copyFileSync(path.join(api.container.demoDataDir, 'mimic3-demo.sqlite'), data);
    await setSetting(api, 'agent.dataPath', data);
    await run('agentMemory.seedDemoMemory', 100);
    // Every program's fingerprint is now the copy's: the watcher has nothing to re-run until it changes.
    const first = await run<{ checked: number; failing: number }>('agentMemory.revalidate');
    assert.equal(first.failing, 0, 'the copy is the demo data: nothing fails');
  });
  after(async () => {
    await setSetting(api, 'agent.dataPath', '');
  });

  it('a renamed column: the watcher marks exactly the programs that use it stale, and search no longer returns them', async () => {
    const users = app.list({ status: 'active', limit: 500 }).items.filter((r) => /prescriptions/i.test(r.execution.code) && /\bdrug\b/i.test(r.execution.code));
    assert.ok(users.length > 0, 'some demo programs read prescriptions.drug');
    const db = new Database(data);
    db.exec('ALTER TABLE prescriptions RENAME COLUMN drug TO drug_name');
    db.close();
    await waitFor(() => app.staleIds().size > 0, 'the watcher to revalidate after the data changed', 90_000);
    // Let the pass finish: it marks all failing records in one go.
    await waitFor(() => app.staleIds().size >= users.length, 'every program using the renamed column to be stale', 90_000);
    const stale = app.staleIds();
    for (const r of users) assert.ok(stale.has(r.id), `${r.question} uses prescriptions.drug: stale`);
    for (const id of stale) assert.match(app.get(id)?.execution.code ?? '', /\bdrug\b/i, 'only programs that use the column are stale');
    const { results } = await app.memoryTools().search({ query: users[0].question, k: 10 }, { via: 'vscode-lm', name: 'revalidation-test' });
    assert.ok(results.length > 0, 'search still answers');
    assert.ok(!results.some((r) => stale.has(r.id)), `memory_search skips stale records: ${results.map((r) => r.id).join(', ')}`);
  });

  it('the column restored: a manual revalidation says how many are clean again, in a notification that stays', async () => {
    const stale = app.staleIds().size;
    assert.ok(stale > 0, 'the previous test left stale records');
    const db = new Database(data);
    db.exec('ALTER TABLE prescriptions RENAME COLUMN drug_name TO drug');
    db.close();
    const said: string[] = [];
    const original = { info: api.container.notices.info, warn: api.container.notices.warn };
    api.container.notices.info = api.container.notices.warn = (message) => {
      said.push(message);
      return Promise.resolve(undefined);
    };
    try {
      const report = await run<{ recovered: number; failing: number }>('agentMemory.revalidate');
      assert.equal(report.recovered, stale, 'every stale record runs clean again');
      assert.equal(app.staleIds().size, 0);
      const message = said.find((m) => m.includes('revalidation checked'));
      assert.ok(message, `a notification, not a status-bar message: ${JSON.stringify(said)}`);
      assert.match(message, new RegExp(`: ${stale} clean again \\(were stale\\), 0 now failing; answers \\d+ unchanged, \\d+ changed`));
    } finally {
      Object.assign(api.container.notices, original);
    }
  });
});
