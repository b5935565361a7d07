/**
 * Read-only virtual documents under the `agent-memory:` scheme. The file extension
 * in the path picks the language, so code gets syntax highlighting:
 *   agent-memory:/record/<id>.py     a record's code with its question as a header
 *   agent-memory:/task/<n>.py        the final code of task n
 *   agent-memory:/result/<n>.py      a run result: answer, demonstrations used, code
 *   agent-memory:/readable/record/<id>.py   a record's code for a diff: no header, SQL one clause per line
 *   agent-memory:/readable/task/<n>.py      a task's code, laid out the same way
 *   agent-memory:/roles.json         the role memories
 */
import * as vscode from 'vscode';
import type { AgentMemoryApp, AgentTaskResult } from '../core/app/types';
import type { AppHost } from './app-host';
import { debounce } from './debounce';
import { readableCode } from './text/sql-format';
import { additionText, currentVerdictText, loggedOutcomeText, modelText, outcomeText, timesText, verdictText } from './text/result-text';
import { languageInfo } from '../core/similarity/code/languages';

export const SCHEME = 'agent-memory';
/** Any record language (records from other agents carry any). */
type Lang = string;

export type ParsedUri =
  | { kind: 'record'; id: string }
  | { kind: 'task'; taskIndex: number }
  | { kind: 'result'; taskIndex: number }
  | { kind: 'readable'; of: 'record'; id: string }
  | { kind: 'readable'; of: 'task'; taskIndex: number }
  | { kind: 'roles' };

/**
 * A record's document; with its question the tab is named by the question's first words
 * (`/record/<id>/how many patients were….py`), not by the UUID.
 */
export function recordUri(id: string, language: Lang, question?: string): vscode.Uri {
  const name = question ? `/${tabName(question)}` : '';
  return vscode.Uri.from({ scheme: SCHEME, path: `/record/${encodeURIComponent(id)}${name}.${languageInfo(language).extension}` });
}

