/**
 * UI test (issue 13): a strict-mode record made over MCP appears as pending in the tree.
 *
 * The workbench (code-server + Chromium) runs the extension on a memory file named in the
 * workspace settings (agentMemory.databasePath). The real MCP server (`agent-memory mcp
 * --db FILE --addition strict`, the built CLI `dist/cli.js`) runs as a child process of this
 * test, driven by the MCP SDK's own Client over stdio. A memory_record call from that other
 * process must show up under Pending in the explorer (live refresh across processes); the
 * inline ✓ then moves it to Active, and the MCP server's next memory_search finds it.
 *
 * Runs against the packaged VSIX when AGENT_MEMORY_E2E_VSIX names one (npm test does),
 * otherwise against the repo as the development extension (needs `npm run build`).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { MemoryStore } from '../../src/core/memory/sqlite/store';
import { HashingEmbedder } from '../../src/core/similarity/hashing-embedder';
import { REPO_ROOT } from '../support/code-server';
import { startWorkbench, type Workbench, type WorkbenchSession } from '../support/workbench';

const VSIX = process.env.AGENT_MEMORY_E2E_VSIX;
const DATABASE = '.agent-memory/mcp-e2e.db';
const CLI = path.join(REPO_ROOT, 'dist', 'cli.js');
/** Two active records the memory starts with (so the explorer shows its tree, not the welcome view). */
const SEEDED = ['how many patients were admitted in 2104?', 'list the ten most common diagnoses'];
/** The record the MCP client stores: distinctive, so no seeded row can match it. */
const QUESTION = 'mcp e2e: parse the ISO week number of a date string in go';
const GO_CODE = 'func isoWeek(s string) int {\n  t, _ := time.Parse("2006-01-02", s)\n  _, w := t.ISOWeek()\n  return w\n}';

interface SearchOut {
  results: { id: string; question: string }[];
}

function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

