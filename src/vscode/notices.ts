/**
 * The notifications (toasts) with buttons that settings problems, the database path guard and
 * commands show. One object on the Container, so the extension-host tests (which cannot read or
 * click a toast) can record what was shown and answer it; in use it is
 * `vscode.window.show{Information,Warning,Error}Message`. `info` and `warn` go through `show`.
 */
import * as vscode from 'vscode';

export type NoticeLevel = 'info' | 'warning' | 'error';

export class Notices {
  /** Shows a notification; resolves to the button chosen (undefined: closed or ignored). */
  show: (level: NoticeLevel, message: string, buttons: string[]) => Thenable<string | undefined> = (level, message, buttons) =>
    level === 'error' ? vscode.window.showErrorMessage(message, ...buttons) : level === 'warning' ? vscode.window.showWarningMessage(message, ...buttons) : vscode.window.showInformationMessage(message, ...buttons);
  /** Shows an information toast; resolves to the button chosen (undefined: dismissed). */
  info: (message: string, ...buttons: string[]) => Thenable<string | undefined> = (message, ...buttons) => this.show('info', message, buttons);
  /** Shows a warning toast; resolves to the button chosen (undefined: dismissed). */
  warn: (message: string, ...buttons: string[]) => Thenable<string | undefined> = (message, ...buttons) => this.show('warning', message, buttons);
}
