/**
 * Settings service: the typed `agentMemory.*` object, re-read whenever the
 * configuration changes, plus writes (policy, endpoint) to the right scope.
 */
import * as vscode from 'vscode';
import type { Logger } from '../core/logger';
import { parseSettings, SettingKey, Settings } from './settings-schema';

export const SETTINGS_SECTION = 'agentMemory';

export class SettingsService implements vscode.Disposable {
  private current: Settings;
  private readonly changed = new vscode.EventEmitter<Settings>();
  /** Fires with the new settings after any `agentMemory.*` change. */
  readonly onDidChange = this.changed.event;
  private readonly subscription: vscode.Disposable;
  /** The problems last shown (the same ones are not shown again). */
  private told = '';

  constructor(private readonly logger: Logger) {
    this.current = this.read();
    this.subscription = vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration(SETTINGS_SECTION)) return;
      this.current = this.read();
      this.changed.fire(this.current);
    });
  }

  get value(): Settings {
    return this.current;
  }

  /**
   * Writes one `agentMemory.<key>` value: to the workspace when a folder is open,
   * otherwise to the user settings.
   */
  async update(key: SettingKey, value: unknown): Promise<void> {
    const target = vscode.workspace.workspaceFolders?.length ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
    await vscode.workspace.getConfiguration(SETTINGS_SECTION).update(key, value, target);
    // onDidChangeConfiguration can lag behind the awaited update: read now so callers see it.
    this.current = this.read();
  }

  private read(): Settings {
    const config = vscode.workspace.getConfiguration(SETTINGS_SECTION);
    const { settings, problems } = parseSettings((key) => config.get(key));
    for (const problem of problems) this.logger.warn(problem);
    this.tell(problems);
    return settings;
  }

  /** Says once (until the problems change) which settings are invalid and fall back to their defaults. */
  private tell(problems: readonly string[]): void {
    const key = problems.join('\n');
    if (key === this.told) return;
    this.told = key;
    if (problems.length === 0) return;
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more: see the log)` : '';
    void vscode.window.showWarningMessage(`Agent Memory: ${problems[0]}${more}.`, 'Open Settings').then(
      (choice) => (choice ? vscode.commands.executeCommand('workbench.action.openSettings', SETTINGS_SECTION) : undefined),
      () => undefined,
    );
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}