describe(`MCP record → explorer (${VSIX ? 'installed VSIX' : 'development extension'})`, function () {
  this.timeout(180_000);
  let session: WorkbenchSession | undefined;
  let wb: Workbench;
  let client: Client | undefined;
  let dbFile = '';
  let serverStderr = '';

  before(async function () {
    if (!fs.existsSync(CLI)) throw new Error(`${CLI} missing: run 'npm run build' first`);
    session = await startWorkbench({
      ...(VSIX ? { mode: 'vsix' as const, vsix: VSIX } : { mode: 'development' as const }),
      prepareWorkspace: (folder) => {
        fs.mkdirSync(path.join(folder, '.vscode'), { recursive: true });
        const settings = { 'agentMemory.databasePath': DATABASE, 'agentMemory.addition.policy': 'strict' };
        fs.writeFileSync(path.join(folder, '.vscode', 'settings.json'), JSON.stringify(settings, null, 2));
        // The memory file exists (schema and two active records) before either process opens it.
        dbFile = path.join(folder, DATABASE);
        fs.mkdirSync(path.dirname(dbFile), { recursive: true });
        const embedder = new HashingEmbedder();
        const store = MemoryStore.open(dbFile);
        try {
          store.add(
            SEEDED.map((question) => ({ question, execution: { code: `answer = sql("select 1")  # ${question}`, language: 'python', outcome: 'success' as const }, provenance: 'seed' as const })),
            { trigger: 'user', reason: 'e2e seed', embeddings: SEEDED.map((q) => embedder.embedSync(q)), embedderId: embedder.id },
          );
        } finally {
          store.close();
        }
      },
    });
    wb = session.workbench;
    // The real MCP server on the same file, as a separate process, driven by the SDK's client.
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--db', dbFile, '--addition', 'strict'], cwd: REPO_ROOT, stderr: 'pipe' });
    transport.stderr?.on('data', (chunk: Buffer) => (serverStderr += chunk.toString()));
    client = new Client({ name: 'e2e-mcp-client', version: '1.0.0' });
    await client.connect(transport);
  });

  after(async function () {
    const failed = this.test?.parent?.tests.some((t) => t.state === 'failed');
    if (failed && session) {
      await wb.screenshot('e2e-mcp-failure').catch(() => undefined);
      process.stderr.write(`MCP server stderr:\n${serverStderr.slice(-3000)}\n`);
      process.stderr.write(`browser console (last lines):\n${session.consoleLines.slice(-30).join('\n')}\n`);
    }
    await client?.close().catch(() => undefined);
    await session?.dispose();
  });

  it('a strict-mode record made over MCP appears as pending in the tree, and its inline ✓ moves it to Active', async () => {
    await wb.openMemoryExplorer();
    await wb.setSidebarWidth(560);
    assert.equal(await wb.waitForGroupCount('Active', (n) => n === SEEDED.length), SEEDED.length, 'the explorer shows the seeded memory file');
    assert.equal(await wb.groupCount('Pending'), 0, 'nothing pending before the MCP call');

    // Another process (the MCP server) records a task of another agent under strict addition.
    const recorded = (await client!.callTool({ name: 'memory_record', arguments: { question: QUESTION, code: GO_CODE, language: 'go', outcome: 'success', source: 'tests' } })) as CallToolResult;
    assert.ok(!recorded.isError, textOf(recorded));
    const out = recorded.structuredContent as { id: string; status: string };
    assert.equal(out.status, 'pending', `strict addition keeps the record pending: ${textOf(recorded)}`);

    // The explorer refreshes on its own (no Refresh command): the row is under Pending.
    assert.equal(await wb.waitForGroupCount('Pending', (n) => n === 1, 30_000), 1, 'the MCP record is counted under Pending');
    await wb.setGroupExpanded('Pending', true);
    assert.deepEqual(await wb.groupChildren('Pending'), [QUESTION], 'the Pending group lists the MCP record by its question');
    assert.equal(await wb.groupCount('Active'), SEEDED.length, 'a pending record is not active');
    const pendingSearch = (await client!.callTool({ name: 'memory_search', arguments: { query: QUESTION, k: 4 } })) as CallToolResult;
    assert.ok(!(pendingSearch.structuredContent as unknown as SearchOut).results.some((r) => r.id === out.id), 'a pending record is not retrievable');
    await wb.screenshot('e2e-mcp-1-pending');

    // Approve with the row's inline ✓. The memory_search calls above change the seeded records' retrieval
    // counts, so the tree re-renders its rows around now: a click that lands while its row is replaced
    // is lost (the UI, not the approval). Hover and click again then, at most three times in all; a row
    // that is no longer pending has no ✓ to click, so a second click can never approve twice.
    const row = wb.treeRow(QUESTION);
    const approve = row.locator('.actions .action-label.codicon-check');
    let pending = 1;
    for (let attempt = 1; attempt <= 3 && pending !== 0; attempt++) {
      await row.hover();
      const shown = await approve.waitFor({ state: 'visible', timeout: 15_000 }).then(() => true, () => false);
      if (shown) {
        assert.match((await approve.getAttribute('aria-label')) ?? '', /^Approve/);
        await approve.click().catch(() => undefined);
      }
      pending = await wb.waitForGroupCount('Pending', (n) => n === 0, attempt === 3 ? 15_000 : 7_500).catch(() => 1);
    }
    assert.equal(pending, 0, 'approved with the inline ✓: no longer pending');
    assert.equal(await wb.waitForGroupCount('Active', (n) => n === SEEDED.length + 1), SEEDED.length + 1);
    await wb.setGroupExpanded('Active', true);
    const active = await wb.groupChildren('Active');
    assert.ok(active.includes(QUESTION), `the approved record is listed under Active: ${JSON.stringify(active)}`);
    await wb.screenshot('e2e-mcp-2-approved');

    // The approval made in the editor is visible to the MCP server's next search.
    const search = (await client!.callTool({ name: 'memory_search', arguments: { query: QUESTION, k: 4 } })) as CallToolResult;
    assert.ok(!search.isError, textOf(search));
    const results = (search.structuredContent as unknown as SearchOut).results;
    assert.equal(results[0]?.id, out.id, `the approved record is now the best match over MCP: ${JSON.stringify(results.map((r) => r.question))}`);
  });
});
