/**
 * Drive the real VS Code workbench served by code-server with the system Chromium
 * (playwright-core, no browser download). Used by the UI (e2e) tests and by
 * scripts/run-vscode-tests.mjs.
 *
 * @example
 *   const session = await startWorkbench({ mode: 'development' });
 *   await session.workbench.runCommand('Agent Memory: Show Logs');
 *   await session.workbench.screenshot('logs');
 *   await session.dispose();
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium, type Browser, type ConsoleMessage, type Locator, type Page } from 'playwright-core';
import { REPO_ROOT, startCodeServer, workbenchUrl, type CodeServer } from './code-server';

export const CHROMIUM_PATH = process.env.AGENT_MEMORY_CHROMIUM ?? '/usr/bin/chromium';
export const SCREENSHOT_DIR = path.join(REPO_ROOT, 'test-results', 'screenshots');
const WORKBENCH_TIMEOUT_MS = 60_000;
const UI_TIMEOUT_MS = 15_000;

/** Flags that keep Chromium from flooding the closed network. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/** Launches headless system Chromium with a fresh profile; throws a clear error when absent. */
export async function launchBrowser(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM_PATH)) throw new Error(`Chromium not found at ${CHROMIUM_PATH}: run 'bash scripts/bootstrap.sh' (apt-get install chromium)`);
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS, timeout: 60_000 });
}

/** A loaded workbench page plus the UI actions tests need. */
export class Workbench {
  constructor(readonly page: Page) {}

  /** Opens `url` and waits until the workbench is interactive. */
  static async open(browser: Browser, url: string, onConsole?: (m: ConsoleMessage) => void): Promise<Workbench> {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    if (onConsole) page.on('console', onConsole);
    await page.goto(url, { waitUntil: 'domcontentloaded', timeout: WORKBENCH_TIMEOUT_MS });
    await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: WORKBENCH_TIMEOUT_MS });
    await page.locator('.part.statusbar').waitFor({ state: 'visible', timeout: WORKBENCH_TIMEOUT_MS });
    return new Workbench(page);
  }

  /** Opens the command palette (F1) and waits for its input. */
  private async openPalette(): Promise<Locator> {
    const input = this.page.locator('.quick-input-widget input.input');
    for (let attempt = 0; ; attempt++) {
      await this.page.keyboard.press('F1');
      try {
        await input.waitFor({ state: 'visible', timeout: 5_000 });
        return input;
      } catch {
        if (attempt === 2) throw new Error('the command palette did not open (F1)');
        await this.page.locator('.part.editor').click({ force: true }).catch(() => undefined);
      }
    }
  }

  /**
   * Runs a command-palette command by its full title, e.g. "Agent Memory: Show Logs".
   * Retries while the extension host is still registering contributions.
   */
  async runCommand(title: string, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const rows = this.page.locator('.quick-input-list .monaco-list-row');
    for (;;) {
      const input = await this.openPalette();
      await input.fill(`>${title}`);
      const row = rows.filter({ hasText: title }).first();
      try {
        await row.waitFor({ state: 'visible', timeout: 3_000 });
        await row.click();
        await input.waitFor({ state: 'hidden', timeout: UI_TIMEOUT_MS });
        return;
      } catch (error) {
        const shown = await rows.allInnerTexts().catch(() => [] as string[]);
        await this.page.keyboard.press('Escape');
        if (Date.now() > deadline) {
          throw new Error(`command "${title}" not in the palette after ${timeoutMs} ms; shown: ${JSON.stringify(shown.slice(0, 10))} (${String(error)})`);
        }
        await this.page.waitForTimeout(1_000);
      }
    }
  }

  /** Texts of the notification toasts currently shown. */
  async notifications(): Promise<string[]> {
    return this.page.locator('.notifications-toasts .notification-list-item-message').allInnerTexts();
  }

  /** Waits for a notification toast whose text matches and returns its text. */
  async waitForNotification(pattern: RegExp | string, timeoutMs = UI_TIMEOUT_MS): Promise<string> {
    const toast = this.page.locator('.notifications-toasts .notification-list-item-message', { hasText: pattern }).first();
    await toast.waitFor({ state: 'visible', timeout: timeoutMs });
    return toast.innerText();
  }

  /** Clicks a button (e.g. "Approve") on the notification matching `pattern`. */
  async clickNotificationButton(pattern: RegExp | string, button: string): Promise<void> {
    const item = this.page.locator('.notifications-toasts .notification-list-item', { hasText: pattern }).first();
    await item.getByRole('button', { name: button }).click({ timeout: UI_TIMEOUT_MS });
  }

  /** Tree row (in any visible view) whose label contains `label`. */
  treeItem(label: string | RegExp): Locator {
    return this.page.locator('.part.sidebar .monaco-list-row', { hasText: label }).first();
  }

  /** Opens a view container from the activity bar by its title (e.g. "Agent Memory"). */
  async openViewContainer(title: string): Promise<void> {
    const item = this.page.locator(`.part.activitybar .action-item a[aria-label^="${title}"]`).first();
    await item.click({ timeout: UI_TIMEOUT_MS });
    await this.page.locator('.part.sidebar').waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
  }

  /** Hovers the tree row and clicks its inline action (codicon button) by title. */
  async clickTreeItemAction(label: string | RegExp, actionTitle: string): Promise<void> {
    const row = this.treeItem(label);
    await row.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    await row.hover();
    const action = row.locator(`.actions .action-label[aria-label^="${actionTitle}"]`).first();
    await action.click({ timeout: UI_TIMEOUT_MS });
  }

  /** Text shown in the bottom panel (Output, Problems ...), non-breaking spaces normalised. */
  async panelText(): Promise<string> {
    return (await this.page.locator('.part.panel').innerText()).replace(/\u00a0/g, ' ');
  }

  /** Name of the channel selected in the Output view ('' when the view is not shown). */
  async selectedOutputChannel(): Promise<string> {
    const select = this.page.locator('.part.panel select.monaco-select-box').first();
    if (!(await select.isVisible())) return '';
    return select.evaluate((el) => {
      const s = el as unknown as { selectedIndex: number; options: { text: string }[] };
      return s.selectedIndex >= 0 ? s.options[s.selectedIndex].text : '';
    });
  }

  /** Saves test-results/screenshots/<name>.png and returns its path. */
  async screenshot(name: string): Promise<string> {
    fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
    const file = path.join(SCREENSHOT_DIR, `${name.replace(/[^\w.-]+/g, '-')}.png`);
    await this.page.screenshot({ path: file });
    return file;
  }
}

