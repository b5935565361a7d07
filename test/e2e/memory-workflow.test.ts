/**
 * UI test of the whole memory workflow in a real VS Code workbench (code-server) driven
 * by the system Chromium, like a user: explorer → seed → run the agent → inline ✓ →
 * combined deletion with preview → dashboard charts. One workspace and one fresh memory
 * database for the suite; the steps build on each other, so a failing step fails the rest.
 *
 * Runs against the packaged VSIX when AGENT_MEMORY_E2E_VSIX names one (npm test does),
 * otherwise against the repo as the development extension (needs `npm run build`).
 * Screenshots: test-results/screenshots/e2e-<n>-*.png; the final explorer and dashboard
 * shots are also copied to media/screenshots/ for the README.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FrameLocator } from 'playwright-core';
import { REPO_ROOT } from '../support/code-server';
import { startWorkbench, type Workbench, type WorkbenchSession } from '../support/workbench';

const VSIX = process.env.AGENT_MEMORY_E2E_VSIX;
const QUESTION = 'How many patients were admitted to the hospital in 2104?';
const DATABASE = '.agent-memory/e2e-memory.db';
const README_SHOTS = path.join(REPO_ROOT, 'media', 'screenshots');
const MAX_README_SHOT_BYTES = 300 * 1024;
const STREAM_TASKS = 3;

describe(`memory workflow in the workbench (${VSIX ? 'installed VSIX' : 'development extension'})`, function () {
  this.timeout(120_000);
  let session: WorkbenchSession | undefined;
  let wb: Workbench;
  let failed = false;
  let activeBeforeDeletion = 0;

  before(async function () {
    session = await startWorkbench({
      ...(VSIX ? { mode: 'vsix' as const, vsix: VSIX } : { mode: 'development' as const }),
      prepareWorkspace: (folder) => {
        fs.mkdirSync(path.join(folder, '.vscode'), { recursive: true });
        // A fresh memory inside the workspace; a one-task period so that after one agent
        // task the combined policy has real candidates (seeds not retrieved by that task).
        const settings = {
          'agentMemory.databasePath': DATABASE,
          'agentMemory.addition.policy': 'strict',
          'agentMemory.deletion.period': 1,
          'agentMemory.deletion.alpha': 0,
          'agentMemory.deletion.protectSeeds': false,
        };
        fs.writeFileSync(path.join(folder, '.vscode', 'settings.json'), JSON.stringify(settings, null, 2));
      },
    });
    wb = session.workbench;
  });

  beforeEach(function () {
    if (failed) this.skip(); // an earlier step failed: its failure is already counted
  });

  afterEach(function () {
    if (this.currentTest?.state === 'failed') failed = true;
  });

  after(async function () {
    if (failed && session) {
      await wb.screenshot('e2e-failure').catch(() => undefined);
      process.stderr.write(`browser console (last lines):\n${session.consoleLines.slice(-30).join('\n')}\n`);
      process.stderr.write(`code-server output (tail):\n${session.server.output().slice(-3000)}\n`);
    }
    await session?.dispose();
  });

  it('1. opens the Agent Memory explorer (welcome view), seeds the demo memory from the palette and lists it under Active', async () => {
    await wb.openMemoryExplorer();
    await wb.setSidebarWidth(560); // room for the questions in the screenshots
    const welcome = await wb.welcomeText();
    assert.match(welcome, /memory is empty/i, 'a fresh database shows the welcome view');
    await wb.screenshot('e2e-1a-welcome');

    await wb.runCommand('Agent Memory: Seed the Demo Memory');
    const note = await wb.waitForNotification(/seeded \d+ demo record/i, 60_000);
    const seeded = Number(/seeded (\d+)/.exec(note)![1]);
    assert.ok(seeded > 0, note);
    assert.equal(await wb.waitForGroupCount('Active', (n) => n === seeded), seeded);
    // Active opens expanded; collapse it so the Deleted group row is on screen too.
    await wb.setGroupExpanded('Active', false);
    assert.equal(await wb.groupCount('Pending'), 0);
    assert.equal(await wb.groupCount('Deleted'), 0);
    await wb.setGroupExpanded('Active', true);
    const rows = await wb.groupChildren('Active');
    assert.ok(rows.length >= 5, `seeded records are listed under Active (rendered: ${rows.length})`);
    assert.ok(rows.every((label) => label.length > 10), `record rows are labelled by their question: ${JSON.stringify(rows.slice(0, 3))}`);
    assert.equal(await wb.welcomeText(), '', 'the welcome view is gone once the memory has records');
    assert.ok(fs.existsSync(path.join(session!.workspaceFolder, DATABASE)), `the memory was written to the configured ${DATABASE}`);
    await wb.screenshot('e2e-1-explorer-seeded');
  });

  it('2. runs the agent on a question from the palette and shows a new record under Pending', async () => {
    await wb.runCommand('Agent Memory: Run Agent on a Question…');
    await wb.answerInputBox('Run the agent', QUESTION);
    const note = await wb.waitForNotification(/Keep it in memory\?/, 90_000);
    assert.match(note, /Task \d+: (success|failure|error)/, note);
    assert.equal(await wb.waitForGroupCount('Pending', (n) => n === 1), 1);
    await wb.setGroupExpanded('Pending', true);
    assert.deepEqual(await wb.groupChildren('Pending'), [QUESTION]);
    // The result document shows the generated code in an editor.
    assert.ok(await wb.page.locator('.part.editor .monaco-editor .view-lines').first().isVisible(), 'the result document is open');
    await wb.screenshot('e2e-2-pending');
  });

  it('3. approves the pending record with its inline ✓ and shows it under Active', async () => {
    const activeBefore = await wb.groupCount('Active');
    const row = wb.treeRow(QUESTION);
    await row.hover();
    const approve = row.locator('.actions .action-label.codicon-check');
    await approve.waitFor({ state: 'visible', timeout: 15_000 });
    assert.match((await approve.getAttribute('aria-label')) ?? '', /^Approve/);
    await wb.screenshot('e2e-3a-hover-approve');
    await approve.click();
    assert.equal(await wb.waitForGroupCount('Pending', (n) => n === 0), 0);
    activeBeforeDeletion = await wb.waitForGroupCount('Active', (n) => n === activeBefore + 1);
    await wb.setGroupExpanded('Active', true);
    const active = await wb.groupChildren('Active');
    assert.equal(active[0], QUESTION, `the approved (newest) record heads the Active group: ${JSON.stringify(active.slice(0, 3))}`);
    assert.ok(!(await wb.groupChildren('Pending')).includes(QUESTION), 'no longer under Pending');
    await wb.screenshot('e2e-3-approved');
  });

  it('4. runs combined deletion from the palette, previews, confirms, and shows the records under Deleted', async () => {
    await wb.runCommand('Agent Memory: Apply Combined Deletion (Preview First)');
    const preview = await wb.answerQuickPick(/^Preview: combined deletion would remove \d+ record/, undefined, 'e2e-4a-preview');
    const planned = Number(/remove (\d+) record/.exec(preview.title)![1]);
    assert.ok(planned > 0 && planned < activeBeforeDeletion, `preview: ${preview.title}`);
    assert.ok(!preview.items.includes(QUESTION), 'the record created by the last task is younger than one period: not a candidate');
    const message = await wb.answerModal(/Delete \d+ record\(s\) by the combined policy/, 'Delete', 'e2e-4b-confirm');
    assert.match(message, new RegExp(`Delete ${planned} record`));
    await wb.waitForNotification(new RegExp(`combined deletion removed ${planned} record`), 30_000);
    // Collapse Active so the Deleted group is on screen, then expand Deleted.
    await wb.setGroupExpanded('Active', false);
    assert.equal(await wb.waitForGroupCount('Deleted', (n) => n === planned), planned);
    assert.equal(await wb.groupCount('Active'), activeBeforeDeletion - planned);
    await wb.setGroupExpanded('Deleted', true);
    const deleted = await wb.groupChildren('Deleted');
    assert.ok(deleted.length > 0, 'records listed under Deleted');
    assert.ok(!deleted.includes(QUESTION), 'the approved record was not deleted');
    assert.ok(deleted.every((label) => label.length > 10), `deleted rows are labelled by their question: ${JSON.stringify(deleted.slice(0, 3))}`);
    // Active now fits on screen above Deleted: show both for the README shot.
    await wb.setGroupExpanded('Active', true);
    assert.equal((await wb.groupChildren('Active'))[0], QUESTION, 'the approved record stays active');
    await wb.page.mouse.move(700, 850);
    await wb.clearNotifications();
    const shot = await wb.screenshot('e2e-4-explorer-deleted');
    copyReadmeShot(shot, 'explorer.png');
  });

  it('5. opens the dashboard from the palette, draws its charts and updates them live while a task stream runs', async () => {
    await wb.clearNotifications();
    await wb.runCommand('Agent Memory: Open Dashboard');
    const frame = await wb.webviewFrame('canvas#histogram');
    const counts = frame.locator('#counts');
    await counts.filter({ hasText: /· 1 tasks/ }).waitFor({ state: 'visible', timeout: 30_000 });
    const deleted = await wb.groupCount('Deleted');
    assert.match(await counts.innerText(), new RegExp(`^${await wb.groupCount('Active')} active · 0 pending · ${deleted} deleted · 1 tasks$`));

    // Three more tasks from the palette, answering its QuickPick and InputBox like a user.
    await wb.runCommand('Agent Memory: Run a Task Stream…');
    await wb.answerQuickPick('Run a task stream from', /EHR demo questions/);
    await wb.answerInputBox('How many tasks?', String(STREAM_TASKS));
    await wb.waitForNotification(new RegExp(`ran ${STREAM_TASKS} tasks`), 90_000);
    const tasks = 1 + STREAM_TASKS;
    await counts.filter({ hasText: new RegExp(`· ${tasks} tasks`) }).waitFor({ state: 'visible', timeout: 30_000 });
    const pending = await wb.groupCount('Pending');
    assert.match(await counts.innerText(), new RegExp(`^${await wb.groupCount('Active')} active · ${pending} pending · ${deleted} deleted · ${tasks} tasks$`));

    const blue = await cssVar(frame, '--vscode-charts-blue', '#3794ff');
    const orange = await cssVar(frame, '--vscode-charts-orange', '#d18616');
    const ink = {
      accuracy: await wb.canvasInk(frame, 'canvas#accuracy', blue),
      size: await wb.canvasInk(frame, 'canvas#size', orange),
      scatter: await wb.canvasInk(frame, 'canvas#scatter', blue),
      histogram: await wb.canvasInk(frame, 'canvas#histogram', orange),
    };
    const detail = JSON.stringify(ink);
    for (const [name, c] of Object.entries(ink)) assert.ok(c.inked > 300, `${name}: axes and labels drawn: ${detail}`);
    assert.ok(ink.accuracy.series > 50, `accuracy curve drawn over ${tasks} tasks: ${detail}`);
    assert.ok(ink.size.series > 50, `memory-size curve drawn over ${tasks} tasks: ${detail}`);
    assert.ok(ink.scatter.series > 20, `scatter plots the retrievals: ${detail}`);
    assert.ok(ink.histogram.series > 200, `utility histogram has bars: ${detail}`);
    await wb.clearNotifications();
    const shot = await wb.screenshot('e2e-5-dashboard');
    copyReadmeShot(shot, 'dashboard.png');
  });
});

async function cssVar(frame: FrameLocator, name: string, fallback: string): Promise<string> {
  type Styles = (el: unknown) => { getPropertyValue(n: string): string }; // no DOM lib in this project
  const value = await frame.locator('body').evaluate((body, n) => (globalThis as unknown as { getComputedStyle: Styles }).getComputedStyle(body).getPropertyValue(n).trim(), name);
  return value || fallback;
}

/** Copies a screenshot for the README, refusing one that is too big for the repo. */
function copyReadmeShot(file: string, name: string): void {
  const size = fs.statSync(file).size;
  assert.ok(size > 10_000 && size < MAX_README_SHOT_BYTES, `${file} is ${size} bytes (README shots must be 10 KB–300 KB)`);
  fs.mkdirSync(README_SHOTS, { recursive: true });
  fs.copyFileSync(file, path.join(README_SHOTS, name));
}
