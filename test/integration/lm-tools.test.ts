/** The memory tools as VS Code language-model tools, invoked through vscode.lm in the real extension host. */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { AgentMemoryApp } from '../../src/core/app/types';
import type { AgentMemoryExtensionApi } from '../../src/extension';
import type { RecordNode } from '../../src/vscode/tree/tree-items';
import { freshMemory, run, setSetting, waitFor } from './helpers';

const textOf = (result: vscode.LanguageModelToolResult): string =>
  result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('\n');

const structured = <T>(result: vscode.LanguageModelToolResult): T => {
  const parts = result.content.filter((p): p is vscode.LanguageModelTextPart => p instanceof vscode.LanguageModelTextPart);
  return JSON.parse(parts[parts.length - 1].value) as T;
};

describe('language-model tools (memory_search, memory_record, memory_feedback)', function () {
  this.timeout(120_000);
  let api: AgentMemoryExtensionApi;
  let app: AgentMemoryApp;

  before(async () => {
    ({ api, app } = await freshMemory('lm-tools'));
    await setSetting(api, 'addition.policy', 'strict');
    await run('agentMemory.seedDemoMemory', 10);
    await waitFor(() => vscode.lm.tools.some((t) => t.name === 'memory_search'), 'the memory tools to be registered');
  });

  it('are registered with their JSON Schemas', () => {
    const names = vscode.lm.tools.filter((t) => t.name.startsWith('memory_')).map((t) => t.name).sort();
    assert.deepEqual(names, ['memory_feedback', 'memory_record', 'memory_search']);
    const search = vscode.lm.tools.find((t) => t.name === 'memory_search')!;
    assert.deepEqual((search.inputSchema as { required?: string[] }).required, ['query']);
  });

  it('the host took the MCP server definition provider (contributed under both names hosts look for)', () => {
    // 'absent' or 'refused' would mean the editor never offers the server to its chat agents.
    assert.equal(api.container.mcpServerProvider.state, 'registered');
  });

  it('search, record (pending under strict, shown in the tree) and feedback', async () => {
    // min_score 0: this test is about the tools' plumbing (the relevance floor has its own tests: mcp-relevance); in the
    // 10-record demo memory this question falls below the IDF-weighted default floor.
    const search = await vscode.lm.invokeTool('memory_search', { input: { query: 'How many patients were admitted in 2104?', k: 3, min_score: 0 }, toolInvocationToken: undefined });
    const found = structured<{ retrievalId: string; results: { id: string }[] }>(search);
    assert.equal(found.results.length, 3);
    assert.match(textOf(search), new RegExp(`retrievalId ${found.retrievalId}`));

    const recorded = await vscode.lm.invokeTool('memory_record', {
      input: { question: 'count the admissions of 2104 in typescript', code: 'const n = rows.filter((r) => r.year === 2104).length;', language: 'typescript', outcome: 'success', retrievalId: found.retrievalId, used: found.results.map((r) => r.id) },
      toolInvocationToken: undefined,
    });
    const out = structured<{ id: string; status: string }>(recorded);
    assert.equal(out.status, 'pending');
    assert.equal(app.get(out.id)?.execution.language, 'typescript');
    assert.equal(app.audit(out.id)[0].evidence.client, 'vscode-lm:vscode-chat');
    await waitFor(async () => ((await api.container.tree.getChildren({ kind: 'group', status: 'pending' })) as RecordNode[]).some((n) => n.kind === 'record' && n.record.id === out.id), 'the pending record in the tree');

    const feedback = await vscode.lm.invokeTool('memory_feedback', { input: { retrievalId: found.retrievalId, outcome: 'success', source: 'tests' }, toolInvocationToken: undefined });
    // The records the memory_record named in used keep the credit; the tests' verdict replaces its Φ on them.
    assert.deepEqual(structured(feedback), { updated: 3, utility: 1, evaluator: 'strict:ground-truth', credited: found.results.map((r) => r.id) });
  });

  it('refuses a malformed call with a clear error and writes nothing', async () => {
    const before = JSON.stringify(app.counts());
    await assert.rejects(
      Promise.resolve(vscode.lm.invokeTool('memory_record', { input: { question: 'q', code: 'x', outcome: 'success' }, toolInvocationToken: undefined })),
      /language/,
    );
    assert.equal(JSON.stringify(app.counts()), before);
  });

  it('are unregistered while agentMemory.tools.enabled is off (invoking one fails), and answer again once it is on', async () => {
    const call = () => Promise.resolve(vscode.lm.invokeTool('memory_search', { input: { query: 'How many patients were admitted in 2104?', k: 1 }, toolInvocationToken: undefined }));
    const before = JSON.stringify(app.counts());
    const tasksBefore = app.tasks().length;
    await setSetting(api, 'tools.enabled', false);
    await assert.rejects(call(), /does not have an implementation registered|turned off/i);
    assert.equal(app.tasks().length, tasksBefore, 'a refused search logs no retrieval');
    assert.equal(JSON.stringify(app.counts()), before);
    await setSetting(api, 'tools.enabled', true);
    await waitFor(async () => {
      try {
        await call();
        return true;
      } catch {
        return false;
      }
    }, 'the tools to answer again');
    assert.equal(app.tasks().length, tasksBefore + 1, 'the search is logged once the tools are back');
  });
});
