/**
 * The one composition root of the VS Code layer: builds the logger, settings,
 * secrets, the lazily created core app, the explorer, documents, CodeLens,
 * commands, status bar and dashboard, and registers every disposable.
 * No static singletons: everything is reachable from the Container instance.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { tagged, type Logger } from '../core/logger';
import { AppHost, type CreateApp } from './app-host';
import { showEmbeddingFailure } from './commands/embedding-commands';
import { DatabasePathGuard } from './database-path-guard';
import { registerCommands } from './commands/register';
import { DashboardController } from './dashboard/dashboard-panel';
import { registerMemoryLmTools } from './lm-tools/lm-tools';
import { McpProviderRegistration, registerMcpServerProvider } from './lm-tools/mcp-provider';
import { watchExternalChanges } from './lm-tools/external-changes';
import { MemoryDocumentProvider, SCHEME } from './documents';
import { channelLogger } from './log-channel';
import { PendingResultCodeLens } from './result-codelens';
import { ApiKeyStore, EMBEDDING_API_KEY } from './secrets';
import { SettingsService } from './settings';
import type { Settings } from './settings-schema';
import { ModelStatus } from './model-status';
import { MemoryStatusBar } from './status-bar';
import { IsolationWarning } from './isolation-warning';
import { VectorFallbackStatus } from './vector-fallback-status';
import { MemoryTreeProvider } from './tree/memory-tree';
import { UndoHistory } from './undo';
import { Prompts } from './prompts';
import { Notices } from './notices';
import { SettingProblemsStatus } from './setting-problems';
import { watchAgentData } from './data-watcher';
import { revalidateWithProgress } from './commands/review-commands';
import type { MemoryNode } from './tree/tree-items';
import { isPostgresUrl } from '../core/memory/postgres/connection';
import { agentDataPathOf } from '../core/app/agent-service';
import { TeamMode } from './team/team-mode';
import { TEAM_VIEW_ID, TeamTreeProvider, type TeamNode } from './team/team-tree';
import { TeamStatusBar } from './team/team-status-bar';
import { registerTeamCommands } from './team/team-commands';
import { TEAM_SCHEME, TeamDocumentProvider } from './team/team-documents';
import { TEAM_PASSWORD } from './secrets';

export const EXPLORER_VIEW_ID = 'agentMemory.explorer';
const DEFAULT_DATABASE_FILE = 'memory.sqlite';

export class Container implements vscode.Disposable {
  readonly channel: vscode.LogOutputChannel;
  readonly logger: Logger;
  readonly settings: SettingsService;
  readonly apiKey: ApiKeyStore;
  /** The embedding endpoint's key (agentMemory.embedding.*). */
  readonly embeddingApiKey: ApiKeyStore;
  readonly host: AppHost;
  readonly tree: MemoryTreeProvider;
  /** Whether the host took the MCP server definition provider (see mcp-provider.ts). */
  readonly mcpServerProvider: McpProviderRegistration;
  readonly treeView: vscode.TreeView<MemoryNode>;
  readonly documents: MemoryDocumentProvider;
  readonly dashboard: DashboardController;
  readonly statusBar: MemoryStatusBar;
  readonly modelStatus: ModelStatus;
  /** The team memory on PostgreSQL (agentMemory.team.*), beside the personal memory. */
  readonly team: TeamMode;
  readonly teamTree: TeamTreeProvider;
  readonly teamTreeView: vscode.TreeView<TeamNode>;
  readonly teamStatusBar: TeamStatusBar;
  /** The team memory's password in SecretStorage. */
  readonly teamPassword: ApiKeyStore;
  readonly demoDataDir: string;
  /** The last approval / rejection / deletion / restore, for Undo. */
  readonly undo = new UndoHistory();
  /** The modal questions that guard deletions (tests record and answer them). */
  readonly prompts = new Prompts();
  /** The toasts with buttons of settings problems and some commands (tests record and answer them). */
  readonly notices = new Notices();
  /** The settings problems in force (a status-bar item, gone once they are fixed). */
  readonly settingProblems: SettingProblemsStatus;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly settingsApplied = new vscode.EventEmitter<Settings>();
  /**
   * Fires with the new settings once a change of `agentMemory.*` has reached the app
   * (configured in place, or the app dropped to be re-created on another database).
   * A command run after it sees the new value; `onDidChange` of the settings service
   * fires earlier, before the app was updated (reading the API key is asynchronous).
   */
  readonly onDidApplySettings = this.settingsApplied.event;
  private readonly databasePathGuard: DatabasePathGuard;

  constructor(
    readonly context: vscode.ExtensionContext,
    options: { createApp?: CreateApp } = {},
  ) {
    this.channel = this.register(vscode.window.createOutputChannel('Agent Memory', { log: true }));
    this.logger = channelLogger(this.channel);
    this.settingProblems = this.register(new SettingProblemsStatus());
    this.settings = this.register(new SettingsService(tagged(this.logger, 'settings'), this.notices, this.settingProblems));
    this.register(this.settingsApplied);
    this.apiKey = new ApiKeyStore(context.secrets);
    this.embeddingApiKey = new ApiKeyStore(context.secrets, EMBEDDING_API_KEY);
    this.teamPassword = new ApiKeyStore(context.secrets, TEAM_PASSWORD);
    this.demoDataDir = path.join(context.extensionUri.fsPath, 'data', 'ehr');
    this.databasePathGuard = new DatabasePathGuard(() => this.configuredDatabasePath(), this.logger, () => this.applySettings(this.settings.value), this.notices, this.settingProblems);

    this.host = this.register(
      new AppHost({
        logger: this.logger,
        settings: () => this.settings.value,
        apiKey: () => this.apiKey.get(),
        embeddingApiKey: () => this.embeddingApiKey.get(),
        onEmbeddingFailure: (error) => showEmbeddingFailure(error),
        databasePath: () => this.databasePathGuard.openable(),
        demoDataDir: this.demoDataDir,
        storageDir: context.globalStorageUri.fsPath,
        createApp: options.createApp,
      }),
    );

    this.tree = this.register(new MemoryTreeProvider(this.host, () => this.settings.value, tagged(this.logger, 'tree')));
    this.treeView = this.register(vscode.window.createTreeView(EXPLORER_VIEW_ID, { treeDataProvider: this.tree, canSelectMany: true, showCollapseAll: true }));
    this.tree.attach(this.treeView);

    this.documents = this.register(new MemoryDocumentProvider(this.host));
    this.register(vscode.workspace.registerTextDocumentContentProvider(SCHEME, this.documents));
    this.register(vscode.languages.registerCodeLensProvider(PendingResultCodeLens.selector, this.register(new PendingResultCodeLens(this.host, this.documents))));

    this.dashboard = this.register(new DashboardController(context.extensionUri, this.host, tagged(this.logger, 'dashboard')));
    this.statusBar = this.register(new MemoryStatusBar(this.host, EXPLORER_VIEW_ID, this.tree.onDidChangeTreeData));
    this.modelStatus = this.register(new ModelStatus(() => this.settings.value, () => this.apiKey.get(), tagged(this.logger, 'model')));
    this.register(new IsolationWarning(this.settings));
    this.register(new VectorFallbackStatus(this.host));

    this.register(this.settings.onDidChange((settings) => this.applySettings(settings)));
    // A new API key needs a new model client: re-create the app (waits if a task is running).
    this.register(
      this.apiKey.onDidChange(() => {
        this.host.settingsChanged(this.settings.value, true).catch((error: unknown) => this.logger.error(`[secrets] ${String(error)}`));
      }),
    );

    // A new embedding key (or endpoint settings) needs a new embedding client; the vectors change only by a re-embed.
    this.register(this.embeddingApiKey.onDidChange(() => this.host.current?.embeddingChanged()));
    this.register(this.settings.onDidChange(() => this.host.current?.embeddingChanged()));

    // Team mode: the team memory's session, view, status bar and commands.
    this.team = this.register(new TeamMode(this.settings, this.teamPassword, tagged(this.logger, 'team'), () => this.host.withApp((app) => app.rerankValues())));
    this.teamTree = this.register(new TeamTreeProvider(this.team));
    this.teamTreeView = this.register(vscode.window.createTreeView(TEAM_VIEW_ID, { treeDataProvider: this.teamTree, canSelectMany: true }));
    this.teamStatusBar = this.register(new TeamStatusBar(this.team));
    this.register(vscode.workspace.registerTextDocumentContentProvider(TEAM_SCHEME, new TeamDocumentProvider(this.team)));
    for (const d of registerTeamCommands({ team: this.team, tree: this.teamTree, password: this.teamPassword, logger: this.logger })) this.register(d);

    for (const d of registerCommands(this)) this.register(d);
    // The agent's database changed: re-run the programs whose data fingerprint differs (stale ones stop being demonstrations).
    this.register(
      watchAgentData({
        host: this.host,
        onDidChangeSettings: this.onDidApplySettings,
        revalidateChanged: () => this.host.withApp((app) => revalidateWithProgress(this, app, true)),
        logger: this.logger,
      }),
    );

    // The memory as tools for other agents: VS Code language-model tools and the MCP server definition.
    this.register(registerMemoryLmTools(this.host, tagged(this.logger, 'lm-tools'), () => this.team.tools()));
    this.mcpServerProvider = this.register(
      registerMcpServerProvider({
        extensionPath: context.extensionUri.fsPath,
        version: String((context.extension?.packageJSON as { version?: unknown } | undefined)?.version ?? '0'),
        databasePath: () => this.databasePath(),
        additionPolicy: () => this.settings.value.addition.policy,
        rerank: () => this.settings.value.retrieval.rerank,
        memoryBudgetMB: () => this.settings.value.memoryBudgetMB,
        // The agent's database, as its own retriever reads it (AgentService: always when there is one).
        valuesFrom: () => {
          const file = agentDataPathOf(this.settings.value, this.demoDataDir);
          return fs.existsSync(file) ? path.resolve(file) : undefined;
        },
        onDidChange: this.settings.onDidChange,
        team: {
          target: () => (this.team.config.kind === 'on' ? { url: this.team.config.url, space: this.team.config.space } : undefined),
          password: () => this.teamPassword.get(),
          onDidChange: this.team.onDidChangeConfig,
        },
        logger: this.logger,
      }),
    );
    // Records other agents write from other processes (MCP servers) appear live in the explorer.
    this.register(
      watchExternalChanges({
        databasePath: () => this.databasePath(),
        onChange: () => {
          if (this.host.current) this.tree.refresh();
        },
        onDidChangeSettings: this.settings.onDidChange,
        logger: this.logger,
      }),
    );
  }

  /**
   * Applies changed settings to the app; a new database path only after the guard accepted it
   * (a refused one keeps the memory where it was, with an error naming the cause).
   */
  private applySettings(settings: Settings): void {
    const pathChanged = this.databasePathGuard.update();
    this.modelStatus.reset();
    this.host.settingsChanged(settings, pathChanged).then(
      () => {
        this.tree.refresh(pathChanged);
        this.settingsApplied.fire(settings);
      },
      (error: unknown) => this.logger.error(`[settings] could not apply: ${String(error)}`),
    );
  }

  /** The memory database file in use (the last path the guard accepted). */
  databasePath(): string {
    return this.databasePathGuard.current;
  }

  /**
   * The memory database file the settings name: the setting (relative to the first workspace
   * folder), else one database per workspace in the workspace storage (global storage with no
   * folder open).
   */
  private configuredDatabasePath(): { file: string; configured: boolean } {
    const configured = this.settings.value.databasePath;
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const defaultDir = (this.context.storageUri ?? this.context.globalStorageUri).fsPath;
    const file = configured
      ? path.isAbsolute(configured) || configured === ':memory:' || isPostgresUrl(configured)
        ? configured
        : path.resolve(folder ?? defaultDir, configured)
      : path.join(defaultDir, DEFAULT_DATABASE_FILE);
    return { file, configured: Boolean(configured) };
  }

  /** Registers a disposable for disposal with the container; returns it. */
  register<T extends vscode.Disposable>(disposable: T): T {
    this.disposables.push(disposable);
    return disposable;
  }

  /** Disposes in reverse creation order (views before the app they read). */
  dispose(): void {
    for (const d of this.disposables.splice(0).reverse()) {
      try {
        d.dispose();
      } catch (error) {
        this.channel.error(`dispose failed: ${String(error)}`);
      }
    }
  }
}
