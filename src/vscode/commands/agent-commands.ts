/** Run the agent on one question, or on a task stream with progress and cancel. */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { z } from 'zod';
import type { AgentTaskResult, TaskStreamItem } from '../../core/app/types';
import { MAX_QUESTION_LENGTH, questionProblem } from '../../core/agent/question';
import { AgentMemoryError } from '../../core/errors';
import type { Container } from '../container';
import { resultUri } from '../documents';
import { readTaskStreamFile } from '../../core/app/task-stream-file';
import { proposalNotice } from '../text/proposal-text';
import { additionText, outcomeText, resultSummary, streamSummary, truncate, verdictText } from '../text/result-text';
import { cancelled, registerSafeCommand, requireTrust } from './command-support';
import { personalStreamNotice, runTaskOnTeam } from '../team/team-tasks';

export const DEMO_TASK_FILE = 'ehrsql-mimic3-tasks.jsonl';
const DEFAULT_STREAM_LENGTH = 20;

/** Arguments of `agentMemory.pickQuestion` (tests pass `question` to skip the QuickPick). */
const PickQuestionArgsSchema = z.object({ file: z.string().min(1).optional(), question: z.string().min(1).optional() });

/** Arguments of `agentMemory.runAgent` besides a plain question string: a question with its gold answer. */
const RunAgentArgsSchema = z.object({ question: z.string().trim().min(1), answer: z.unknown().optional(), quiet: z.boolean().optional() });
type RunAgentArgs = z.infer<typeof RunAgentArgsSchema>;

/** Arguments tests (and other extensions) pass to `agentMemory.runTaskStream` to skip the prompts. */
export interface TaskStreamArgs {
  file?: string;
  items?: TaskStreamItem[];
  limit?: number;
  /**
   * Under strict addition, who approves: `human` (default; records stay pending, the gold
   * answer only checks) or `gold` (bench mode: the gold answer approves in your place).
   */
  approveBy?: 'human' | 'gold';
}

/** The task stream that runs now (one at a time). */
interface RunningStream {
  cancel: vscode.CancellationTokenSource;
  done: number;
  total: number;
}

export const SHOW_STREAM = 'Show Progress';
export const CANCEL_STREAM = 'Cancel Stream';

/**
 * A second stream while one runs: says so at once, offering to show or cancel the running one;
 * nothing is queued (resolves undefined, as a cancelled command does).
 */
function streamAlreadyRunning(c: Container, stream: RunningStream): undefined {
  const message = `Agent Memory: a task stream is running (${stream.done}/${stream.total} done). Wait for it to finish, or cancel it, then start another.`;
  c.logger.info(`[stream] not started: ${message}`);
  c.notices.info(message, SHOW_STREAM, CANCEL_STREAM).then(
    (choice) => {
      if (choice === CANCEL_STREAM) stream.cancel.cancel();
      // The stream's progress is a notification: the notification center shows it even when it was hidden.
      else if (choice === SHOW_STREAM) void vscode.commands.executeCommand('notifications.showList').then(undefined, () => c.channel.show(true));
    },
    () => undefined,
  );
  return undefined;
}

