/** "✓ Approve · ✗ Reject" CodeLens above the generated code of a result document whose record is pending. */
import * as vscode from 'vscode';
import type { AppHost } from './app-host';
import { debounce } from './debounce';
import { MemoryDocumentProvider, parseUri, resultCodeLine, SCHEME } from './documents';

export class PendingResultCodeLens implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;
  private readonly fire = debounce(() => this.changed.fire(), 200);
  private readonly subscription: vscode.Disposable;

  static readonly selector: vscode.DocumentSelector = { scheme: SCHEME };

  constructor(
    private readonly host: AppHost,
    private readonly documents: MemoryDocumentProvider,
  ) {
    this.subscription = host.onDidChange(() => this.fire());
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const parsed = parseUri(document.uri);
    const app = this.host.current;
    if (parsed?.kind !== 'result' || !app) return [];
    const recordId = this.documents.result(parsed.taskIndex)?.addition.recordId ?? app.task(parsed.taskIndex)?.recordId ?? null;
    if (!recordId || app.get(recordId)?.status !== 'pending') return [];
    const range = new vscode.Range(resultCodeLine(document.getText()), 0, resultCodeLine(document.getText()), 0);
    return [
      new vscode.CodeLens(range, { title: '$(check) Approve into memory', command: 'agentMemory.approve', arguments: [[recordId]] }),
      new vscode.CodeLens(range, { title: '$(close) Reject', command: 'agentMemory.reject', arguments: [[recordId]] }),
    ];
  }

  dispose(): void {
    this.fire.dispose();
    this.subscription.dispose();
    this.changed.dispose();
  }
}
