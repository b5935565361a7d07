/**
 * Owns the one AgentMemoryApp instance: created lazily on first use (activation
 * never touches the database), re-created when a setting the core depends on
 * changes, and bridged to a VS Code event so views refresh on core changes.
 */
import * as vscode from 'vscode';
import type { AgentMemoryApp } from '../core/app/types';
import type { AgentMemoryError } from '../core/errors';
import type { Logger } from '../core/logger';
import type { MemoryChangeEvent } from '../core/memory/types';
import type { Settings } from './settings-schema';
import type { CreateAppOptions } from '../core/app';

/** What the editor passes to `createApp` (defined by the core facade). */
export type { CreateAppOptions };

export type CreateApp = (options: CreateAppOptions) => AgentMemoryApp | Promise<AgentMemoryApp>;

/** Loads `createApp` from the core facade; the require is deferred so activation stays cheap. */
function loadCoreCreateApp(): CreateApp {
  return (require('../core/app') as typeof import('../core/app')).createApp;
}

export interface AppHostOptions {
  logger: Logger;
  settings: () => Settings;
  apiKey: () => Promise<string | undefined>;
  embeddingApiKey?: () => Promise<string | undefined>;
  onEmbeddingFailure?: (error: AgentMemoryError) => void;
  databasePath: () => string;
  demoDataDir: string;
  storageDir: string;
  createApp?: CreateApp;
}

export class AppHost implements vscode.Disposable {
  private app: AgentMemoryApp | undefined;
  private creating: Promise<AgentMemoryApp> | undefined;
  private appSubscription: { dispose(): void } | undefined;
  private factory: CreateApp | undefined;
  private readonly changed = new vscode.EventEmitter<MemoryChangeEvent>();
  /** Core change events of whichever app instance is current (plus 'reset' on re-creation). */
  readonly onDidChange = this.changed.event;
  private busy = 0;
  /** A change that needs a new app (database path) arrived while a task ran: re-create once it is idle. */
  private resetWhenIdle = false;

  constructor(private readonly options: AppHostOptions) {
    this.factory = options.createApp;
  }

  /** The app if it was already created (never opens the database). */
  get current(): AgentMemoryApp | undefined {
    return this.app;
  }

  /** Replaces the factory (integration tests inject one); drops the current app. */
  useFactory(factory: CreateApp): void {
    this.factory = factory;
    this.reset();
  }

  /** The app, creating it (and opening the database) on first use. */
  get(): Promise<AgentMemoryApp> {
    if (this.app) return Promise.resolve(this.app);
    this.creating ??= this.create().finally(() => (this.creating = undefined));
    return this.creating;
  }

  /** Runs `work` marking the app busy, so settings changes wait instead of re-creating it mid-task. */
  async withApp<T>(work: (app: AgentMemoryApp) => Promise<T> | T): Promise<T> {
    const app = await this.get();
    this.busy++;
    try {
      return await work(app);
    } finally {
      this.busy--;
      if (this.busy === 0 && this.resetWhenIdle) {
        this.resetWhenIdle = false;
        this.reset();
      }
    }
  }

  /**
   * Applies new settings: in place (the core applies them between tasks), or for
   * another database by re-creating the app lazily, after the running task if any.
   */
  async settingsChanged(settings: Settings, databasePathChanged: boolean): Promise<void> {
    const app = this.app;
    if (!app) return;
    if (!databasePathChanged) {
      app.configure(settings, await this.options.apiKey());
      return;
    }
    if (this.busy > 0) {
      this.options.logger.info('the memory database setting changed while a task runs; switching after it finishes');
      this.resetWhenIdle = true;
      return;
    }
    this.reset();
  }

  /** Disposes the current app; the next `get()` creates a fresh one. */
  reset(): void {
    this.appSubscription?.dispose();
    this.appSubscription = undefined;
    const old = this.app;
    this.app = undefined;
    if (old) {
      old.dispose();
      this.changed.fire({ kind: 'reset', ids: [] });
    }
  }

  private async create(): Promise<AgentMemoryApp> {
    const factory = (this.factory ??= loadCoreCreateApp());
    const started = performance.now();
    const databasePath = this.options.databasePath();
    const app = (await factory({
      databasePath,
      channel: 'editor',
      settings: this.options.settings(),
      apiKey: await this.options.apiKey(),
      embeddingApiKey: this.options.embeddingApiKey,
      onEmbeddingFailure: this.options.onEmbeddingFailure,
      demoDataDir: this.options.demoDataDir,
      storageDir: this.options.storageDir,
      workspaceRoot: () => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? process.cwd(),
      logger: this.options.logger,
    }));
    this.app = app;
    this.appSubscription = app.onDidChange((event) => this.changed.fire(event));
    this.options.logger.info(`[app] opened ${databasePath} in ${(performance.now() - started).toFixed(1)} ms`);
    this.changed.fire({ kind: 'reset', ids: [] });
    return app;
  }

  dispose(): void {
    this.reset();
    this.changed.dispose();
  }
}