export interface WorkbenchSessionOptions {
  /** 'development': load the repo as the development extension; 'vsix': install `vsix`. */
  mode: 'development' | 'vsix';
  vsix?: string;
  /** Folder to open; a fresh temp folder when omitted. */
  workspaceFolder?: string;
  /** Called with the workspace folder before code-server starts (seed files here). */
  prepareWorkspace?: (folder: string) => void;
}

export interface WorkbenchSession {
  server: CodeServer;
  browser: Browser;
  workbench: Workbench;
  workspaceFolder: string;
  /** Browser console lines seen so far (errors help when a test fails). */
  consoleLines: string[];
  dispose(): Promise<void>;
}

/** code-server + Chromium + loaded workbench, torn down by dispose(). */
export async function startWorkbench(options: WorkbenchSessionOptions): Promise<WorkbenchSession> {
  const ownFolder = !options.workspaceFolder;
  const workspaceFolder = options.workspaceFolder ?? fs.mkdtempSync(path.join(os.tmpdir(), 'agent-memory-ws-'));
  options.prepareWorkspace?.(workspaceFolder);
  if (options.mode === 'vsix' && !options.vsix) throw new Error("startWorkbench: mode 'vsix' needs options.vsix");
  if (options.mode === 'development' && !fs.existsSync(path.join(REPO_ROOT, 'dist', 'extension.js'))) {
    throw new Error("dist/extension.js missing: run 'npm run build' first");
  }
  const server = await startCodeServer({ workspaceFolder, vsix: options.mode === 'vsix' ? options.vsix : undefined });
  const consoleLines: string[] = [];
  let browser: Browser | undefined;
  try {
    browser = await launchBrowser();
    const url = workbenchUrl(server, { folder: workspaceFolder, extensionDevelopmentPath: options.mode === 'development' ? REPO_ROOT : undefined });
    const workbench = await Workbench.open(browser, url, (m) => consoleLines.push(`[${m.type()}] ${m.text()}`));
    const b = browser;
    return {
      server,
      browser: b,
      workbench,
      workspaceFolder,
      consoleLines,
      dispose: async () => {
        await b.close().catch(() => undefined);
        await server.stop();
        if (ownFolder) fs.rmSync(workspaceFolder, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await browser?.close().catch(() => undefined);
    await server.stop();
    throw error;
  }
}
