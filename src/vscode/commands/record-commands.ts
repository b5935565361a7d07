/** Approve / reject / restore / purge / delete records, open a record, diff a task against its demonstration. */
import * as vscode from 'vscode';
import type { AgentMemoryApp } from '../../core/app/types';
import { AgentMemoryError } from '../../core/errors';
import { RecordStatus, StatusSchema } from '../../core/memory/types';
import type { Container } from '../container';
import { recordUri, taskUri } from '../documents';
import { cancelled, confirm, idsFromArgs, NoPromptOptions, optionsFromArgs, pickRecords, registerSafeCommand } from './command-support';

type Transition = 'approve' | 'reject' | 'restore' | 'purge' | 'delete';
const SOURCE: Record<Transition, RecordStatus> = { approve: 'pending', reject: 'pending', restore: 'deleted', purge: 'deleted', delete: 'active' };
const PAST: Record<Transition, string> = { approve: 'approved', reject: 'rejected', restore: 'restored', purge: 'purged', delete: 'deleted' };

/** Ids from the args, or asked for through a QuickPick of the records the operation applies to. */
async function targetIds(app: AgentMemoryApp, op: Transition, args: unknown[]): Promise<string[]> {
  const ids = idsFromArgs(args[0], args[1]);
  return ids.length > 0 ? ids : pickRecords(app, SOURCE[op], `${op[0].toUpperCase()}${op.slice(1)} which records?`);
}

function apply(app: AgentMemoryApp, op: Transition, ids: string[]): void {
  if (op === 'approve') app.approve(ids);
  else if (op === 'reject') app.reject(ids);
  else if (op === 'restore') app.restore(ids);
  else if (op === 'purge') app.purge(ids);
  else app.deleteRecords(ids, 'deleted by the user');
}

export function registerRecordCommands(c: Container): vscode.Disposable[] {
  const transition = (op: Transition) =>
    registerSafeCommand(c.logger, `agentMemory.${op === 'delete' ? 'deleteRecords' : op}`, (...args) =>
      c.host.withApp(async (app) => {
        const ids = await targetIds(app, op, args);
        const options = optionsFromArgs<NoPromptOptions>(args);
        if (op === 'purge' && !(await confirm(`Purge ${ids.length} deleted record(s) for good? The audit trail keeps their history; the records cannot be restored.`, 'Purge', options))) return cancelled();
        apply(app, op, ids);
        c.logger.info(`[records] ${PAST[op]} ${ids.length}: ${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', …' : ''}`);
        vscode.window.setStatusBarMessage(`Agent Memory: ${PAST[op]} ${ids.length} record(s)`, 3000);
        return ids;
      }),
    );

  return [
    transition('approve'),
    transition('reject'),
    transition('restore'),
    transition('purge'),
    transition('delete'),

    registerSafeCommand(c.logger, 'agentMemory.openRecord', (arg, items) =>
      c.host.withApp(async (app) => {
        const [id] = idsFromArgs(arg, items).length ? idsFromArgs(arg, items) : await pickAnyRecord(app);
        const record = app.get(id);
        if (!record) throw new AgentMemoryError('NOT_FOUND', `No memory record with id '${id}'. It may have been purged; refresh the explorer.`);
        const doc = await vscode.workspace.openTextDocument(recordUri(id, record.execution.language));
        await vscode.window.showTextDocument(doc, { preview: true });
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
        await vscode.commands.executeCommand('vscode.diff', recordUri(demoId, demo.execution.language), taskUri(taskIndex, language), `Demonstration ↔ task ${taskIndex}`);
        return { taskIndex, demonstrationId: demoId };
      }),
    ),

    registerSafeCommand(c.logger, 'agentMemory.loadMore', (status) => {
      const parsed = StatusSchema.safeParse(status);
      if (parsed.success) c.tree.loadMore(parsed.data);
    }),
  ];
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
  const chosen = await vscode.window.showQuickPick(
    items.map((r) => ({ label: r.question, description: `${r.status} · ${r.execution.outcome}`, id: r.id })),
    { title: 'Open which record?', matchOnDescription: true },
  );
  return chosen ? [chosen.id] : cancelled();
}

async function pickTask(app: AgentMemoryApp): Promise<number> {
  const tasks = app.tasks().filter((t) => t.code).slice(-500).reverse();
  if (tasks.length === 0) throw new AgentMemoryError('NOT_FOUND', 'No task has run yet. Run "Agent Memory: Run Agent on a Question" first.');
  const chosen = await vscode.window.showQuickPick(
    tasks.map((t) => ({ label: `Task ${t.taskIndex}`, description: t.outcome ?? '', detail: t.question, taskIndex: t.taskIndex })),
    { title: 'Diff which task against its demonstration?', matchOnDetail: true },
  );
  return chosen ? chosen.taskIndex : cancelled();
}
