/**
 * What the user reviews: proposed deletions (confirm or keep, one at a time from the
 * explorer's inline actions or all at once from the group), and revalidation of the
 * records' programs against the agent's database (command with progress and cancel).
 */
import * as vscode from 'vscode';
import { revalidationText } from '../text/revalidation-text';
import type { AgentMemoryApp } from '../../core/app/types';
import type { Container } from '../container';
import { cancelled, confirm, NoPromptOptions, optionsFromArgs, registerSafeCommand } from './command-support';

/** Proposal ids from a tree node (`kind: 'proposal'`), ids, or the explorer's selection. */
function proposalIds(c: Container, args: unknown[]): string[] {
  const fromOne = (x: unknown): string[] => {
    if (typeof x === 'string') return [x];
    if (Array.isArray(x)) return x.flatMap(fromOne);
    if (x && typeof x === 'object' && (x as { kind?: unknown }).kind === 'proposal') return [(x as { proposal: { recordId: string } }).proposal.recordId];
    return [];
  };
  const many = fromOne(args[1]);
  const ids = many.length > 0 ? many : fromOne(args[0]);
  if (ids.length > 0) return [...new Set(ids)];
  return c.treeView.selection.flatMap((n) => (n.kind === 'proposal' ? [n.proposal.recordId] : []));
}

async function confirmDeletions(c: Container, app: AgentMemoryApp, ids: string[], options: NoPromptOptions): Promise<string[]> {
  if (ids.length === 0) return cancelled();
  if (!options.skipConfirm) {
    const active = app.counts().active;
    // More than 25 % asks again with the count, its default (Enter) keeping them; else one plain confirmation for a batch.
    if (!(await c.prompts.confirmLargeDeletion(ids.length, active))) return cancelled();
    if (ids.length > 1 && ids.length * 4 <= active && !(await confirm(`Delete the ${ids.length} proposed record(s)? They stay restorable until purged.`, 'Delete', options))) return cancelled();
  }
  const result = app.confirmDeletions(ids);
  const withdrawn = result.withdrawn.length > 0 ? `; ${result.withdrawn.length} withdrawn, as their records were retrieved after they were proposed (not deleted)` : '';
  c.logger.info(`[review] confirmed ${result.deleted.length} proposed deletion(s)${result.floorKept.length ? `; the memory floor kept ${result.floorKept.length}` : ''}${withdrawn}`);
  if (withdrawn && result.deleted.length === 0) void vscode.window.showInformationMessage(`Agent Memory: nothing deleted: the ${result.withdrawn.length} proposal(s) were withdrawn, as their records were retrieved after they were proposed.`);
  if (result.deleted.length > 0) {
    c.undo.record({ op: 'delete', ids: result.deleted });
    void vscode.window.showInformationMessage(`Agent Memory: deleted ${result.deleted.length} proposed record(s)${withdrawn}.`, 'Undo').then(
      (choice) => (choice ? vscode.commands.executeCommand('agentMemory.undo') : undefined),
      () => undefined,
    );
  }
  return result.deleted;
}

function keep(c: Container, app: AgentMemoryApp, ids: string[]): string[] {
  if (ids.length === 0) return cancelled();
  const kept = app.keepRecords(ids);
  c.logger.info(`[review] kept ${kept.length} record(s) for one period`);
  vscode.window.setStatusBarMessage(`Agent Memory: kept ${kept.length} record(s); not proposed again for one period`, 4000);
  return kept;
}

export function registerReviewCommands(c: Container): vscode.Disposable[] {
  return [
    registerSafeCommand(c.logger, 'agentMemory.confirmDeletion', (...args) => c.host.withApp((app) => confirmDeletions(c, app, proposalIds(c, args), optionsFromArgs<NoPromptOptions>(args)))),
    registerSafeCommand(c.logger, 'agentMemory.keepRecord', (...args) => c.host.withApp(async (app) => keep(c, app, proposalIds(c, args)))),
    registerSafeCommand(c.logger, 'agentMemory.confirmAllDeletions', (...args) =>
      c.host.withApp((app) => confirmDeletions(c, app, app.proposedDeletions().map((p) => p.recordId), optionsFromArgs<NoPromptOptions>(args))),
    ),
    registerSafeCommand(c.logger, 'agentMemory.keepAllDeletions', () => c.host.withApp(async (app) => keep(c, app, app.proposedDeletions().map((p) => p.recordId)))),
    registerSafeCommand(c.logger, 'agentMemory.revalidate', () => c.host.withApp((app) => revalidateWithProgress(c, app, false))),
  ];
}

/** Re-runs the programs in a cancellable progress notification; reports the outcome in one message. */
export async function revalidateWithProgress(c: Container, app: AgentMemoryApp, onlyIfChanged: boolean) {
  const report = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'Agent Memory: revalidating the records\' programs', cancellable: true },
    async (progress, token) => {
      const controller = new AbortController();
      const sub = token.onCancellationRequested(() => controller.abort());
      let last = 0;
      try {
        return await app.revalidate({
          signal: controller.signal,
          onlyIfChanged,
          onProgress: (done, total) => {
            progress.report({ message: `${done} of ${total}`, increment: total > 0 ? ((done - last) * 100) / total : 0 });
            last = done;
          },
        });
      } finally {
        sub.dispose();
      }
    },
  );
  const text = revalidationText(report);
  c.logger.info(`[revalidate] ${text}`);
  // A notification (it stays in the notification center), not a status-bar message that vanishes.
  if (report.failing > 0) void c.notices.warn(`Agent Memory: revalidation ${text}. Stale records are not used as demonstrations until approved again or re-run clean.`);
  else if (!onlyIfChanged || report.recovered > 0) void c.notices.info(`Agent Memory: revalidation ${text}.`);
  else vscode.window.setStatusBarMessage(`Agent Memory: revalidation after the data changed ${text}`, 5000);
  return report;
}
