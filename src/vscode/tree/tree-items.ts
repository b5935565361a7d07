/** Maps core records to tree items: label, description, icon, contextValue, tooltip. */
import * as vscode from 'vscode';
import type { AgentMemoryApp } from '../../core/app/types';
import type { MemoryRecord, RecordStatus } from '../../core/memory/types';
import { isMisaligned as isMisalignedRule } from '../../core/memory/misaligned';
import { lastStatusChangeText } from '../../core/memory/audit-channel';
import type { Settings } from '../settings-schema';
import { evidenceText } from '../text/evidence-text';
import { currentVerdictText, outcomeText, rankText, timesText, truncate, verdictMark } from '../text/result-text';
import { taskVerdict } from '../../core/agent/task-verdict';
import type { TaskVerdict } from '../../core/agent/task-evaluators';
import type { ProposalNode, ProposalsGroupNode } from './review-items';

/** The longest question a list row shows (the rest is cut with an ellipsis; the tooltip has it all). */
export const MAX_ROW_QUESTION = 120;

export type MemoryNode = GroupNode | RecordNode | LoadMoreNode | HintNode | ProposalsGroupNode | ProposalNode;

/** A one-line hint in an empty group (what lands here, and how). */
export interface HintNode {
  kind: 'hint';
  status: RecordStatus;
  text: string;
}

export interface GroupNode {
  kind: 'group';
  status: RecordStatus;
}

