/**
 * Guards `agentMemory.databasePath`: a path the memory cannot live at (under a file, in a folder
 * that does not exist, a folder) is refused with its cause and a fix button, and the memory
 * stays on the database it had: nothing switches silently, no empty database appears elsewhere.
 * With a refused path at startup (no database yet) the memory does not open until it is fixed.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { AgentMemoryError } from '../core/errors';
import type { Logger } from '../core/logger';
import { databasePathProblem, type DatabasePathProblem } from '../core/memory/sqlite/database-path';
import type { Notices } from './notices';
import type { SettingProblemsStatus } from './setting-problems';

export const CREATE_FOLDER = 'Create Folder';
export const OPEN_SETTING = 'Open Setting';
export const USE_DEFAULT = 'Use the Default';

export class DatabasePathGuard {
  private path: string;
  /** Set while the memory has no usable database (a refused path at startup). */
  private refused: DatabasePathProblem | undefined;
  /** The refusal in force (the status item shows it; its toast was shown once), until the setting is fixed. */
  private shown: { file: string; message: string } | undefined;
  /** The database in use before the last switch. */
  private previous = '';

  /**
   * @param resolve the database file the settings name now (no side effects) and whether the
   *   user configured it (the default location is the extension's own, created on demand)
   * @param retry called after a fix button changed something (re-applies the settings)
   */
  constructor(
    private readonly resolve: () => { file: string; configured: boolean },
    private readonly logger: Logger,
    private readonly retry: () => void,
    private readonly notices: Notices,
    private readonly status: SettingProblemsStatus,
  ) {
    const { file, configured } = resolve();
    this.path = file;
    this.refused = this.check(file, configured, true);
  }

  /** The database the memory uses (the last accepted path). */
  get current(): string {
    return this.path;
  }

  /** The path to open; throws the refusal while the memory has no usable database. */
  openable(): string {
    if (this.refused) throw new AgentMemoryError('CONFIG', this.refused.message);
    return this.path;
  }

  /**
   * Takes the path the settings name now. Returns true when the memory must switch to it
   * (a new accepted path, or the first usable one after a refusal); false when nothing changed
   * or the new path was refused (the memory stays where it was; the user was told why).
   */
  update(): boolean {
    const { file, configured } = this.resolve();
    if (file === this.path && !this.refused) {
      // Back to the database in use: a refusal shown meanwhile is over.
      this.clear();
      return false;
    }
    const problem = this.check(file, configured, Boolean(this.refused));
    if (problem) {
      // Refused at startup and still refused: nothing to switch to; else the old database stays in use.
      if (this.refused) this.refused = problem;
      return false;
    }
    this.previous = this.path;
    this.path = file;
    this.refused = undefined;
    return true;
  }

  /** The problem of `file` (shown with its fix buttons), or undefined after preparing the default location. */
  private check(file: string, configured: boolean, closed: boolean): DatabasePathProblem | undefined {
    if (!configured) {
      if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
      this.clear();
      return undefined;
    }
    const problem = databasePathProblem(file);
    if (problem) this.show(file, problem, closed);
    else this.clear();
    return problem;
  }

  /** The setting is valid again: the status item goes; a stale toast's buttons then do nothing. */
  private clear(): void {
    this.shown = undefined;
    this.status.set('databasePath', []);
  }

  /**
   * Shows a refusal: in the status item while it lasts, and in a toast once (a later settings
   * change with the same bad path does not repeat it). Its buttons act only while that refusal
   * is still in force: after the setting was fixed another way they say so and change nothing.
   */
  private show(file: string, problem: DatabasePathProblem, closed: boolean): void {
    const staying = closed ? 'The memory stays closed until the path is fixed.' : `The memory stays on ${this.path}.`;
    const message = `${problem.message} ${staying}`;
    this.status.set('databasePath', [`agentMemory.databasePath: ${message}`]);
    if (this.shown?.file === file && this.shown.message === message) return;
    const shown = (this.shown = { file, message });
    this.logger.warn(`[settings] agentMemory.databasePath refused: ${message}`);
    const buttons = problem.kind === 'missing-folder' ? [CREATE_FOLDER, USE_DEFAULT, OPEN_SETTING] : [OPEN_SETTING, USE_DEFAULT];
    this.notices.show(closed ? 'error' : 'warning', `Agent Memory: ${message}`, buttons).then(
      async (choice) => {
        if (!choice) return;
        if (this.shown !== shown) {
          vscode.window.setStatusBarMessage('Agent Memory: agentMemory.databasePath was fixed meanwhile; nothing was changed.', 5000);
          return;
        }
        if (choice === CREATE_FOLDER && problem.kind === 'missing-folder') {
          fs.mkdirSync(problem.folder, { recursive: true });
          this.retry();
          this.tellSwitched(file, closed);
        } else if (choice === OPEN_SETTING) {
          await vscode.commands.executeCommand('workbench.action.openSettings', 'agentMemory.databasePath');
        } else if (choice === USE_DEFAULT) {
          await resetSetting();
        }
      },
      (error: unknown) => this.logger.error(`[settings] ${String(error)}`),
    );
  }

  /** After Create Folder: the memory switched to a new, empty database; where the old records are. */
  private tellSwitched(file: string, closed: boolean): void {
    if (this.path !== file) return;
    const old = closed ? '' : ` The records so far stay in ${this.previous}: set agentMemory.databasePath back to it to use them.`;
    const text = `Agent Memory: created the folder; the memory now uses ${file}, a new, empty database.${old}`;
    this.logger.info(`[settings] ${text}`);
    void this.notices.show('info', text, []);
  }
}

/** Removes `agentMemory.databasePath` wherever it is set (folder, workspace, user), back to the default location. */
async function resetSetting(): Promise<void> {
  const config = vscode.workspace.getConfiguration('agentMemory');
  const where = config.inspect('databasePath');
  if (where?.workspaceFolderValue !== undefined) await config.update('databasePath', undefined, vscode.ConfigurationTarget.WorkspaceFolder);
  if (where?.workspaceValue !== undefined) await config.update('databasePath', undefined, vscode.ConfigurationTarget.Workspace);
  if (where?.globalValue !== undefined) await config.update('databasePath', undefined, vscode.ConfigurationTarget.Global);
}
