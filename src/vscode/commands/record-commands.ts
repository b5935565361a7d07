/** Approve / reject / restore / purge / delete records, open a record, diff a task against its demonstration. */
import * as vscode from 'vscode';
import type { AgentMemoryApp } from '../../core/app/types';
import { AgentMemoryError } from '../../core/errors';
import { FLOOR_SETTING } from '../../core/policy/deletion/floor';
import { MemoryRecord, RecordStatus, StatusSchema } from '../../core/memory/types';
import type { Container } from '../container';
import type { TaskRow } from '../../core/memory/sqlite/task-log';
import { readableUri, recordUri } from '../documents';
import { currentVerdictText, loggedOutcomeText, outcomeText, truncate } from '../text/result-text';
import { MAX_ROW_QUESTION, recordVerdict } from '../tree/tree-items';
import { undoLabel } from '../undo';
import { cancelled, confirm, idsFromArgs, NoPromptOptions, optionsFromArgs, pickRecords, registerSafeCommand } from './command-support';

type Transition = 'approve' | 'reject' | 'restore' | 'purge' | 'delete';
const SOURCE: Record<Transition, RecordStatus> = { approve: 'pending', reject: 'pending', restore: 'deleted', purge: 'deleted', delete: 'active' };
const PAST: Record<Transition, string> = { approve: 'approved', reject: 'rejected', restore: 'restored', purge: 'purged', delete: 'deleted' };

/**
 * Ids from the args; from the explorer's selection for a keybinding (`{ fromSelection: true }`:
 * the selected records the operation applies to); else asked for through a QuickPick.
 */
async function targetIds(c: Container, app: AgentMemoryApp, op: Transition, args: unknown[]): Promise<string[]> {
  if (isFromSelection(args[0])) {
    const allowed: RecordStatus[] = op === 'delete' ? ['active', 'pending'] : [SOURCE[op]];
    // The selection's nodes keep the status they were drawn with: read the records' status now
    // (a second Ctrl+Alt+A on a record just approved finds it active, not pending).
    const records = c.treeView.selection.flatMap((n) => (n.kind === 'record' ? [app.get(n.record.id) ?? n.record] : []));
    const selected = records.filter((r) => allowed.includes(r.status)).map((r) => r.id);
    if (selected.length === 0) {
      void c.notices.show('info', `Agent Memory: ${nothingToDo(op, records, allowed)}`, []);
      return cancelled();
    }
    return selected;
  }
  const ids = idsFromArgs(args[0], args[1]);
  return ids.length > 0 ? ids : pickRecords(app, SOURCE[op], `${op[0].toUpperCase()}${op.slice(1)} which records?`);
}

/**
 * The ids the operation still applies to: a record already in the state it leads to (approved
 * twice: Ctrl+Alt+A again, a stale row's ✓) is left out, and when that is all of them the user is
 * told so in words (not the core's refusal naming record ids) and nothing runs.
 */
function notDoneYet(c: Container, app: AgentMemoryApp, op: Transition, ids: string[]): string[] {
  if (op === 'delete' || op === 'purge') return ids;
  const records = ids.flatMap((id) => app.get(id) ?? []);
  const done = new Set(records.filter((r) => r.status === doneStatus(op)).map((r) => r.id));
  if (done.size === 0) return ids;
  if (done.size === ids.length) {
    void c.notices.show('info', `Agent Memory: ${nothingToDo(op, records, [SOURCE[op]])}`, []);
    return cancelled();
  }
  return ids.filter((id) => !done.has(id));
}

function doneStatus(op: Transition): RecordStatus {
  return op === 'approve' || op === 'restore' ? 'active' : 'deleted';
}