export function registerAgentCommands(c: Container): vscode.Disposable[] {
  let running: RunningStream | undefined;
  return [
    registerSafeCommand(c.logger, 'agentMemory.runAgent', async (arg) => {
      requireTrust();
      const given: RunAgentArgs | undefined =
        typeof arg === 'string' && arg.trim() ? { question: arg.trim(), quiet: true } : arg && typeof arg === 'object' && !('kind' in arg) ? RunAgentArgsSchema.parse(arg) : undefined;
      const question =
        given?.question ??
        (await vscode.window.showInputBox({
          title: 'Run the agent',
          prompt: `A question about the configured database (at most ${MAX_QUESTION_LENGTH} characters)`,
          placeHolder: 'how many patients were admitted in 2104?',
          ignoreFocusOut: true,
          validateInput: (v) => questionProblem(v),
        }));
      if (!question) return cancelled();
      const problem = questionProblem(question);
      if (problem) throw new AgentMemoryError('INVALID_INPUT', problem);
      // A question of the task file is checked against its gold answer, as in a stream; the user still approves.
      const gold = given && 'answer' in given && given.answer !== undefined ? { answer: given.answer } : demoGold(c, question.trim());
      // Team mode: the task runs on the team space (its record waits for a reviewer under strict addition).
      const result =
        (await runTaskOnTeam(c, question.trim(), gold?.answer)) ??
        (await vscode.window.withProgress(
          { location: vscode.ProgressLocation.Notification, title: 'Agent Memory: running the agent…', cancellable: true },
          (_progress, token) => c.host.withApp((app) => app.runTask(question.trim(), { signal: abortSignal(token), ...(gold ? { groundTruth: gold.answer, humanReview: true } : {}) })),
        ));
      await showResult(c, result, given?.quiet ?? false);
      announceProposals(c, [result]);
      return result;
    }),

    registerSafeCommand(c.logger, 'agentMemory.pickQuestion', async (arg) => {
      requireTrust();
      const given = PickQuestionArgsSchema.parse(typeof arg === 'string' ? { file: arg } : arg && typeof arg === 'object' && !('kind' in arg) ? arg : {});
      const file = given.file ?? path.join(c.demoDataDir, DEMO_TASK_FILE);
      const items = readTaskStreamFile(file, { nonEmptyOnly: file.endsWith(DEMO_TASK_FILE) });
      if (given.question !== undefined) {
        const item = items.find((i) => i.question === given.question);
        if (!item) throw new AgentMemoryError('INVALID_INPUT', `"${given.question}" is not a question of ${path.basename(file)}.`);
        return vscode.commands.executeCommand('agentMemory.runAgent', { ...item, quiet: true } satisfies RunAgentArgs);
      }
      const chosen = await vscode.window.showQuickPick(
        items.map((item) => ({ label: item.question, description: item.answer === undefined ? undefined : `gold answer ${truncate(JSON.stringify(item.answer), 60)}`, item })),
        { title: `Pick a question (${items.length} in ${path.basename(file)}); type to search`, matchOnDescription: true, ignoreFocusOut: true },
      );
      if (!chosen) return cancelled();
      return vscode.commands.executeCommand('agentMemory.runAgent', { ...chosen.item, quiet: true } satisfies RunAgentArgs);
    }),

    registerSafeCommand(c.logger, 'agentMemory.runTaskStream', async (arg) => {
      requireTrust();
      // One stream at a time, said at once (a second one used to wait silently, its picker popping up later).
      if (running) return streamAlreadyRunning(c, running);
      personalStreamNotice(c);
      const args = (arg ?? {}) as TaskStreamArgs;
      const items = await streamItems(c, args);
      const approveBy = await whoApproves(c, items, args);
      if (running) return streamAlreadyRunning(c, running);
      const stream: RunningStream = { cancel: new vscode.CancellationTokenSource(), done: 0, total: items.length };
      running = stream;
      let results: AgentTaskResult[];
      try {
        results = await vscode.window.withProgress(
          { location: vscode.ProgressLocation.Notification, title: `Agent Memory: task stream (${items.length} tasks)`, cancellable: true },
          (progress, token) => {
            token.onCancellationRequested(() => stream.cancel.cancel());
            return c.host.withApp((app) =>
              app.runStream(items, {
                signal: abortSignal(stream.cancel.token),
                humanReview: approveBy === 'human',
                onProgress: (p) => {
                  stream.done = p.done;
                  if (p.last) c.documents.remember(p.last);
                  const last = p.last ? ` · last: ${outcomeText(p.last.outcome)}, ${verdictText(p.last.verdict)}` : '';
                  progress.report({ increment: 100 / p.total, message: `${p.done}/${p.total}${last}` });
                },
              }),
            );
          },
        );
      } finally {
        running = undefined;
        stream.cancel.dispose();
      }
      const summary = streamSummary(results);
      c.logger.info(`[stream] ${summary}`);
      const pending = results.some((r) => r.addition.status === 'pending');
      c.notices.info(`Agent Memory: ${summary}.`, ...(pending ? ['Show Pending'] : [])).then(
        (choice) => (choice ? vscode.commands.executeCommand('agentMemory.explorer.focus') : undefined),
        () => undefined,
      );
      announceProposals(c, results);
      return results;
    }),
  ];
}

/**
 * Deletions an automatic rule proposed during these tasks, said once (text/proposal-text.ts) with a
 * button to review them: a warning when a rule would have removed more than 25 % of the active
 * memory (src/core/policy/memory-manager.ts proposes those instead), else a notice for the
 * proposals `deletion.review = propose` makes; only the log when all were withdrawn since.
 */
function announceProposals(c: Container, results: readonly AgentTaskResult[]): void {
  const standing = new Set((c.host.current?.proposedDeletions() ?? []).map((p) => p.recordId));
  const notice = proposalNotice(results, standing);
  if (!notice) return;
  const review = (choice: string | undefined) => (choice ? vscode.commands.executeCommand('agentMemory.explorer.focus') : undefined);
  if (notice.count === 0) {
    c.logger.info(`[deletion] ${notice.text}`);
    return;
  }
  if (notice.large) {
    c.logger.warn(`[deletion] ${notice.text}`);
    c.notices.warn(`Agent Memory: ${notice.text}`, REVIEW_PROPOSALS).then(review, () => undefined);
    return;
  }
  c.notices.info(`Agent Memory: ${notice.text}`, REVIEW_PROPOSALS).then(review, () => undefined);
}

