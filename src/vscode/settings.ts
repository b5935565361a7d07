/**
 * Settings service: the typed `agentMemory.*` object, re-read whenever the
 * configuration changes, plus writes (policy, endpoint) to the right scope.
 */
import * as vscode from 'vscode';
import type { Logger } from '../core/logger';
import type { Notices } from './notices';
import type { SettingProblemsStatus } from './setting-problems';
import { parseSettings, SettingKey, Settings } from './settings-schema';

export const SETTINGS_SECTION = 'agentMemory';
const OPEN_SETTINGS = 'Open Settings';

export class SettingsService implements vscode.Disposable {
  private current: Settings;
  private readonly changed = new vscode.EventEmitter<Settings>();
  /** Fires with the new settings after any `agentMemory.*` change. */
  readonly onDidChange = this.changed.event;
  private readonly subscription: vscode.Disposable;
  /** The problems a toast already named: each is told once while it lasts (the status item shows it meanwhile). */
  private told = new Set<string>();

  constructor(
    private readonly logger: Logger,
    private readonly notices: Notices,
    private readonly status: SettingProblemsStatus,
  ) {
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

  /**
   * Keeps the status item on the problems in force (gone once they are fixed) and tells each new
   * problem once in a toast. A fixed problem is never told again, nor one a toast already named
   * (fixing one of two does not repeat the other's toast): VS Code cannot close a toast, so the
   * status item, not the toast, says what is still wrong.
   */
  private tell(problems: readonly string[]): void {
    this.status.set('settings', problems);
    this.told = new Set([...this.told].filter((p) => problems.includes(p)));
    const fresh = problems.filter((p) => !this.told.has(p));
    if (fresh.length === 0) return;
    for (const p of fresh) this.told.add(p);
    const more = fresh.length > 1 ? ` (and ${fresh.length - 1} more: see the log)` : '';
    this.notices.show('warning', `Agent Memory: ${fresh[0]}${more}. The status bar shows it until it is fixed.`, [OPEN_SETTINGS]).then(
      (choice) => (choice === OPEN_SETTINGS ? vscode.commands.executeCommand('workbench.action.openSettings', SETTINGS_SECTION) : undefined),
      () => undefined,
    );
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}