/** Why a keybinding on the selection did nothing: `the selected record is already approved`, or what to select. */
function nothingToDo(op: Transition, records: readonly MemoryRecord[], allowed: readonly RecordStatus[]): string {
  const done = doneStatus(op);
  if (op !== 'purge' && records.length > 0 && records.every((r) => r.status === done)) {
    const state = op === 'approve' ? 'approved (active)' : done;
    return `${records.length === 1 ? 'the selected record is' : `the ${records.length} selected records are`} already ${state}: nothing to ${op}.`;
  }
  return `select ${allowed.join(' or ')} records in the explorer first.`;
}

function isFromSelection(arg: unknown): boolean {
  return Boolean(arg) && typeof arg === 'object' && (arg as { fromSelection?: unknown }).fromSelection === true;
}

/** Applies the operation; returns the ids it changed (a deletion may keep some for the memory floor) and the floor's message. */
function apply(app: AgentMemoryApp, op: Transition, ids: string[]): { changed: string[]; floorMessage: string | null } {
  if (op === 'delete') {
    const result = app.deleteRecords(ids, 'deleted by the user');
    return { changed: result.deleted, floorMessage: result.message };
  }
  if (op === 'approve') app.approve(ids);
  else if (op === 'reject') app.reject(ids);
  else if (op === 'restore') app.restore(ids);
  else app.purge(ids);
  return { changed: ids, floorMessage: null };
}

/** The memory floor kept records out of a deletion: say which and why, with the setting one click away. */
export function showFloorMessage(c: Container, message: string): void {
  vscode.window.showWarningMessage(`Agent Memory: ${message}`, FLOOR_SETTING_BUTTON).then(
    (choice) => (choice === FLOOR_SETTING_BUTTON ? vscode.commands.executeCommand('workbench.action.openSettings', FLOOR_SETTING) : undefined),
    (error: unknown) => c.logger.error(`[records] floor notification failed: ${String(error)}`),
  );
}
const FLOOR_SETTING_BUTTON = 'Open Setting';

export const APPROVE_ANYWAY = 'Approve Anyway';
const KEEP_PENDING = 'Keep Pending';

/**
 * Approving a record whose program failed (error, timeout, no answer) asks again, naming the
 * outcomes: once active, agents retrieve it as a demonstration. True when none failed or the
 * user chose Approve Anyway.
 */
async function confirmFailedApproval(c: Container, app: AgentMemoryApp, ids: string[]): Promise<boolean> {
  const failed = ids.map((id) => app.get(id)).filter((r): r is MemoryRecord => r !== undefined && r.execution.outcome !== 'success');
  if (failed.length === 0) return true;
  const outcomes = [...new Set(failed.map((r) => outcomeText(r.execution.outcome)))].join(', ');
  const which = failed.length === 1 ? `"${truncate(failed[0].question, 80)}"` : `${failed.length} of the ${ids.length} records`;
  const message = `Approve ${which}? ${failed.length === 1 ? 'Its program' : 'Their programs'} failed (${outcomes}).`;
  const detail = 'Once approved, agents retrieve it as a demonstration of how to do the task. Enter keeps it pending.';
  // The first button is the Enter-key default: the safe one.
  return (await c.prompts.modal(message, detail, [KEEP_PENDING, APPROVE_ANYWAY])) === APPROVE_ANYWAY;
}

