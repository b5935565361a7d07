/**
 * A status-bar item while the memory runs without sqlite-vec (a platform it publishes no binary
 * for, e.g. win32-arm64 or musl): dense retrieval then runs in-process over the stored vectors.
 * The one log line is written by the core when the database opens (native-sqlite.ts).
 */
import * as vscode from 'vscode';
import { vectorExtensionStatus } from '../core/memory/sqlite/native-sqlite';
import type { AppHost } from './app-host';

export class VectorFallbackStatus implements vscode.Disposable {
  readonly item = vscode.window.createStatusBarItem('agentMemory.vectorFallback', vscode.StatusBarAlignment.Left, 48);
  private readonly subscription: vscode.Disposable;

  constructor(host: AppHost) {
    this.item.name = 'Agent Memory vector search';
    this.item.text = '$(info) Memory: in-process vectors';
    this.item.command = { command: 'agentMemory.showLogs', title: 'Show Logs' };
    this.subscription = host.onDidChange(() => this.render());
    this.render();
  }

  /** Shown when the last opened memory has no sqlite-vec; the tooltip says why. */
  render(): void {
    const status = vectorExtensionStatus();
    if (!status || status.loaded) {
      this.item.hide();
      return;
    }
    this.item.tooltip = `sqlite-vec is not available on ${status.target} (${status.reason ?? 'unknown'}): the memory's dense retrieval runs in-process over the stored vectors. Results are the same; large memories search more slowly. Click for the log.`;
    this.item.show();
  }

  dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }
}
