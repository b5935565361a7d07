/** Run the agent on one question, or on a task stream with progress and cancel. */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentTaskResult, TaskStreamItem } from '../../core/app/types';
import type { Container } from '../container';
import { resultUri } from '../documents';
import { readTaskFile } from '../task-file';
import { cancelled, registerSafeCommand, requireTrust } from './command-support';

export const DEMO_TASK_FILE = 'ehrsql-mimic3-tasks.jsonl';
const DEFAULT_STREAM_LENGTH = 20;

/** Arguments tests (and other extensions) pass to `agentMemory.runTaskStream` to skip the prompts. */
export interface TaskStreamArgs {
  file?: string;
  items?: TaskStreamItem[];
  limit?: number;
}

export function registerAgentCommands(c: Container): vscode.Disposable[] {
  return [
    registerSafeCommand(c.logger, 'agentMemory.runAgent', async (arg) => {
      requireTrust();
      const question =
        typeof arg === 'string' && arg.trim()
          ? arg.trim()
          : await vscode.window.showInputBox({
              title: 'Run the agent',
              prompt: 'A question about the configured database',
              placeHolder: 'how many patients were admitted in 2104?',
              ignoreFocusOut: true,
              validateInput: (v) => (v.trim() ? undefined : 'Type a question'),
            });
      if (!question) return cancelled();
      const result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: 'Agent Memory: running the agent…', cancellable: true },
        (_progress, token) => c.host.withApp((app) => app.runTask(question.trim(), { signal: abortSignal(token) })),
      );
      await showResult(c, result, typeof arg === 'string');
      return result;
    }),

    registerSafeCommand(c.logger, 'agentMemory.runTaskStream', async (arg) => {
      requireTrust();
      const items = await streamItems(c, (arg ?? {}) as TaskStreamArgs);
      const results = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Agent Memory: task stream (${items.length} tasks)`, cancellable: true },
        (progress, token) =>
          c.host.withApp((app) =>
            app.runStream(items, {
              signal: abortSignal(token),
              onProgress: (p) => {
                if (p.last) c.documents.remember(p.last);
                const correct = p.last ? ` · last: ${p.last.outcome}` : '';
                progress.report({ increment: 100 / p.total, message: `${p.done}/${p.total}${correct}` });
              },
            }),
          ),
      );
      const ok = results.filter((r) => r.outcome === 'success').length;
      c.logger.info(`[stream] ${results.length} tasks, ${ok} succeeded`);
      void vscode.window.showInformationMessage(`Agent Memory: ran ${results.length} tasks, ${ok} succeeded.`);
      return results;
    }),
  ];
}

function abortSignal(token: vscode.CancellationToken): AbortSignal {
  const controller = new AbortController();
  token.onCancellationRequested(() => controller.abort());
  return controller.signal;
}

async function streamItems(c: Container, args: TaskStreamArgs): Promise<TaskStreamItem[]> {
  if (args.items?.length) return args.items;
  let file = args.file;
  const demo = path.join(c.demoDataDir, DEMO_TASK_FILE);
  if (!file) {
    const choice = await vscode.window.showQuickPick(
      [
        { label: '$(beaker) EHR demo questions', description: DEMO_TASK_FILE, file: demo },
        { label: '$(file) Choose a JSONL file…', description: 'one {"question": …, "answer"?: …} per line', file: '' },
      ],
      { title: 'Run a task stream from…' },
    );
    if (!choice) return cancelled();
    file = choice.file || (await vscode.window.showOpenDialog({ canSelectMany: false, filters: { 'Task stream': ['jsonl'] } }))?.[0]?.fsPath;
    if (!file) return cancelled();
  }
  let limit = args.limit;
  if (limit === undefined && !args.file) {
    const answer = await vscode.window.showInputBox({
      title: 'How many tasks?',
      value: String(DEFAULT_STREAM_LENGTH),
      validateInput: (v) => (/^[1-9]\d*$/.test(v.trim()) ? undefined : 'A positive whole number'),
    });
    if (!answer) return cancelled();
    limit = Number(answer);
  }
  return readTaskFile(file, { limit, nonEmptyOnly: file === demo });
}

/** Opens the result document and shows a notification with Approve / Reject when the record is pending. */
async function showResult(c: Container, result: AgentTaskResult, quiet: boolean): Promise<void> {
  c.documents.remember(result);
  const doc = await vscode.workspace.openTextDocument(resultUri(result.taskIndex, result.language));
  await vscode.window.showTextDocument(doc, { preview: true, preserveFocus: quiet });
  const pendingId = result.addition.status === 'pending' ? result.addition.recordId : null;
  const summary = `Task ${result.taskIndex}: ${result.outcome}, answer ${truncate(JSON.stringify(result.answer) ?? 'none', 80)}.`;
  const actions = pendingId ? ['Approve', 'Reject', 'Diff with Demonstration'] : ['Diff with Demonstration'];
  const message = pendingId ? `${summary} Keep it in memory?` : `${summary} ${result.addition.reason}`;
  // Not awaited: the command finishes while the notification waits for the user.
  vscode.window.showInformationMessage(`Agent Memory: ${message}`, ...actions).then(
    async (choice) => {
      // VS Code cannot dismiss a notification: the record may have been decided in the tree meanwhile.
      const stillPending = pendingId !== null && c.host.current?.get(pendingId)?.status === 'pending';
      if ((choice === 'Approve' || choice === 'Reject') && !stillPending) {
        void vscode.window.showInformationMessage(`Agent Memory: task ${result.taskIndex}'s record was already ${c.host.current?.get(pendingId ?? '')?.status ?? 'removed'}.`);
        return;
      }
      if (choice === 'Approve' && pendingId) await vscode.commands.executeCommand('agentMemory.approve', [pendingId]);
      else if (choice === 'Reject' && pendingId) await vscode.commands.executeCommand('agentMemory.reject', [pendingId]);
      else if (choice === 'Diff with Demonstration') await vscode.commands.executeCommand('agentMemory.diffWithDemonstration', result.taskIndex);
    },
    (error: unknown) => c.logger.error(`[agent] notification failed: ${String(error)}`),
  );
}

function truncate(text: string, n: number): string {
  return text.length > n ? `${text.slice(0, n - 1)}…` : text;
}
