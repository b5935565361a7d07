/** A persistent status-bar warning while generated Python runs unconfined (`agentMemory.runner.isolation: "none"`). */
import * as vscode from 'vscode';
import type { Settings } from './settings-schema';

export class IsolationWarning implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('agentMemory.isolation', vscode.StatusBarAlignment.Left, 49);
  private readonly subscription: vscode.Disposable;

  constructor(settings: { readonly value: Settings; onDidChange(listener: (s: Settings) => void): vscode.Disposable }) {
    this.item.name = 'Agent Memory sandbox';
    this.item.text = '$(warning) Python unsandboxed';
    this.item.tooltip = 'agentMemory.runner.isolation is "none": generated Python runs without a sandbox and can read your files, environment and network. Click to change it.';
    this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
    this.item.command = { command: 'workbench.action.openSettings', title: 'Open the setting', arguments: ['agentMemory.runner.isolation'] };
    this.subscription = settings.onDidChange((s) => this.render(s));
    this.render(settings.value);
  }

  private render(settings: Settings): void {
    if (settings.runner.isolation === 'none') this.item.show();
    else this.item.hide();
  }

  dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }
}
