/**
 * The Team Memory view: the space's Pending, Active and Deleted records (newest first,
 * paged), read from the team snapshot (src/core/team/team-snapshot.ts), which the change
 * feed keeps current: another client's approval re-renders the view without a refresh.
 * Inline Approve ✓ / Reject ✗ on pending records and Restore on deleted ones (the personal
 * explorer's icons; package.json menus match `viewItem == team:<status>`).
 */
import * as vscode from 'vscode';
import type { MemoryRecord, RecordStatus } from '../../core/memory/types';
import { RECORD_STATUSES } from '../../core/memory/types';
import { TEAM_URL_SETTING } from '../../core/team/team-config';
import { teamStatusText } from '../../core/team/team-status';
import { truncate } from '../text/result-text';
import { MAX_ROW_QUESTION, recordDescription } from '../tree/tree-items';
import type { TeamMode } from './team-mode';

export const TEAM_VIEW_ID = 'agentMemory.teamExplorer';

export type TeamNode =
  | { kind: 'teamMessage'; text: string; tooltip: string; command?: vscode.Command }
  | { kind: 'teamGroup'; status: RecordStatus }
  | { kind: 'teamRecord'; record: MemoryRecord }
  | { kind: 'teamMore'; status: RecordStatus; remaining: number };

const GROUP_LABEL: Record<RecordStatus, string> = { pending: 'Pending', active: 'Active', deleted: 'Deleted' };
const GROUP_ICON: Record<RecordStatus, string> = { pending: 'clock', active: 'database', deleted: 'trash' };

export class TeamTreeProvider implements vscode.TreeDataProvider<TeamNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<TeamNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly team: TeamMode) {
    this.subscription = team.onDidChange(() => this.changed.fire(undefined));
  }

  refresh(): void {
    this.changed.fire(undefined);
  }

  getChildren(node?: TeamNode): TeamNode[] {
    const data = this.team.snapshot?.current;
    if (!node) {
      const message = this.message(data !== undefined);
      const groups: TeamNode[] = data ? RECORD_STATUSES.map((status) => ({ kind: 'teamGroup', status })) : [];
      return message ? [message, ...groups] : groups;
    }
    if (node.kind !== 'teamGroup' || !data) return [];
    const records = data.records[node.status];
    const children: TeamNode[] = records.map((record) => ({ kind: 'teamRecord', record }));
    const remaining = data.counts[node.status] - records.length;
    if (remaining > 0) children.push({ kind: 'teamMore', status: node.status, remaining });
    return children;
  }

  getParent(node: TeamNode): TeamNode | undefined {
    if (node.kind === 'teamRecord') return { kind: 'teamGroup', status: node.record.status };
    if (node.kind === 'teamMore') return { kind: 'teamGroup', status: node.status };
    return undefined;
  }

  /** A line above the groups when the view cannot show the space as it is now (off, misconfigured, not connected). */
  private message(hasData: boolean): TeamNode | undefined {
    const config = this.team.config;
    if (config.kind === 'off') return { kind: 'teamMessage', text: `Set ${TEAM_URL_SETTING} to share a memory with your team.`, tooltip: 'See docs/team-memory.md' };
    if (config.kind === 'invalid') return { kind: 'teamMessage', text: config.message, tooltip: config.message };
    const state = this.team.state;
    if (!state || (state.kind === 'connected' && hasData)) return undefined;
    const words = teamStatusText(config.space, config.host, state);
    const command = state.kind === 'password-needed' ? { command: 'agentMemory.setTeamPassword', title: 'Set Team Memory Password' } : undefined;
    return { kind: 'teamMessage', text: words.text + (hasData ? ' (showing the last records read)' : ''), tooltip: words.tooltip, command };
  }

  getTreeItem(node: TeamNode): vscode.TreeItem {
    switch (node.kind) {
      case 'teamMessage': {
        const item = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
        item.iconPath = new vscode.ThemeIcon('info');
        item.tooltip = node.tooltip;
        item.contextValue = 'team:message';
        item.command = node.command;
        return item;
      }
      case 'teamGroup': {
        const count = this.team.snapshot?.current?.counts[node.status] ?? 0;
        const expanded = node.status !== 'deleted' && count > 0;
        const item = new vscode.TreeItem(GROUP_LABEL[node.status], expanded ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `team-group:${node.status}`;
        item.description = String(count);
        item.iconPath = new vscode.ThemeIcon(GROUP_ICON[node.status]);
        item.contextValue = `team-group:${node.status}`;
        return item;
      }
      case 'teamMore': {
        const item = new vscode.TreeItem(`Load more… (${node.remaining} left)`, vscode.TreeItemCollapsibleState.None);
        item.id = `team-more:${node.status}`;
        item.iconPath = new vscode.ThemeIcon('ellipsis');
        item.contextValue = 'team:loadMore';
        item.command = { command: 'agentMemory.loadMoreTeam', title: 'Load More', arguments: [node.status] };
        return item;
      }
      case 'teamRecord':
        return teamRecordItem(node.record);
    }
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}

function teamRecordItem(record: MemoryRecord): vscode.TreeItem {
  const item = new vscode.TreeItem(truncate(record.question, MAX_ROW_QUESTION), vscode.TreeItemCollapsibleState.None);
  item.id = `team-record:${record.id}`;
  const by = typeof record.metadata?.client === 'string' ? ` · ${record.metadata.client}` : '';
  item.description = `${recordDescription(record)} · ${record.execution.language}${by}`;
  item.iconPath =
    record.status === 'pending'
      ? new vscode.ThemeIcon('clock', new vscode.ThemeColor('charts.yellow'))
      : record.status === 'deleted'
        ? new vscode.ThemeIcon('trash', new vscode.ThemeColor('disabledForeground'))
        : new vscode.ThemeIcon('pass', new vscode.ThemeColor('charts.green'));
  item.contextValue = `team:${record.status}`;
  const md = new vscode.MarkdownString();
  md.appendText(`${record.question}\n\n${record.status} · ${record.provenance} · added ${record.createdAt}\n\n`);
  md.appendCodeblock(record.execution.code.split('\n').slice(0, 15).join('\n'), record.execution.language);
  item.tooltip = md;
  item.command = { command: 'agentMemory.openTeamRecord', title: 'Open Team Record', arguments: [record.id] };
  return item;
}
