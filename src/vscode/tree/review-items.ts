/**
 * Explorer items for what the user reviews: the "Proposed deletions" group (an
 * automatic rule's candidates under agentMemory.deletion.review = propose, each with
 * its reason in sentences and inline Confirm / Keep) and the stale mark of a record
 * whose program fails on the current data (see src/core/revalidation).
 */
import * as vscode from 'vscode';
import type { CheckRow, ProposalRow } from '../../core/app/types';
import { evidenceText } from '../text/evidence-text';
import { recordAccessibleLabel } from './tree-items';

const STALE = 'stale · ';

export const PROPOSALS_GROUP_ID = 'group:proposals';

export interface ProposalsGroupNode {
  kind: 'proposals';
}

export interface ProposalNode {
  kind: 'proposal';
  proposal: ProposalRow;
}

export function proposalsGroupItem(count: number): vscode.TreeItem {
  const item = new vscode.TreeItem('Proposed deletions', vscode.TreeItemCollapsibleState.Expanded);
  item.id = PROPOSALS_GROUP_ID;
  item.description = String(count);
  item.iconPath = new vscode.ThemeIcon('question', new vscode.ThemeColor('charts.orange'));
  item.tooltip = 'An automatic deletion rule proposes these records. Nothing is deleted until you confirm; a record you keep is exempt for one period.';
  item.contextValue = 'group:proposals';
  return item;
}

/** The reason of a proposal in sentences (the same text as the deletion preview). */
export function proposalReason(p: ProposalRow): string {
  return evidenceText(p.rule, p.evidence);
}

export function proposalItem(node: ProposalNode): vscode.TreeItem {
  const p = node.proposal;
  const item = new vscode.TreeItem(p.question.length > 120 ? `${p.question.slice(0, 117)}…` : p.question, vscode.TreeItemCollapsibleState.None);
  item.id = `proposal:${p.recordId}`;
  item.description = `${p.policy} · task ${p.taskIndex}`;
  item.iconPath = new vscode.ThemeIcon('trash', new vscode.ThemeColor('charts.orange'));
  const md = new vscode.MarkdownString();
  md.appendText(`${p.question}\n\nProposed by the ${p.policy} rule at task ${p.taskIndex}: ${proposalReason(p)}\n\nConfirm deletes it (restorable until purged); Keep exempts it for one period.`);
  item.tooltip = md;
  item.contextValue = 'memory:proposal';
  item.command = { command: 'agentMemory.openRecord', title: 'Open Record', arguments: [p.recordId, undefined, { preserveFocus: true }] };
  return item;
}

/**
 * Marks a record item stale: a warning icon, "stale" first in its description, `:stale` in its context
 * value, and an accessible label that starts with the whole `question`.
 */
export function markStale(item: vscode.TreeItem, check: CheckRow | undefined, question: string): vscode.TreeItem {
  item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('charts.red'));
  const description = typeof item.description === 'string' ? item.description : '';
  // Marked once: resolveTreeItem marks the item getTreeItem already marked.
  if (!description.startsWith(STALE)) item.description = `${STALE}${description}`;
  if (!String(item.contextValue).endsWith(':stale')) item.contextValue = `${item.contextValue ?? 'memory:active'}:stale`;
  const why = check?.error ? ` (${check.error})` : '';
  const tip = `Stale: its program now fails on the agent's database${why}. It is not used as a demonstration until you approve it again or a revalidation runs it clean.`;
  // The question stays first in what a screen reader says (a plain-text tooltip would replace it).
  item.accessibilityInformation = { label: recordAccessibleLabel(question, `${item.description as string}. ${tip}`) };
  item.tooltip = item.tooltip instanceof vscode.MarkdownString ? item.tooltip.appendMarkdown(`\n\n$(warning) ${tip}`) : tip;
  return item;
}
