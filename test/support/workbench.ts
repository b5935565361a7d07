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
import * as path from 'node:path';
import { type Browser, type ConsoleMessage, type FrameLocator, type Locator, type Page } from 'playwright-core';
import { REPO_ROOT } from './code-server';

export const SCREENSHOT_DIR = path.join(REPO_ROOT, 'test-results', 'screenshots');
const WORKBENCH_TIMEOUT_MS = 60_000;
const UI_TIMEOUT_MS = 15_000;
/** How long a twistie click may take to show before `setGroupExpanded` clicks again. */
const CLICK_SETTLE_MS = 3_000;

export { CHROMIUM_ARGS, CHROMIUM_PATH, launchBrowser } from './chromium';

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
        // Done when the palette closed, or when the command reused the widget for its own
        // InputBox/QuickPick (the input no longer holds the ">title" text).
        await this.until(async () => !(await input.isVisible()) || !(await input.inputValue()).startsWith('>'), `"${title}" to start`);
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

  /** Polls `condition` until true; throws naming `what` after `timeoutMs`. */
  private async until(condition: () => Promise<boolean>, what: string, timeoutMs = UI_TIMEOUT_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await condition().catch(() => false))) {
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      await this.page.waitForTimeout(50);
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

  /** Dismisses every notification (keeps screenshots unobstructed). */
  async clearNotifications(): Promise<void> {
    await this.runCommand('Notifications: Clear All Notifications');
    await this.page.locator('.notifications-toasts .notification-list-item').first().waitFor({ state: 'hidden', timeout: UI_TIMEOUT_MS });
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
    // The container appears once the extension host has started (slow on a loaded machine).
    await item.waitFor({ state: 'visible', timeout: WORKBENCH_TIMEOUT_MS });
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

  /**
   * Clicks a view's title-bar action (e.g. "Filter Records") in the sidebar pane whose
   * header contains `paneTitle`; hovers the header first (actions show on hover/focus).
   */
  async clickViewTitleAction(paneTitle: string, actionTitle: string): Promise<void> {
    const pane = this.page.locator('.part.sidebar .pane', { has: this.page.locator('.pane-header', { hasText: paneTitle }) }).first();
    const header = pane.locator('.pane-header').first();
    const inPane = header.locator(`.actions .action-label[aria-label^="${actionTitle}"]`).first();
    // A single-view container shows the view's actions in the sidebar's title bar instead.
    const inTitle = this.page.locator(`.part.sidebar .title-actions .action-label[aria-label^="${actionTitle}"]`).first();
    await this.page.locator('.part.sidebar').hover();
    if (await header.isVisible().catch(() => false)) await header.hover();
    await this.until(async () => (await inPane.isVisible()) || (await inTitle.isVisible()), `the "${actionTitle}" title action`);
    await ((await inPane.isVisible()) ? inPane : inTitle).click({ timeout: UI_TIMEOUT_MS });
  }

  /** Opens the Agent Memory container and waits until its tree or its welcome view shows. */
  async openMemoryExplorer(): Promise<void> {
    await this.openViewContainer('Agent Memory');
    await this.page
      .locator('.part.sidebar .welcome-view-content, .part.sidebar .monaco-list-row')
      .first()
      .waitFor({ state: 'visible', timeout: WORKBENCH_TIMEOUT_MS });
  }

  /** Drags the sidebar's sash so the sidebar is about `width` px wide. */
  async setSidebarWidth(width: number): Promise<void> {
    const box = await this.page.locator('.part.sidebar').boundingBox();
    if (!box) throw new Error('the sidebar is not shown');
    const y = box.y + box.height / 2;
    await this.page.mouse.move(box.x + box.width - 1, y);
    await this.page.mouse.down();
    await this.page.mouse.move(box.x + width, y, { steps: 8 });
    await this.page.mouse.up();
  }

  /** The welcome view's text in the sidebar ('' when the view shows its tree). */
  async welcomeText(): Promise<string> {
    const welcome = this.page.locator('.part.sidebar .welcome-view-content').first();
    return (await welcome.isVisible()) ? welcome.innerText() : '';
  }

  /** Tree row whose label (not description) equals `label` exactly, or matches the RegExp. */
  treeRow(label: string | RegExp): Locator {
    const name = typeof label === 'string' ? new RegExp(`^\\s*${escapeRegExp(label)}\\s*$`) : label;
    return this.page.locator('.part.sidebar .monaco-list-row').filter({ has: this.page.locator('.label-name', { hasText: name }) }).first();
  }

  /** A top-level group row (e.g. "Pending") of a tree view. */
  groupRow(name: string): Locator {
    return this.page.locator('.part.sidebar .monaco-list-row[aria-level="1"]').filter({ has: this.page.locator('.label-name', { hasText: new RegExp(`^\\s*${escapeRegExp(name)}\\s*$`) }) }).first();
  }

  /** Number shown as the description of a group row ("Active  100" → 100). */
  async groupCount(name: string): Promise<number> {
    const row = this.groupRow(name);
    await row.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    const text = (await row.locator('.label-description').innerText().catch(() => '')).trim();
    const n = Number(/\d+/.exec(text)?.[0] ?? NaN);
    if (!Number.isFinite(n)) throw new Error(`group "${name}" shows no count (description: "${text}")`);
    return n;
  }

  /** Waits until the group's count satisfies `predicate`; returns the count. */
  async waitForGroupCount(name: string, predicate: (n: number) => boolean, timeoutMs = UI_TIMEOUT_MS): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    let last = NaN;
    for (;;) {
      last = await this.groupCount(name).catch(() => NaN);
      if (Number.isFinite(last) && predicate(last)) return last;
      if (Date.now() > deadline) throw new Error(`group "${name}" count stayed ${last} for ${timeoutMs} ms`);
      await this.page.waitForTimeout(250);
    }
  }

  /**
   * Expands (`expanded` true) or collapses a group row by clicking its twistie.
   * A click that lands while the tree re-renders (a refresh after a write) can
   * be lost: the row then only takes focus. As a user would, it clicks again
   * when the row has not changed within CLICK_SETTLE_MS, until UI_TIMEOUT_MS.
   */
  async setGroupExpanded(name: string, expanded: boolean): Promise<void> {
    const row = this.groupRow(name);
    await row.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    const done = async () => (await row.getAttribute('aria-expanded')) === String(expanded);
    const deadline = Date.now() + UI_TIMEOUT_MS;
    while (!(await done())) {
      await row.locator('.monaco-tl-twistie').click();
      const settle = Math.min(CLICK_SETTLE_MS, Math.max(0, deadline - Date.now()));
      await this.until(done, `group "${name}" expanded=${expanded}`, settle).catch(() => undefined);
      if (Date.now() >= deadline && !(await done())) throw new Error(`timed out after ${UI_TIMEOUT_MS} ms waiting for group "${name}" expanded=${expanded}`);
    }
  }

  /**
   * Labels of the rendered child rows of a group, in display order (rows are found
   * by data-index after the group row until the next top-level row).
   */
  /**
   * Labels of a group's rendered children. An expanded group fetches its children
   * asynchronously, so while the group counts records but shows none yet, wait.
   */
  async groupChildren(name: string): Promise<string[]> {
    const deadline = Date.now() + UI_TIMEOUT_MS;
    let zeroReads = 0;
    let previous: string[] | null = null;
    for (;;) {
      const labels = await this.renderedGroupChildren(name);
      if (Date.now() > deadline) return labels;
      // Rows read while the tree renders can be a part of them (CI once read 1 of 100): the same rows read twice, 200 ms apart.
      if (labels.length > 0) {
        if (previous && previous.join('\u0000') === labels.join('\u0000')) return labels;
        previous = labels;
        await this.page.waitForTimeout(200);
        continue;
      }
      previous = null;
      // A count read while the tree re-renders can be missing or 0 for a moment: an empty group is one that stays at 0.
      zeroReads = (await this.groupCount(name).catch(() => NaN)) === 0 ? zeroReads + 1 : 0;
      if (zeroReads >= 3) return labels;
      // Every caller expanded the group first; a refresh that re-rendered it collapsed is expanded again.
      const row = this.groupRow(name);
      if ((await row.getAttribute('aria-expanded').catch(() => null)) === 'false') await row.locator('.monaco-tl-twistie').click().catch(() => undefined);
      await this.page.waitForTimeout(200);
    }
  }

  private async renderedGroupChildren(name: string): Promise<string[]> {
    const row = this.groupRow(name);
    await row.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    const groupIndex = Number(await row.getAttribute('data-index'));
    const rows = await this.page.locator('.part.sidebar .monaco-list-row').evaluateAll((els) =>
      els.map((el) => ({
        index: Number(el.getAttribute('data-index')),
        level: Number(el.getAttribute('aria-level')),
        label: (el.querySelector('.label-name') as unknown as { innerText: string } | null)?.innerText.trim() ?? '',
      })),
    );
    rows.sort((a, b) => a.index - b.index);
    const out: string[] = [];
    for (const r of rows.filter((x) => x.index > groupIndex)) {
      if (r.level <= 1) break;
      out.push(r.label);
    }
    return out;
  }

  /** The visible InputBox/QuickPick: its title, or '' when none is shown. */
  async quickInputTitle(): Promise<string> {
    const widget = this.page.locator('.quick-input-widget');
    if (!(await widget.isVisible())) return '';
    return (await widget.locator('.quick-input-title').innerText().catch(() => '')).trim();
  }

  /** Waits for an InputBox whose title matches, types `text` like a user and presses Enter. */
  async answerInputBox(title: RegExp | string, text: string): Promise<void> {
    const widget = this.page.locator('.quick-input-widget', { has: this.page.locator('.quick-input-title', { hasText: title }) });
    await widget.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    const input = widget.locator('input.input');
    await input.fill('');
    await input.pressSequentially(text, { delay: 5 });
    await input.press('Enter');
    await this.waitQuickInputLeaves(title);
  }

  /**
   * Waits for a QuickPick whose title matches and accepts it: clicks the item labelled
   * `item` (single select) or presses Enter/OK keeping the preselected items (multi-select).
   * Returns the title and the item labels shown.
   */
  async answerQuickPick(title: RegExp | string, item?: string | RegExp, screenshotName?: string): Promise<{ title: string; items: string[] }> {
    const widget = this.page.locator('.quick-input-widget', { has: this.page.locator('.quick-input-title', { hasText: title }) });
    await widget.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    const rows = widget.locator('.quick-input-list .monaco-list-row');
    await rows.first().waitFor({ state: 'attached', timeout: UI_TIMEOUT_MS });
    // On a loaded machine the list can stay laid out at zero height for a while (seen with a
    // webview opening beside it): then answer with the keyboard, as a user can, instead of a click.
    const visible = await rows
      .first()
      .waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS })
      .then(() => true)
      .catch(() => false);
    const shown = { title: (await widget.locator('.quick-input-title').innerText()).trim(), items: (await rows.locator('.label-name').allTextContents()).map((t) => t.trim()) };
    if (screenshotName) await this.screenshot(screenshotName);
    const input = widget.locator('input.input');
    if (item === undefined) await input.press('Enter');
    else if (visible) await rows.filter({ hasText: item }).first().click();
    else {
      const label = shown.items.find((l) => (typeof item === 'string' ? l.includes(item) : item.test(l)));
      if (!label) throw new Error(`no item ${String(item)} in the quick pick '${shown.title}': ${shown.items.join(' | ')}`);
      await input.fill(label);
      await input.press('Enter');
    }
    await this.waitQuickInputLeaves(title);
    return shown;
  }

  /**
   * A multi-select quick pick titled `title`: reads it, ticks every row with its "toggle all"
   * checkbox (as a user does), then accepts. Returns the title and the rows shown.
   */
  async answerQuickPickAll(title: RegExp | string, screenshotName?: string): Promise<{ title: string; items: string[] }> {
    const widget = this.page.locator('.quick-input-widget', { has: this.page.locator('.quick-input-title', { hasText: title }) });
    await widget.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    const rows = widget.locator('.quick-input-list .monaco-list-row');
    await rows.first().waitFor({ state: 'attached', timeout: UI_TIMEOUT_MS });
    const shown = { title: (await widget.locator('.quick-input-title').innerText()).trim(), items: (await rows.locator('.label-name').allTextContents()).map((t) => t.trim()) };
    if (screenshotName) await this.screenshot(screenshotName);
    const all = widget.locator('.quick-input-header [role="checkbox"]').first();
    await all.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    await all.click();
    const count = widget.locator('.quick-input-count');
    await this.page.waitForFunction((el) => !/^0\b/.test((el?.textContent ?? '').trim()), await count.elementHandle(), { timeout: UI_TIMEOUT_MS });
    await widget.locator('input.input').press('Enter');
    await this.waitQuickInputLeaves(title);
    return shown;
  }

  private async waitQuickInputLeaves(title: RegExp | string): Promise<void> {
    const widget = this.page.locator('.quick-input-widget', { has: this.page.locator('.quick-input-title', { hasText: title }) });
    await widget.waitFor({ state: 'hidden', timeout: UI_TIMEOUT_MS });
  }

  /** Clicks `button` in the modal dialog whose message matches; returns the message. */
  async answerModal(message: RegExp | string, button: string, screenshotName?: string): Promise<string> {
    const dialog = this.page.locator('.monaco-dialog-box', { hasText: message }).first();
    await dialog.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    if (screenshotName) await this.screenshot(screenshotName);
    const text = (await dialog.innerText()).replace(/\u00a0/g, ' ').trim();
    await dialog.getByRole('button', { name: button, exact: true }).click();
    await dialog.waitFor({ state: 'hidden', timeout: UI_TIMEOUT_MS });
    return text;
  }

  /**
   * The content frame of the visible webview (VS Code nests it: iframe.webview → #active-frame).
   * Waits until `readySelector` exists inside it.
   */
  async webviewFrame(readySelector: string, timeoutMs = WORKBENCH_TIMEOUT_MS): Promise<FrameLocator> {
    const frame = this.page.frameLocator('iframe.webview.ready').last().frameLocator('#active-frame');
    await frame.locator(readySelector).first().waitFor({ state: 'attached', timeout: timeoutMs });
    return frame;
  }

  /**
   * Pixel census of a canvas inside a frame: non-transparent pixels and pixels close
   * (±24 per channel) to `seriesColor` (any CSS colour; resolved in the frame).
   */
  async canvasInk(frame: FrameLocator, selector: string, seriesColor?: string): Promise<CanvasInk> {
    // Browser-side code: the project compiles without the DOM lib, hence the local types.
    interface Ctx2d {
      fillStyle: string;
      fillRect(x: number, y: number, w: number, h: number): void;
      getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
    }
    interface CanvasEl {
      width: number;
      height: number;
      getContext(kind: '2d'): Ctx2d | null;
    }
    return frame.locator(selector).evaluate((el, color) => {
      const canvas = el as unknown as CanvasEl;
      const ctx = canvas.getContext('2d');
      if (!ctx) throw new Error('not a 2d canvas');
      let target: number[] | null = null;
      if (color) {
        const doc = (globalThis as unknown as { document: { createElement(tag: 'canvas'): CanvasEl } }).document;
        const probe = doc.createElement('canvas').getContext('2d')!;
        probe.fillStyle = color;
        probe.fillRect(0, 0, 1, 1);
        target = Array.from(probe.getImageData(0, 0, 1, 1).data.slice(0, 3));
      }
      const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
      let inked = 0;
      let series = 0;
      for (let i = 0; i < data.length; i += 4) {
        if (data[i + 3] === 0) continue;
        inked++;
        if (target && data[i + 3] > 200 && Math.abs(data[i] - target[0]) <= 24 && Math.abs(data[i + 1] - target[1]) <= 24 && Math.abs(data[i + 2] - target[2]) <= 24) series++;
      }
      return { width: canvas.width, height: canvas.height, inked, series };
    }, seriesColor);
  }

  /** Text shown in the bottom panel (Output, Problems ...), non-breaking spaces normalised. */
  async panelText(): Promise<string> {
    return (await this.page.locator('.part.panel').innerText()).replace(/\u00a0/g, ' ');
  }

  /** Name of the channel selected in the Output view ('' when the view is not shown). */
  async selectedOutputChannel(): Promise<string> {
    const select = this.page.locator('.part.panel select.monaco-select-box').first();
    // The channel picker is drawn after the panel's text: wait for it (a missing picker still answers '').
    await select.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS }).catch(() => undefined);
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

/** What a canvas holds: pixels drawn at all, and pixels in the series colour. */
export interface CanvasInk {
  width: number;
  height: number;
  inked: number;
  series: number;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export { startWorkbench, type WorkbenchSession, type WorkbenchSessionOptions } from './workbench-session';
