/**
 * The dashboard webview: accuracy and memory size over tasks, input-vs-output
 * similarity, utility histogram, misaligned records. Assets come from media/ only
 * (nonce CSP, no CDN); data is pushed on core change events, debounced, so it
 * updates live while a task stream runs.
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { errorMessage } from '../../core/errors';
import type { Logger } from '../../core/logger';
import type { AppHost } from '../app-host';
import { debounce } from '../debounce';
import { FromWebview, FromWebviewSchema, ToWebview } from './dashboard-protocol';

const VIEW_TYPE = 'agentMemory.dashboard';
const UPDATE_DELAY_MS = 300;

export class DashboardController implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly pushSoon = debounce(() => void this.push(), UPDATE_DELAY_MS);
  private renderedListeners: ((m: Extract<FromWebview, { type: 'rendered' }>) => void)[] = [];
  /** The last `rendered` report from the webview (charts drawn, tasks plotted). */
  lastRendered: { charts: number; tasks: number } | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly host: AppHost,
    private readonly logger: Logger,
  ) {
    this.disposables.push(host.onDidChange(() => this.panel && this.pushSoon()));
  }

  get isOpen(): boolean {
    return this.panel !== undefined;
  }

  /** Opens (or reveals) the dashboard; resolves once the webview reported its first draw or after 10 s. */
  async open(): Promise<void> {
    await this.host.get();
    if (this.panel) {
      this.panel.reveal();
      await this.push();
      return;
    }
    const media = vscode.Uri.joinPath(this.extensionUri, 'media');
    const dist = vscode.Uri.joinPath(this.extensionUri, 'dist');
    const panel = vscode.window.createWebviewPanel(VIEW_TYPE, 'Agent Memory Dashboard', vscode.ViewColumn.Active, {
      enableScripts: true,
      localResourceRoots: [media, dist],
      retainContextWhenHidden: false,
    });
    this.panel = panel;
    panel.iconPath = vscode.Uri.joinPath(media, 'agent-memory.svg');
    panel.webview.html = this.html(panel.webview, media, dist);
    const firstDraw = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 10_000);
      this.renderedListeners.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
    panel.onDidDispose(() => {
      this.panel = undefined;
      this.lastRendered = undefined;
    }, null, this.disposables);
    panel.webview.onDidReceiveMessage((raw: unknown) => this.receive(raw), null, this.disposables);
    await firstDraw;
  }

  private receive(raw: unknown): void {
    const parsed = FromWebviewSchema.safeParse(raw);
    if (!parsed.success) {
      this.logger.warn(`ignored a malformed message from the dashboard: ${parsed.error.issues[0]?.message ?? ''}`);
      return;
    }
    const message = parsed.data;
    switch (message.type) {
      case 'ready':
      case 'refresh':
        void this.push();
        break;
      case 'openRecord':
        void vscode.commands.executeCommand('agentMemory.openRecord', message.recordId);
        break;
      case 'rendered':
        this.lastRendered = { charts: message.charts, tasks: message.tasks };
        this.logger.debug(`drew ${message.charts} charts over ${message.tasks} tasks`);
        for (const l of this.renderedListeners.splice(0)) l(message);
        break;
    }
  }

  private async push(): Promise<void> {
    const panel = this.panel;
    if (!panel) return;
    let message: ToWebview;
    try {
      const app = await this.host.get();
      message = { type: 'data', data: app.dashboard() };
    } catch (error) {
      this.logger.error(`could not compute the dashboard: ${errorMessage(error)}`);
      message = { type: 'error', message: errorMessage(error) };
    }
    // The panel may have been closed while the data was computed: nothing to draw then.
    if (this.panel !== panel) return;
    try {
      await panel.webview.postMessage(message);
    } catch (error) {
      if (this.panel === panel) this.logger.warn(`could not update the dashboard: ${errorMessage(error)}`);
    }
  }

  private html(webview: vscode.Webview, media: vscode.Uri, dist: vscode.Uri): string {
    const nonce = randomBytes(16).toString('base64');
    // Built by scripts/bundle.mjs from src/vscode/dashboard/webview/dashboard-view.js with Chart.js inlined.
    const script = webview.asWebviewUri(vscode.Uri.joinPath(dist, 'dashboard.js'));
    const style = webview.asWebviewUri(vscode.Uri.joinPath(media, 'dashboard.css'));
    const csp = [`default-src 'none'`, `img-src ${webview.cspSource} data:`, `style-src ${webview.cspSource}`, `script-src 'nonce-${nonce}'`].join('; ');
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link href="${style.toString()}" rel="stylesheet">
<title>Agent Memory Dashboard</title>
</head>
<body>
<header><h1>Agent Memory</h1><span id="counts"></span><button id="refresh" type="button">Refresh</button></header>
<p id="summary"></p>
<p id="error" hidden></p>
<main>
  <section><h2>Accuracy over tasks</h2><div class="chart"><canvas id="accuracy" aria-label="Cumulative accuracy of checked answers by task"></canvas></div></section>
  <section><h2>Ran vs correct over tasks</h2><div class="chart"><canvas id="outcomes" aria-label="Tasks that ran, were correct and were wrong, cumulative"></canvas></div></section>
  <section><h2>Memory size over tasks</h2><div class="chart"><canvas id="size" aria-label="Active records by task"></canvas></div></section>
  <section><h2>Input vs output similarity (experience following)</h2><div class="chart"><canvas id="scatter" aria-label="Input similarity against output similarity per task"></canvas></div></section>
  <section><h2>Utility Φ histogram</h2><div class="chart"><canvas id="histogram" aria-label="Active records by mean utility"></canvas></div></section>
  <section class="wide"><h2>Misaligned experience replay</h2><table id="misaligned"><thead><tr><th>Question</th><th>mean input sim.</th><th>mean output sim.</th><th>retrievals</th></tr></thead><tbody></tbody></table></section>
</main>
<script nonce="${nonce}" src="${script.toString()}"></script>
</body>
</html>`;
  }

  dispose(): void {
    this.pushSoon.dispose();
    this.panel?.dispose();
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
