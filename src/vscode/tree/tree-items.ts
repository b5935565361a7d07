/** Maps core records to tree items: label, description, icon, contextValue, tooltip. */
import * as vscode from 'vscode';
import type { AgentMemoryApp } from '../../core/app/types';
import type { MemoryRecord, RecordStatus } from '../../core/memory/types';
import { isMisaligned as isMisalignedRule } from '../../core/memory/misaligned';
import type { Settings } from '../settings-schema';

export type MemoryNode = GroupNode | RecordNode | LoadMoreNode;

export interface GroupNode {
  kind: 'group';
  status: RecordStatus;
}

export interface RecordNode {
  kind: 'record';
  record: MemoryRecord;
  misaligned: boolean;
}

export interface LoadMoreNode {
  kind: 'loadMore';
  status: RecordStatus;
  remaining: number;
}

const GROUP_LABEL: Record<RecordStatus, string> = { pending: 'Pending', active: 'Active', deleted: 'Deleted' };
const GROUP_ICON: Record<RecordStatus, string> = { pending: 'clock', active: 'database', deleted: 'trash' };

/** True when a record's retrievals show high input but low output similarity (the one rule of core/memory/misaligned.ts). */
export function isMisaligned(record: MemoryRecord, thresholds: Settings['misaligned']): boolean {
  return isMisalignedRule(record.stats, thresholds);
}

/** `memory:<status>[:misaligned]`, matched by menus with `viewItem =~ /^memory:pending/`. */
export function recordContextValue(node: RecordNode): string {
  return `memory:${node.record.status}${node.misaligned ? ':misaligned' : ''}`;
}

/** `U 0.82 · R 6`: mean utility Φ (– before any evaluation) and retrieval count. */
export function recordDescription(record: MemoryRecord): string {
  const u = record.stats.meanUtility;
  return `U ${u === null ? '–' : u.toFixed(2)} · R ${record.stats.retrievalCount}`;
}

function recordIcon(node: RecordNode): vscode.ThemeIcon {
  if (node.record.status === 'pending') return new vscode.ThemeIcon('clock', new vscode.ThemeColor('charts.yellow'));
  if (node.record.status === 'deleted') return new vscode.ThemeIcon('trash', new vscode.ThemeColor('disabledForeground'));
  if (node.misaligned) return new vscode.ThemeIcon('warning', new vscode.ThemeColor('charts.orange'));
  if (node.record.execution.outcome !== 'success') return new vscode.ThemeIcon('error', new vscode.ThemeColor('charts.red'));
  return new vscode.ThemeIcon('pass', new vscode.ThemeColor('charts.green'));
}

export function groupItem(status: RecordStatus, count: number, matching: number | undefined): vscode.TreeItem {
  const item = new vscode.TreeItem(GROUP_LABEL[status], status === 'deleted' || count === 0 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.Expanded);
  item.id = `group:${status}`;
  item.description = matching === undefined || matching === count ? String(count) : `${matching} of ${count}`;
  item.iconPath = new vscode.ThemeIcon(GROUP_ICON[status]);
  item.contextValue = `group:${status}`;
  return item;
}

export function recordItem(node: RecordNode): vscode.TreeItem {
  const { record } = node;
  const item = new vscode.TreeItem(record.question.length > 120 ? `${record.question.slice(0, 117)}…` : record.question, vscode.TreeItemCollapsibleState.None);
  item.id = `record:${record.id}`;
  item.description = `${recordDescription(record)} · ${record.execution.language}`;
  item.iconPath = recordIcon(node);
  item.contextValue = recordContextValue(node);
  item.command = { command: 'agentMemory.openRecord', title: 'Open Record', arguments: [record.id] };
  return item;
}

export function loadMoreItem(node: LoadMoreNode, pageSize: number): vscode.TreeItem {
  const item = new vscode.TreeItem(`Load more… (${node.remaining} left)`, vscode.TreeItemCollapsibleState.None);
  item.id = `loadMore:${node.status}`;
  item.iconPath = new vscode.ThemeIcon('ellipsis');
  item.contextValue = 'loadMore';
  item.tooltip = `Show the next ${Math.min(pageSize, node.remaining)} records`;
  item.command = { command: 'agentMemory.loadMore', title: 'Load More', arguments: [node.status] };
  return item;
}

const fmt = (n: number | null | undefined, digits = 2) => (n === null || n === undefined ? '–' : n.toFixed(digits));

/** The evidence tooltip; built lazily (resolveTreeItem) because it reads the retrieval log. */
export function recordTooltip(node: RecordNode, app: AgentMemoryApp): vscode.MarkdownString {
  const { record } = node;
  const e = record.execution;
  const md = new vscode.MarkdownString(undefined, true);
  md.appendMarkdown(`**${escape(record.question)}**\n\n`);
  md.appendMarkdown(`${record.status} · ${record.provenance} · task ${record.createdTask} · outcome **${e.outcome}**\n\n`);
  const excerpt = e.code.split('\n').slice(0, 15).join('\n');
  md.appendCodeblock(excerpt + (e.code.split('\n').length > 15 ? '\n…' : ''), e.language);
  md.appendMarkdown(`\nAnswer: \`${(JSON.stringify(e.answer) ?? 'null').slice(0, 200).replace(/`/g, "'")}\`\n\n`);
  const s = record.stats;
  md.appendMarkdown(`Utility Φ ${fmt(s.meanUtility)} over ${s.evaluatedCount} evaluated · retrieved ${s.retrievalCount}×\n\n`);
  md.appendMarkdown(`Similarity when created: input ${fmt(e.inputSimilarity)} · output ${fmt(e.outputSimilarity)}; as a demonstration: input ${fmt(s.meanInputSimilarity)} · output ${fmt(s.meanOutputSimilarity)}\n\n`);
  if (node.misaligned) md.appendMarkdown('$(warning) **Misaligned experience replay**: retrieved for similar questions, but the generated code diverged from it.\n\n');
  const retrievals = app.retrievalsOf(record.id).slice(0, 5);
  if (retrievals.length > 0) {
    md.appendMarkdown('Last retrievals:\n\n| task | rank | in | out | Φ |\n|---|---|---|---|---|\n');
    for (const r of retrievals) md.appendMarkdown(`| ${r.taskIndex} | ${r.rank} | ${fmt(r.inputSimilarity)} | ${fmt(r.outputSimilarity)} | ${fmt(r.utility)} |\n`);
  } else {
    md.appendMarkdown('Never retrieved yet.');
  }
  return md;
}

function escape(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>$]/g, (c) => `\\${c}`);
}