/** The first words of a question as a file name: no path separators or control characters, at most 40 characters. */
export function tabName(question: string): string {
  const clean = question.replace(/[\\/:*?"<>|\u0000-\u001f]+/g, ' ').replace(/\s+/g, ' ').trim();
  const short = clean.length > 40 ? `${clean.slice(0, 39).trimEnd()}…` : clean;
  return short || 'record';
}
export function taskUri(taskIndex: number, language: Lang): vscode.Uri {
  return vscode.Uri.from({ scheme: SCHEME, path: `/task/${taskIndex}.${languageInfo(language).extension}` });
}
export function resultUri(taskIndex: number, language: Lang): vscode.Uri {
  return vscode.Uri.from({ scheme: SCHEME, path: `/result/${taskIndex}.${languageInfo(language).extension}` });
}
/** The diff view of a record or task: the code only, SQL one clause per line. */
export function readableUri(of: 'record' | 'task', key: string | number, language: Lang): vscode.Uri {
  return vscode.Uri.from({ scheme: SCHEME, path: `/readable/${of}/${encodeURIComponent(String(key))}.${languageInfo(language).extension}` });
}
export const ROLES_URI = vscode.Uri.from({ scheme: SCHEME, path: '/roles.json' });

/** The extension of any record language (languageInfo: `py`, `ts`, `go`, `sql`, `cpp`, `txt`…). */
const EXTENSION = '[A-Za-z0-9]+';

export function parseUri(uri: vscode.Uri): ParsedUri | undefined {
  const readable = new RegExp(`^/readable/(record|task)/(.+)\\.${EXTENSION}$`).exec(uri.path);
  if (readable) return readable[1] === 'record' ? { kind: 'readable', of: 'record', id: decodeURIComponent(readable[2]) } : { kind: 'readable', of: 'task', taskIndex: Number(readable[2]) };
  const m = new RegExp(`^/(record|task|result)/(.+)\\.${EXTENSION}$`).exec(uri.path);
  if (uri.path === '/roles.json') return { kind: 'roles' };
  if (!m) return undefined;
  // `<id>` or `<id>/<question's first words>` (the tab name).
  if (m[1] === 'record') return { kind: 'record', id: decodeURIComponent(m[2].split('/')[0]) };
  return { kind: m[1] as 'task' | 'result', taskIndex: Number(m[2]) };
}

export class MemoryDocumentProvider implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  /** Results of this session's runs (the task log keeps less: no demonstration code). */
  private readonly results = new Map<number, AgentTaskResult>();
  private readonly subscription: vscode.Disposable;
  private readonly refreshOpen = debounce(() => {
    for (const doc of vscode.workspace.textDocuments) if (doc.uri.scheme === SCHEME) this.changed.fire(doc.uri);
  }, 200);

  constructor(private readonly host: AppHost) {
    this.subscription = host.onDidChange(() => this.refreshOpen());
  }

  /**
   * Keeps a run's result and refreshes at once any open document of its task: task numbers
   * start again in another memory, so an open tab may still show an earlier task of that number.
   */
  remember(result: AgentTaskResult): void {
    this.results.set(result.taskIndex, result);
    for (const doc of vscode.workspace.textDocuments) {
      const parsed = doc.uri.scheme === SCHEME ? parseUri(doc.uri) : undefined;
      if (parsed && 'taskIndex' in parsed && parsed.taskIndex === result.taskIndex) this.changed.fire(doc.uri);
    }
  }

  result(taskIndex: number): AgentTaskResult | undefined {
    return this.results.get(taskIndex);
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const parsed = parseUri(uri);
    if (!parsed) return `Unknown Agent Memory document: ${uri.toString()}`;
    const app = await this.host.get();
    switch (parsed.kind) {
      case 'roles':
        return JSON.stringify(app.roleMemories(), null, 2) + '\n';
      case 'record':
        return renderRecord(app, parsed.id);
      case 'task':
        return app.task(parsed.taskIndex)?.code ?? this.results.get(parsed.taskIndex)?.code ?? `# task ${parsed.taskIndex} has no code\n`;
      case 'result':
        return renderResult(app, parsed.taskIndex, this.results.get(parsed.taskIndex));
      case 'readable': {
        const lang = uri.path.endsWith('.js') ? 'javascript' : 'python';
        const code = parsed.of === 'record' ? app.get(parsed.id)?.execution.code : app.task(parsed.taskIndex)?.code ?? this.results.get(parsed.taskIndex)?.code;
        return readableCode(code ?? '', lang) + '\n';
      }
    }
  }

  dispose(): void {
    this.refreshOpen.dispose();
    this.subscription.dispose();
    this.changed.dispose();
  }
}

function header(lang: Lang, lines: string[]): string {
  return lines.map((l) => `${languageInfo(lang).lineComment} ${l}`.trimEnd()).join('\n') + '\n\n';
}

function renderRecord(app: AgentMemoryApp, id: string): string {
  const record = app.get(id);
  if (!record) return `# No record with id ${id} (it may have been purged).\n`;
  const e = record.execution;
  const s = record.stats;
  return (
    header(e.language, [
      `Question: ${record.question}`,
      `Record ${record.id} · ${record.status} · ${record.provenance} · created at task ${record.createdTask}`,
      `Execution: ${outcomeText(e.outcome)} · answer: ${JSON.stringify(e.answer)}`,
      `Utility ${s.meanUtility?.toFixed(2) ?? '–'} over ${s.evaluatedCount} evaluations · retrieved ${timesText(s.retrievalCount)}`,
    ]) + e.code + '\n'
  );
}

/** Line (0-based) where the generated code starts in a result document. */
export function resultCodeLine(text: string): number {
  const lines = text.split('\n');
  const i = lines.findIndex((l) => !l.startsWith('#') && !l.startsWith('//') && l.trim() !== '');
  return Math.max(0, i);
}

function renderResult(app: AgentMemoryApp, taskIndex: number, result: AgentTaskResult | undefined): string {
  if (!result) {
    const task = app.task(taskIndex);
    if (!task) return `# No task ${taskIndex}\n`;
    const lang: Lang = task.language === 'javascript' ? 'javascript' : 'python';
    const executed = loggedOutcomeText(task.outcome);
    return header(lang, [`Task ${taskIndex}: ${task.question}`, `Execution: ${executed} · answer: ${JSON.stringify(task.answer)}`]) + (task.code ?? '') + '\n';
  }
  const status = result.addition.recordId ? app.get(result.addition.recordId)?.status ?? 'purged' : null;
  // Read now, not at run time: an approval or rejection since then shows here (the document refreshes on every change).
  const row = app.task(result.taskIndex);
  const verdict = row ? currentVerdictText(row, status === 'purged' ? null : status) : verdictText(result.verdict);
  const memory = status === 'pending' || !result.addition.added ? additionText(result) : `added to memory, now ${status}`;
  const lines = [
    `Task ${result.taskIndex}: ${result.question}`,
    `Execution: ${outcomeText(result.outcome)} after ${result.attempts} attempt(s) · ${Math.round(result.durationMs)} ms`,
    `Verdict: ${verdict}`,
    `Model: ${modelText(result.modelKind, result.model)}`,
    `Answer: ${JSON.stringify(result.answer)}`,
    `Memory: ${result.addition.added ? `record ${result.addition.recordId} (now ${status})` : 'no record'} — ${memory}`,
    `Similarity: input ${result.inputSimilarity?.toFixed(2) ?? '–'} · output ${result.outputSimilarity?.toFixed(2) ?? '–'}`,
    `Demonstrations used (${result.demonstrations.length}):`,
    ...result.demonstrations.map((d, i) => `  ${i + 1}. [${d.inputSimilarity?.toFixed(2) ?? '–'}] ${d.question} (${d.recordId})`),
  ];
  if (result.error) lines.push(`Error: ${result.error}`);
  return header(result.language, lines) + result.code + '\n';
}
