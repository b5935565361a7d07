/**
 * Shared plumbing for commands: error handling with a "Show Logs" action, record-id
 * resolution from tree items / ids / palette, QuickPick pickers, the trust gate.
 */
import * as vscode from 'vscode';
import type { AgentMemoryApp } from '../../core/app/types';
import { AgentMemoryError, errorMessage } from '../../core/errors';
import type { Logger } from '../../core/logger';
import type { RecordStatus } from '../../core/memory/types';
import { outcomeText, timesText, truncate } from '../text/result-text';
import { MAX_ROW_QUESTION, recordVerdict, type MemoryNode } from '../tree/tree-items';

/** Options any command accepts as its last argument (tests pass them to skip prompts). */
export interface NoPromptOptions {
  /** Skip confirmation modals (the caller already confirmed). */
  skipConfirm?: boolean;
}

/**
 * Registers a command whose failures are logged and shown with a "Show Logs"
 * action instead of surfacing as an unhandled rejection.
 */
export function registerSafeCommand(logger: Logger, id: string, handler: (...args: unknown[]) => unknown): vscode.Disposable {
  return vscode.commands.registerCommand(id, async (...args: unknown[]) => {
    try {
      return await handler(...args);
    } catch (error) {
      if (error instanceof AgentMemoryError && error.code === 'CANCELLED') {
        logger.info(`[${id}] cancelled`);
        return undefined;
      }
      // A typed error already says what went wrong and what to do (a user mistake, a bad file): no stack trace.
      // Anything else is a bug: its stack goes to the log.
      logger.error(`[${id}] ${error instanceof AgentMemoryError ? error.message : error instanceof Error ? error.stack ?? error.message : String(error)}`);
      showError(errorMessage(error));
      return undefined;
    }
  });
}

function showError(message: string): void {
  vscode.window.showErrorMessage(`Agent Memory: ${message}`, 'Show Logs').then(
    (choice) => (choice ? vscode.commands.executeCommand('agentMemory.showLogs') : undefined),
    () => undefined,
  );
}

/** Cancels the command quietly (user dismissed a prompt). */
export function cancelled(): never {
  throw new AgentMemoryError('CANCELLED', 'Cancelled by the user.');
}

/**
 * Record ids from whatever the command got: a tree node plus the multi-selection
 * (`(item, items[])`), an id, an array of ids, or a node array.
 */
export function idsFromArgs(arg: unknown, items: unknown): string[] {
  const fromOne = (x: unknown): string[] => {
    if (typeof x === 'string') return [x];
    if (Array.isArray(x)) return x.flatMap(fromOne);
    if (x && typeof x === 'object' && (x as MemoryNode).kind === 'record') return [(x as { record: { id: string } }).record.id];
    return [];
  };
  const many = fromOne(items);
  return [...new Set(many.length > 0 ? many : fromOne(arg))];
}

/** The last argument when it is an options object (not a tree node or id list). */
export function optionsFromArgs<T extends object>(args: unknown[]): Partial<T> {
  const last = args[args.length - 1];
  if (last && typeof last === 'object' && !Array.isArray(last) && !('kind' in last)) return last;
  return {};
}

/** QuickPick of records in one status (newest first); empty status → an information message. */
export async function pickRecords(app: AgentMemoryApp, status: RecordStatus, title: string, many = true): Promise<string[]> {
  const { items, total } = app.list({ status, sort: 'recency', limit: 500 });
  if (items.length === 0) {
    void vscode.window.showInformationMessage(`Agent Memory: no ${status} records.`);
    return cancelled();
  }
  const picks = items.map((r) => ({
    label: truncate(r.question, MAX_ROW_QUESTION),
    description: [`Φ ${r.stats.meanUtility?.toFixed(2) ?? '–'} · ${timesText(r.stats.retrievalCount)}`, outcomeText(r.execution.outcome), recordVerdict(app, r)].filter(Boolean).join(' · '),
    detail: r.execution.code.split('\n')[0],
    id: r.id,
  }));
  const chosen = await vscode.window.showQuickPick(picks, {
    title: total > items.length ? `${title} (newest 500 of ${total})` : title,
    canPickMany: many,
    matchOnDescription: true,
    matchOnDetail: true,
  });
  const list = chosen === undefined ? [] : Array.isArray(chosen) ? chosen : [chosen];
  if (list.length === 0) return cancelled();
  return list.map((p) => p.id);
}

/** Refuses to run agent code in an untrusted workspace (restricted mode). */
export function requireTrust(): void {
  if (!vscode.workspace.isTrusted) {
    throw new AgentMemoryError('CONFIG', 'Running agent-generated code is disabled in untrusted workspaces. Trust this workspace (Workspaces: Manage Workspace Trust) to run the agent.');
  }
}

/** A modal confirmation; resolves false when dismissed. */
export async function confirm(message: string, action: string, options: NoPromptOptions): Promise<boolean> {
  if (options.skipConfirm) return true;
  return (await vscode.window.showWarningMessage(message, { modal: true }, action)) === action;
}

/**
 * QuickPick items with the current choice first and marked "$(check) … (current)", so the
 * picker opens on it (VS Code highlights the first item; `picked` only applies to multi-select).
 */
export function markCurrent<T extends { key: string; label: string; description?: string }>(items: readonly T[], current: string): (T & vscode.QuickPickItem)[] {
  const sorted = [...items].sort((a, b) => Number(b.key === current) - Number(a.key === current));
  return sorted.map((item) => (item.key === current ? { ...item, label: `$(check) ${item.label}`, description: `${item.description ? `${item.description} · ` : ''}current` } : item));
}
