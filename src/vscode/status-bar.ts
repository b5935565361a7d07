/** Status bar: `$(database) 123 · $(clock) 4 pending`; a click focuses the explorer. */
import * as vscode from 'vscode';
import type { AppHost } from './app-host';
import { debounce } from './debounce';

export class MemoryStatusBar implements vscode.Disposable {
  readonly item: vscode.StatusBarItem;
  private readonly update = debounce(() => this.render(), 200);
  private readonly subscriptions: vscode.Disposable[];

  /**
   * `onDidRefresh`: the explorer re-read the memory (Refresh Explorer, or another process such
   * as an MCP server wrote the database file): the counts are read again too.
   */
  constructor(private readonly host: AppHost, explorerViewId: string, onDidRefresh: vscode.Event<unknown>) {
    this.item = vscode.window.createStatusBarItem('agentMemory.status', vscode.StatusBarAlignment.Left, 50);
    this.item.name = 'Agent Memory';
    this.item.command = { command: `${explorerViewId}.focus`, title: 'Show the Agent Memory explorer' };
    this.subscriptions = [host.onDidChange(() => this.update()), onDidRefresh(() => this.update())];
    this.render();
    this.item.show();
  }

  /** The current text (exposed for tests). */
  get text(): string {
    return this.item.text;
  }

  render(): void {
    const app = this.host.current;
    if (!app) {
      // Before first use the database is not open: do not open it just for the counts.
      this.item.text = '$(database) Agent Memory';
      this.item.tooltip = 'Agent Memory: open the explorer to load the memory';
      return;
    }
    const c = app.counts();
    this.item.text = `$(database) ${c.active} · $(clock) ${c.pending} pending`;
    this.item.tooltip = `Agent Memory: ${c.active} active records, ${c.pending} awaiting approval, ${c.deleted} deleted. Click to open the explorer.`;
  }

  dispose(): void {
    this.update.dispose();
    for (const s of this.subscriptions) s.dispose();
    this.item.dispose();
  }
}