export function registerRecordCommands(c: Container): vscode.Disposable[] {
  const transition = (op: Transition) =>
    registerSafeCommand(c.logger, `agentMemory.${op === 'delete' ? 'deleteRecords' : op}`, (...args) =>
      c.host.withApp(async (app) => {
        const ids = notDoneYet(c, app, op, await targetIds(c, app, op, args));
        const options = optionsFromArgs<NoPromptOptions>(args);
        // Deleting more than 25 % of the active memory asks again, with the count.
        if (op === 'delete' && !options.skipConfirm && !(await c.prompts.confirmLargeDeletion(ids.length, app.counts().active))) return cancelled();
        if (op === 'approve' && !options.skipConfirm && !(await confirmFailedApproval(c, app, ids))) return cancelled();
        if (op === 'purge' && !(await confirm(`Purge ${ids.length} deleted record(s) for good? The audit trail keeps their history; the records cannot be restored.`, 'Purge', options))) return cancelled();
        const { changed, floorMessage } = apply(app, op, ids);
        c.logger.info(`[records] ${PAST[op]} ${changed.length}: ${changed.slice(0, 5).join(', ')}${changed.length > 5 ? ', …' : ''}`);
        if (floorMessage) {
          showFloorMessage(c, floorMessage);
        }
        if (op === 'purge') {
          vscode.window.setStatusBarMessage(`Agent Memory: ${PAST[op]} ${changed.length} record(s)`, 3000);
        } else if (changed.length > 0) {
          c.undo.record({ op, ids: changed });
          offerUndo(c, `${PAST[op]} ${changed.length} record(s)`);
        }
        return changed;
      }),
    );

  return [
    transition('approve'),
    transition('reject'),
    transition('restore'),
    transition('purge'),
    transition('delete'),

    registerSafeCommand(c.logger, 'agentMemory.openRecord', (arg, items, opts) =>
      c.host.withApp(async (app) => {
        const [id] = idsFromArgs(arg, items).length ? idsFromArgs(arg, items) : await pickAnyRecord(app);
        const record = app.get(id);
        if (!record) throw new AgentMemoryError('NOT_FOUND', `No memory record with id '${id}'. It may have been purged; refresh the explorer.`);
        const doc = await vscode.workspace.openTextDocument(recordUri(id, record.execution.language, record.question));
        const preserveFocus = Boolean(opts && typeof opts === 'object' && (opts as { preserveFocus?: unknown }).preserveFocus === true);
        await vscode.window.showTextDocument(doc, { preview: true, preserveFocus });
        return doc.uri.toString();
      }),
    ),

    registerSafeCommand(c.logger, 'agentMemory.diffWithDemonstration', (arg) =>
      c.host.withApp(async (app) => {
        const taskIndex = typeof arg === 'number' ? arg : await pickTask(app);
        const task = app.task(taskIndex);
        if (!task?.code) throw new AgentMemoryError('NOT_FOUND', `Task ${taskIndex} has no code to compare. Run the agent first.`);
        const demoId = followedDemonstration(c, app, taskIndex);
        if (!demoId) throw new AgentMemoryError('NOT_FOUND', `Task ${taskIndex} used no demonstration from memory, so there is nothing to compare it with.`);
        const demo = app.get(demoId);
        if (!demo) throw new AgentMemoryError('NOT_FOUND', `The demonstration ${demoId} of task ${taskIndex} was purged.`);
        const language = task.language === 'javascript' ? 'javascript' : 'python';
        // Code only (no header comment), SQL one clause per line on both sides: the real difference shows.
        await vscode.commands.executeCommand('vscode.diff', readableUri('record', demoId, demo.execution.language), readableUri('task', taskIndex, language), `Demonstration ↔ task ${taskIndex} (SQL laid out)`);
        return { taskIndex, demonstrationId: demoId };
      }),
    ),

    registerSafeCommand(c.logger, 'agentMemory.undo', () =>
      c.host.withApp((app) => {
        const { floorMessage, ...entry } = c.undo.undo(app);
        const text = `undid the ${undoLabel(entry)}`;
        c.logger.info(`[records] ${text}: ${entry.ids.slice(0, 5).join(', ')}`);
        vscode.window.setStatusBarMessage(`Agent Memory: ${text}`, 4000);
        // A notification on top of the (stale) "approved …" one, which VS Code cannot close.
        void vscode.window.showInformationMessage(`Agent Memory: ${text}.`);
        if (floorMessage) {
          showFloorMessage(c, floorMessage);
        }
        return entry;
      }),
    ),

    registerSafeCommand(c.logger, 'agentMemory.loadMore', (status) => {
      const parsed = StatusSchema.safeParse(status);
      if (parsed.success) c.tree.loadMore(parsed.data);
    }),
  ];
}

