/** Status bar item of the team memory: `Team memory: <space> · connected / unreachable (host) / password needed`; hidden while team mode is off. */
import * as vscode from 'vscode';
import { teamStatusText } from '../../core/team/team-status';
import type { TeamMode } from './team-mode';
import { TEAM_VIEW_ID } from './team-tree';

const ICON: Record<string, string> = { connected: '$(organization)', connecting: '$(sync~spin)', unreachable: '$(debug-disconnect)', 'password-needed': '$(key)', failed: '$(error)', closed: '$(circle-slash)' };

export class TeamStatusBar implements vscode.Disposable {
  readonly item: vscode.StatusBarItem;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly team: TeamMode) {
    this.item = vscode.window.createStatusBarItem('agentMemory.teamStatus', vscode.StatusBarAlignment.Left, 49);
    this.item.name = 'Agent Memory: Team';
    this.subscription = team.onDidChange(() => this.render());
    this.render();
  }

  /** The text without its icon (tests read it). */
  get text(): string {
    return this.item.text.replace(/^\$\([^)]+\)\s*/, '');
  }

  render(): void {
    const config = this.team.config;
    if (config.kind === 'off') {
      this.item.hide();
      return;
    }
    if (config.kind === 'invalid') {
      this.item.text = '$(error) Team memory: setting refused';
      this.item.tooltip = config.message;
      this.item.command = { command: 'workbench.action.openSettings', title: 'Open the setting', arguments: ['agentMemory.team'] };
      this.item.show();
      return;
    }
    const state = this.team.state ?? { kind: 'connecting' as const, message: 'connecting…' };
    const words = teamStatusText(config.space, config.host, state, this.team.snapshot?.current?.counts, this.team.session?.level);
    this.item.text = `${ICON[state.kind] ?? ''} ${words.text}`;
    this.item.tooltip = words.tooltip;
    this.item.command = state.kind === 'password-needed' ? { command: 'agentMemory.setTeamPassword', title: 'Set Team Memory Password' } : { command: `${TEAM_VIEW_ID}.focus`, title: 'Show the Team Memory view' };
    this.item.backgroundColor = state.kind === 'unreachable' || state.kind === 'password-needed' || state.kind === 'failed' ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.show();
  }

  dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }
}
