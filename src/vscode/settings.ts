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
    return settings;
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}