/**
 * A notification with an Undo action (not awaited: the command finishes at once). VS Code cannot
 * take a notification back: when the change was undone another way (Ctrl+Z) or a newer change
 * came, its Undo says so instead of undoing something else.
 */
export function offerUndo(c: Container, what: string): void {
  const entry = c.undo.peek;
  vscode.window.showInformationMessage(`Agent Memory: ${what}.`, 'Undo').then(
    (choice) => {
      if (choice !== 'Undo') return undefined;
      if (c.undo.peek !== entry) {
        void vscode.window.showInformationMessage(`Agent Memory: "${what}" was already undone or followed by another change; nothing was undone.`);
        return undefined;
      }
      return vscode.commands.executeCommand('agentMemory.undo');
    },
    (error: unknown) => c.logger.error(`[records] undo notification failed: ${String(error)}`),
  );
}

/** The demonstration with the highest input similarity (the one output similarity is measured against). */
function followedDemonstration(c: Container, app: AgentMemoryApp, taskIndex: number): string | undefined {
  const result = c.documents.result(taskIndex);
  if (result && result.demonstrations.length > 0) {
    return [...result.demonstrations].sort((a, b) => (b.inputSimilarity ?? -1) - (a.inputSimilarity ?? -1))[0].recordId;
  }
  const recordId = app.task(taskIndex)?.recordId;
  const fromRecord = recordId ? app.get(recordId)?.execution.demonstrationIds[0] : undefined;
  if (fromRecord) return fromRecord;
  const log = app.task(taskIndex)?.log as { retrieved?: { recordId?: string }[] } | undefined;
  return log?.retrieved?.[0]?.recordId;
}

async function pickAnyRecord(app: AgentMemoryApp): Promise<string[]> {
  const { items } = app.list({ sort: 'recency', limit: 500 });
  const chosen = await vscode.window.showQuickPick(recordPickItems(app, items), { title: 'Open which record?', matchOnDescription: true });
  return chosen ? [chosen.id] : cancelled();
}

async function pickTask(app: AgentMemoryApp): Promise<number> {
  const tasks = app.tasks().filter((t) => t.code).slice(-500).reverse();
  if (tasks.length === 0) throw new AgentMemoryError('NOT_FOUND', 'No task has run yet. Run "Agent Memory: Run Agent on a Question" first.');
  const chosen = await vscode.window.showQuickPick(taskPickItems(app, tasks), { title: 'Diff which task against its demonstration?', matchOnDetail: true });
  return chosen ? chosen.taskIndex : cancelled();
}

/** The Open Record picker's items: question, status, what ran and the verdict (never the raw "success"). */
export function recordPickItems(app: AgentMemoryApp, items: readonly MemoryRecord[]): (vscode.QuickPickItem & { id: string })[] {
  return items.map((r) => ({ label: truncate(r.question, MAX_ROW_QUESTION), description: [r.status, outcomeText(r.execution.outcome), recordVerdict(app, r)].filter(Boolean).join(' · '), id: r.id }));
}

/** The Diff picker's items: one per task, with what ran and whether it was right. */
export function taskPickItems(app: AgentMemoryApp, tasks: readonly TaskRow[]): (vscode.QuickPickItem & { taskIndex: number })[] {
  return tasks.map((t) => ({ label: `Task ${t.taskIndex}`, description: taskPickDescription(app, t), detail: truncate(t.question, MAX_ROW_QUESTION), taskIndex: t.taskIndex }));
}

/** `ran · wrong (gold answer) · approved by you`: what happened and whether it was right (never the raw "success"). */
function taskPickDescription(app: AgentMemoryApp, t: TaskRow): string {
  const status = t.recordId ? app.get(t.recordId)?.status : undefined;
  return `${loggedOutcomeText(t.outcome)} · ${currentVerdictText(t, status)}`;
}
