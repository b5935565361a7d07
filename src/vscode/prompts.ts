/**
 * The modal questions that guard deletions. One object on the Container, so the
 * extension-host tests (which cannot click a modal) can record what is asked and
 * answer it; in use it is `vscode.window.showWarningMessage` with `modal: true`.
 */
import * as vscode from 'vscode';
import { isLargeDeletion, largeDeletionMessage } from '../core/policy/deletion-review';

/**
 * The first button of a modal is its Enter-key default: for a large deletion it is this one. It only
 * cancels (nothing is deleted, nothing exempted), so it is not named like the inline Keep, which
 * exempts a proposed record for a period.
 */
export const DONT_DELETE_BUTTON = "Don't Delete";

export class Prompts {
  /** Shows a modal warning; resolves to the button chosen (undefined: dismissed). */
  modal: (message: string, detail: string, buttons: string[]) => Thenable<string | undefined> = (message, detail, buttons) =>
    vscode.window.showWarningMessage(message, { modal: true, detail }, ...buttons);

  /**
   * Asks again, with the count, before deleting more than 25 % of the active memory.
   * The safe choice comes first (the Enter-key default); true only when the user clicks Delete.
   * Resolves true at once for a deletion that is not large.
   */
  async confirmLargeDeletion(count: number, active: number): Promise<boolean> {
    if (!isLargeDeletion(count, active)) return true;
    const deleteButton = `Delete ${count}`;
    const choice = await this.modal(largeDeletionMessage(count, active), 'Enter deletes nothing (and exempts nothing: Keep on a proposed deletion does that). Deleting needs the Delete button.', [DONT_DELETE_BUTTON, deleteButton]);
    return choice === deleteButton;
  }
}