export const REVIEW_PROPOSALS = 'Review Proposed Deletions';

/** The gold answer of a question typed into Run Agent when the demo task file has it (exact question), else undefined. */
function demoGold(c: Container, question: string): { answer: unknown } | undefined {
  try {
    const item = readTaskStreamFile(path.join(c.demoDataDir, DEMO_TASK_FILE)).find((i) => i.question.trim() === question);
    return item && item.answer !== undefined ? { answer: item.answer } : undefined;
  } catch (error) {
    c.logger.warn(`[agent] the demo task file could not be read for a gold answer: ${String(error)}`);
    return undefined;
  }
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
      // A step of a small wizard: it stays open when focus moves (e.g. to the dashboard beside it).
      { title: 'Run a task stream from…', ignoreFocusOut: true },
    );
    if (!choice) return cancelled();
    file = choice.file || (await vscode.window.showOpenDialog({ canSelectMany: false, filters: { 'Task stream': ['jsonl'] } }))?.[0]?.fsPath;
    if (!file) return cancelled();
  }
  let limit = args.limit;
  if (limit === undefined && !args.file) {
    const available = readTaskStreamFile(file, { nonEmptyOnly: file === demo }).length;
    const answer = await vscode.window.showInputBox({
      title: `How many tasks? (1–${available})`,
      prompt: `The first N of the ${available} tasks in ${path.basename(file)}`,
      ignoreFocusOut: true,
      value: String(Math.min(DEFAULT_STREAM_LENGTH, available)),
      validateInput: (v) => streamLengthProblem(v, available),
    });
    if (!answer) return cancelled();
    limit = Number(answer);
  }
  return readTaskStreamFile(file, { limit, nonEmptyOnly: file === demo });
}

/** Why a "How many tasks?" answer is refused (not a whole number from 1 to `available`), or undefined. */
export function streamLengthProblem(value: string, available: number): string | undefined {
  const v = value.trim();
  if (!/^[1-9]\d*$/.test(v) || Number(v) > available) return `A whole number from 1 to ${available} (the file has ${available} tasks)`;
  return undefined;
}

/**
 * Strict addition with gold answers: ask once whether the gold answer may approve in the user's
 * place (bench mode) or whether records stay pending (the default, and the answer without a prompt).
 */
async function whoApproves(c: Container, items: TaskStreamItem[], args: TaskStreamArgs): Promise<'human' | 'gold'> {
  if (args.approveBy) return args.approveBy;
  const strict = c.settings.value.addition.policy === 'strict';
  if (!strict || !items.some((i) => i.answer !== undefined) || args.items || args.file) return 'human';
  const choice = await vscode.window.showQuickPick(
    [
      { label: '$(person) I approve', description: 'records stay pending; the gold answer only marks each correct or wrong', value: 'human' as const },
      { label: '$(beaker) The gold answer approves', description: 'bench mode: correct answers are added as "approved by gold answer", wrong ones are not added', value: 'gold' as const },
    ],
    { title: 'Strict addition: who approves the new records of this stream?', ignoreFocusOut: true },
  );
  return choice?.value ?? cancelled();
}

/** Opens the result document and shows a notification with Approve / Reject when the record is pending. */
async function showResult(c: Container, result: AgentTaskResult, quiet: boolean): Promise<void> {
  c.documents.remember(result);
  const doc = await vscode.workspace.openTextDocument(resultUri(result.taskIndex, result.language));
  await vscode.window.showTextDocument(doc, { preview: true, preserveFocus: quiet });
  const pendingId = result.addition.status === 'pending' ? result.addition.recordId : null;
  const summary = `${resultSummary(result)}.`;
  c.logger.info(`[agent] ${summary} ${additionText(result)}${result.error ? ` Error: ${result.error}` : ''}`);
  if (result.error && !result.code) {
    // Nothing ran: say why (an unreachable or misconfigured endpoint, usually) instead of "no candidate record".
    const fix = result.modelKind === 'llm' ? ['Test Model Connection', 'Show Logs'] : ['Show Logs'];
    vscode.window.showWarningMessage(`Agent Memory: task ${result.taskIndex} produced no program: ${result.error}`, ...fix).then(
      (choice) => (choice === 'Test Model Connection' ? vscode.commands.executeCommand('agentMemory.testConnection') : choice ? vscode.commands.executeCommand('agentMemory.showLogs') : undefined),
      () => undefined,
    );
    return;
  }
  const actions = pendingId ? ['Approve', 'Reject', 'Diff with Demonstration'] : ['Diff with Demonstration'];
  const message = pendingId ? `${summary} Keep it in memory?` : `${summary} ${additionText(result)}.`;
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
