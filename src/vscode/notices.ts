/**
 * Non-modal notifications a command shows and acts on. One object on the Container, so the
 * extension-host tests (which cannot read or click a toast) can record what is said and
 * answer it; in use it is `vscode.window.showInformationMessage` / `showWarningMessage`.
 */
import * as vscode from 'vscode';

export class Notices {
  /** Shows an information toast; resolves to the button chosen (undefined: dismissed). */
  info: (message: string, ...buttons: string[]) => Thenable<string | undefined> = (message, ...buttons) => vscode.window.showInformationMessage(message, ...buttons);
  /** Shows a warning toast; resolves to the button chosen (undefined: dismissed). */
  warn: (message: string, ...buttons: string[]) => Thenable<string | undefined> = (message, ...buttons) => vscode.window.showWarningMessage(message, ...buttons);
}
