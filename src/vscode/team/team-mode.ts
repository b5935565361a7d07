/**
 * Team mode: the editor's connection to the team memory on PostgreSQL, beside the personal
 * SQLite memory. Follows `agentMemory.team.url` / `.space` and the password in SecretStorage:
 * any change closes the session and opens a new one (src/core/team/team-session.ts). The
 * tree, the status bar, the language-model tools and the MCP provider read it from here.
 */
import type { DomainValues } from '../../core/memory/search/domain-values';
import { createHash } from 'node:crypto';
import * as vscode from 'vscode';
import type { Logger } from '../../core/logger';
import { TeamMemoryTools } from '../../core/memory/postgres/team-tools';
import type { MemoryRecord, RecordStatus } from '../../core/memory/types';
import { AgentMemoryError } from '../../core/errors';
import { editorActor, resolveTeamConfig, SET_PASSWORD_COMMAND_TITLE, TEAM_URL_SETTING, type TeamConfig } from '../../core/team/team-config';
import { TEAM_LEVEL_CONTEXT_KEY } from '../../core/team/team-level';
import { TeamSession, type TeamState } from '../../core/team/team-session';
import { TeamSnapshot } from '../../core/team/team-snapshot';
import type { ApiKeyStore } from '../secrets';
import type { SettingsService } from '../settings';

/** Status changes the Team Memory view offers (the store's transition names). */
export type TeamTransition = 'approve' | 'reject' | 'restore';

export class TeamMode implements vscode.Disposable {
  private configValue: TeamConfig = { kind: 'off' };
  private sessionValue: TeamSession | undefined;
  private snapshotValue: TeamSnapshot | undefined;
  private toolsValue: TeamMemoryTools | undefined;
  private restarting: Promise<void> = Promise.resolve();
  private readonly changed = new vscode.EventEmitter<void>();
  /** The session, its state or its snapshot changed (views re-render). */
  readonly onDidChange = this.changed.event;
  private readonly configChanged = new vscode.EventEmitter<void>();
  /** The URL, space or password changed (the MCP server definition changes with them). */
  readonly onDidChangeConfig = this.configChanged.event;
  private readonly disposables: vscode.Disposable[] = [];
  private sessionSubscriptions: { dispose(): void }[] = [];
  private lastKey = '';
  private levelContext: TeamSession['level'] | undefined;
  private disposed = false;

  constructor(
    private readonly settings: SettingsService,
    private readonly password: ApiKeyStore,
    private readonly logger: Logger,
    /** The agent database's values (the chat tools' re-ranking applies only with them; see TeamShapes.applies). */
    private readonly domainValues?: () => Promise<DomainValues | null>,
  ) {
    this.disposables.push(
      this.changed,
      this.configChanged,
      settings.onDidChange(() => this.restart()),
      password.onDidChange(() => this.restart()),
    );
    this.restart();
  }

  get config(): TeamConfig {
    return this.configValue;
  }

  /** The open session (undefined while team mode is off or misconfigured). */
  get session(): TeamSession | undefined {
    return this.sessionValue;
  }

  get snapshot(): TeamSnapshot | undefined {
    return this.snapshotValue;
  }

  get state(): TeamState | undefined {
    return this.sessionValue?.state;
  }

  /** The memory tools on the team memory while team mode is on (the language-model tools use them instead of the personal memory's). */
  tools(): TeamMemoryTools | undefined {
    return this.toolsValue;
  }

  /** Re-reads the settings and the password now; settles once applied (a command that just stored the password awaits it). */
  reapply(): Promise<void> {
    this.restart();
    return this.restarting;
  }

  /** Applies a status change from this editor (audited as the OS user and `vscode@<host>`), then re-reads the view. */
  async transition(op: TeamTransition, ids: string[]): Promise<MemoryRecord[]> {
    const session = this.sessionValue;
    if (!session) throw new AgentMemoryError('CONFIG', `The team memory is not configured: set ${TEAM_URL_SETTING} (and the password with '${SET_PASSWORD_COMMAND_TITLE}').`);
    const reason = `${op === 'approve' ? 'approved' : op === 'reject' ? 'rejected' : 'restored'} in the Team Memory view`;
    const changed = await session.run((store) => store.transition(ids, op, { trigger: 'user', reason }));
    await this.snapshotValue?.reload().catch(() => undefined);
    return changed;
  }

  /** Records of one status as the view shows them (newest first). */
  records(status: RecordStatus): MemoryRecord[] {
    return this.snapshotValue?.current?.records[status] ?? [];
  }

  /** Re-reads the settings and the password; re-connects when either changed (queued: one at a time). */
  private restart(): void {
    this.restarting = this.restarting.then(() => this.apply()).catch((error: unknown) => this.logger.error(`[team] could not apply the team settings: ${String(error)}`));
  }

  private async apply(): Promise<void> {
    if (this.disposed) return;
    const config = resolveTeamConfig(this.settings.value.team, vscode.workspace.workspaceFolders?.[0]?.name);
    const password = config.kind === 'on' ? await this.password.get() : undefined;
    if (this.disposed) return;
    // The password takes part in the comparison only as a digest held in memory.
    const key = JSON.stringify([config, password ? createHash('sha256').update(password).digest('hex') : null]);
    if (key === this.lastKey) return;
    const announce = config.kind === 'invalid' && JSON.stringify(config) !== JSON.stringify(this.configValue);
    this.lastKey = key;
    await this.close();
    this.configValue = config;
    if (announce && config.kind === 'invalid') {
      this.logger.error(`[team] ${config.message}`);
      void vscode.window.showErrorMessage(`Agent Memory: ${config.message}`);
    }
    if (config.kind === 'on') {
      const session = new TeamSession({ connection: { url: config.url, space: config.space, password: password || undefined, ...editorActor() }, logger: this.logger });
      const snapshot = new TeamSnapshot(session);
      this.sessionSubscriptions = [
        session.onDidChangeState(() => {
          this.setLevelContext(session.level);
          this.changed.fire();
        }),
        snapshot.onDidLoad(() => this.changed.fire()),
      ];
      this.sessionValue = session;
      this.snapshotValue = snapshot;
      this.toolsValue = new TeamMemoryTools({
        team: () => session.store(),
        logger: this.logger,
        citationRoot: () => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? process.cwd(),
        // agentMemory.retrieval.rerank, read at each search: the chat tools re-rank the team memory as they do the personal one.
        rerank: () => this.settings.value.retrieval.rerank,
        domainValues: this.domainValues,
      });
      session.start();
      this.logger.info(`[team] team memory ${config.host}, space '${config.space}' (password ${password ? 'stored' : 'not stored'})`);
    }
    this.changed.fire();
    this.configChanged.fire();
  }

  /** The when-clause key package.json's reviewer actions read (approve, reject, restore offered to reviewers only). */
  private setLevelContext(level: TeamSession['level']): void {
    if (level === this.levelContext) return;
    this.levelContext = level;
    void vscode.commands.executeCommand('setContext', TEAM_LEVEL_CONTEXT_KEY, level);
  }

  private async close(): Promise<void> {
    for (const d of this.sessionSubscriptions.splice(0)) d.dispose();
    this.setLevelContext('unknown');
    const session = this.sessionValue;
    this.snapshotValue?.dispose();
    this.sessionValue = undefined;
    this.snapshotValue = undefined;
    this.toolsValue = undefined;
    this.configValue = { kind: 'off' };
    await session?.close();
  }

  dispose(): void {
    this.disposed = true;
    this.close().catch((error: unknown) => this.logger.warn(`[team] closing the team memory failed: ${String(error)}`));
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
