/**
 * The settings problems in force, in one status-bar item that stays while a problem does and
 * goes when it is fixed. VS Code cannot close a notification, so the toast that first said it
 * is shown once per problem; this item is the state, cleared when the setting becomes valid.
 */
import * as vscode from 'vscode';

/** Who reported the problems: the settings schema, or the database path guard. */
export type ProblemSource = 'settings' | 'databasePath';

export class SettingProblemsStatus implements vscode.Disposable {
  readonly item = vscode.window.createStatusBarItem('agentMemory.settingProblems', vscode.StatusBarAlignment.Left, 51);
  private readonly bySource = new Map<ProblemSource, readonly string[]>();

  constructor() {
    this.item.name = 'Agent Memory settings';
    this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
  }

  /** Replaces the problems `source` reports (an empty list: fixed). */
  set(source: ProblemSource, problems: readonly string[]): void {
    if (problems.length === 0) this.bySource.delete(source);
    else this.bySource.set(source, problems);
    this.render();
  }

  /** Every problem in force (exposed for tests). */
  get problems(): string[] {
    return [...this.bySource.values()].flat();
  }

  /** Whether the item is shown (exposed for tests). */
  get visible(): boolean {
    return this.problems.length > 0;
  }

  private render(): void {
    const problems = this.problems;
    if (problems.length === 0) {
      this.item.hide();
      return;
    }
    this.item.text = `$(warning) Agent Memory: ${problems.length === 1 ? 'a setting is' : `${problems.length} settings are`} invalid`;
    this.item.tooltip = `${problems.join('\n')}\n\nClick to open the setting. This item goes away once it is fixed.`;
    this.item.command = { command: 'workbench.action.openSettings', title: 'Open the setting', arguments: [settingKeyOf(problems[0])] };
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
  }
}

/** `agentMemory.retrieval.k` from a problem that names its setting first; else the whole section. */
export function settingKeyOf(problem: string): string {
  return /^agentMemory\.[\w.]+/.exec(problem)?.[0] ?? 'agentMemory';
}