export interface RecordNode {
  kind: 'record';
  record: MemoryRecord;
  misaligned: boolean;
  /** The gold answer's (or LLM judge's) verdict on the task that made the record, when one checked it. */
  verdict?: TaskVerdict;
  /** Its program fails on the current data (revalidation): not used as a demonstration. */
  stale?: boolean;
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

/**
 * `correct · Φ0.82 ·6× · merged 3`: the gold verdict of the record's task when a gold answer
 * checked it, mean utility Φ (– before any evaluation: a record's Φ comes from the tasks that
 * retrieved it) and retrieval count, short enough for a narrow sidebar (the tooltip spells
 * everything out). Plain words and ASCII: sidebar fonts lack rarer symbols.
 */
export function recordDescription(record: MemoryRecord, verdict?: TaskVerdict): string {
  const u = record.stats.meanUtility;
  const mark = verdict ? verdictMark(verdict) : '';
  const merged = (record.mergedCount ?? 1) > 1 ? ` · merged ${record.mergedCount}` : '';
  return `${mark ? `${mark} · ` : ''}Φ${u === null ? '–' : u.toFixed(2)} ·${timesText(record.stats.retrievalCount)}${merged}`;
}

/** The task-log verdict of the task that made a record (undefined for seeds and imports). */
export function recordTaskVerdict(app: AgentMemoryApp, record: MemoryRecord): TaskVerdict | undefined {
  const taskIndex = record.metadata?.taskIndex;
  const row = typeof taskIndex === 'number' && record.provenance !== 'seed' ? app.task(taskIndex) : undefined;
  return row ? taskVerdict(row) : undefined;
}

const EMPTY_HINT: Record<RecordStatus, string> = {
  pending: 'Nothing awaits approval. Under the strict policy, the agent\'s answers land here for you to approve.',
  active: 'No active records. Seed the demo memory, approve pending records, or run the agent.',
  deleted: 'Nothing deleted. Deleted records land here and can be restored until purged.',
};

/** The hint shown in an empty group (or a filtered group with no match). */
export function emptyGroupHint(status: RecordStatus, filtered: boolean): HintNode {
  return { kind: 'hint', status, text: filtered ? 'No record matches the filter (Clear Filter in the title bar).' : EMPTY_HINT[status] };
}

export function hintItem(node: HintNode): vscode.TreeItem {
  const item = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
  item.id = `hint:${node.status}`;
  item.iconPath = new vscode.ThemeIcon('info');
  item.tooltip = node.text;
  item.contextValue = 'hint';
  return item;
}

function recordIcon(node: RecordNode): vscode.ThemeIcon {
  if (node.record.status === 'pending') return new vscode.ThemeIcon('clock', new vscode.ThemeColor(node.record.execution.outcome === 'success' ? 'charts.yellow' : 'charts.red'));
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
  const item = new vscode.TreeItem(truncate(record.question, MAX_ROW_QUESTION), vscode.TreeItemCollapsibleState.None);
  item.id = `record:${record.id}`;
  // Short enough to show beside a question at the default sidebar width; the language and the rest are in the tooltip.
  // A pending record says how its program ended first (ran / error / timed out / no answer): approving a failed one asks again.
  const outcome = record.status === 'pending' ? `${outcomeText(record.execution.outcome)} · ` : '';
  item.description = `${outcome}${recordDescription(record, node.verdict)}`;
  item.accessibilityInformation = { label: recordAccessibleLabel(record.question, item.description) };
  item.iconPath = recordIcon(node);
  item.contextValue = recordContextValue(node);
  // A click previews the record and keeps the focus in the tree (keys such as Ctrl+Alt+A act on the selection).
  item.command = { command: 'agentMemory.openRecord', title: 'Open Record', arguments: [record.id, undefined, { preserveFocus: true }] };
  return item;
}

/**
 * What a screen reader says for a record row: the whole question first, then the row's marks.
 * Set explicitly: VS Code otherwise reads a plain-text tooltip instead (a stale row's said only
 * "Stale: …" and lost its question).
 */
export function recordAccessibleLabel(question: string, description: string): string {
  return `${question}, ${description}`;
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
  const model = typeof record.metadata?.model === 'string' ? ` · model ${escape(String(record.metadata.model))}` : '';
  md.appendMarkdown(`${record.status} · ${record.provenance} · ${e.language} · task ${record.createdTask} · execution **${outcomeText(e.outcome)}**${model}\n\n`);
  if ((record.mergedCount ?? 1) > 1) md.appendMarkdown(`Added ${record.mergedCount} times with the same question and code: merged into this one record.\n\n`);
  const verdict = recordVerdict(app, record);
  if (verdict) md.appendMarkdown(`Verdict: **${verdict}**\n\n`);
  if (record.stats.meanUtility === null) md.appendMarkdown('Φ is – until a later task retrieves this record as a demonstration and is checked: Φ scores how much the record helped other tasks, not its own answer.\n\n');
  if (record.status === 'deleted') {
    const why = deletionReason(app, record.id);
    if (why) md.appendMarkdown(`Deleted: ${escape(why)}\n\n`);
  }
  const change = lastStatusChangeText(app.audit(record.id));
  if (change) md.appendMarkdown(`Last status change: ${escape(change)}\n\n`);
  const excerpt = e.code.split('\n').slice(0, 15).join('\n');
  md.appendCodeblock(excerpt + (e.code.split('\n').length > 15 ? '\n…' : ''), e.language);
  md.appendMarkdown(`\nAnswer: \`${(JSON.stringify(e.answer) ?? 'null').slice(0, 200).replace(/`/g, "'")}\`\n\n`);
  const s = record.stats;
  md.appendMarkdown(`Utility: mean Φ ${fmt(s.meanUtility)} over ${s.evaluatedCount} evaluated retrieval(s) · retrieved ${s.retrievalCount} time(s)\n\n`);
  md.appendMarkdown(`Similarity when created: input ${fmt(e.inputSimilarity)} · output ${fmt(e.outputSimilarity)}; as a demonstration: input ${fmt(s.meanInputSimilarity)} · output ${fmt(s.meanOutputSimilarity)}\n\n`);
  if (node.misaligned) md.appendMarkdown('$(warning) **Misaligned experience replay**: retrieved for similar questions, but the generated code diverged from it.\n\n');
  const retrievals = app.retrievalsOf(record.id).slice(0, 5);
  if (retrievals.length > 0) {
    md.appendMarkdown('Last retrievals (rank 1 = the first demonstration):\n\n| task | rank | in | out | Φ |\n|---|---|---|---|---|\n');
    for (const r of retrievals) md.appendMarkdown(`| task ${r.taskIndex} | ${rankText(r.rank)} | ${fmt(r.inputSimilarity)} | ${fmt(r.outputSimilarity)} | ${fmt(r.utility)} |\n`);
  } else {
    md.appendMarkdown('Never retrieved yet.');
  }
  return md;
}

/** Correctness of the task that produced the record (gold / human / judge; one definition: core/agent/task-verdict.ts). */
export function recordVerdict(app: AgentMemoryApp, record: MemoryRecord): string | undefined {
  if (record.provenance === 'seed') return 'gold program (seed record)';
  const taskIndex = record.metadata?.taskIndex;
  const row = typeof taskIndex === 'number' ? app.task(taskIndex) : undefined;
  if (!row) return record.status === 'pending' ? 'awaits your approval' : undefined;
  return currentVerdictText(row, record.status);
}

/** The last delete audit entry, in sentences. */
function deletionReason(app: AgentMemoryApp, id: string): string | undefined {
  const entry = app.audit(id).find((a) => a.operation === 'delete' || a.operation === 'reject'); // newest first: the latest one
  if (!entry) return undefined;
  const ev = entry.evidence as Record<string, number | string | null>;
  if (typeof ev.rule === 'string') return `${entry.reason}. ${evidenceText(ev.rule, ev)}`;
  return `${entry.reason} (${entry.trigger})`;
}

function escape(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>$]/g, (c) => `\\${c}`);
}
