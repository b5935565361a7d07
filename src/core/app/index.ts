/**
 * The core facade (`AgentMemoryApp`, ./types.ts) the editor adapter and the CLI
 * talk to. It owns nothing itself: it wires small services, each with one job,
 * and delegates.
 *
 *   SettingsSession  settings, applied between tasks only
 *   MemoryPolicies   the memory manager (addition, deletion rules, user operations)
 *   AgentService     model, runner (RunnerHolder), role memories, the task pipeline
 *   Maintenance      embedder, re-embed, import/export, demo seeding
 *   dashboardData    the dashboard's figures (SQL aggregates through store.queries)
 */
import * as path from 'node:path';
import { MemoryRetriever } from '../agent/retriever';
import type { Role } from '../agent/role-memory';
import { Disposable } from '../lifecycle';
import { Logger } from '../logger';
import type { ListQuery } from '../memory/sqlite/record-query';
import { MemoryStore } from '../memory/sqlite/store';
import { memoryBudget } from '../memory/memory-budget';
import { reviewQueries } from '../memory/sqlite/queries/review';
import type { AuditChannel, MemoryChangeEvent, RecordStatus } from '../memory/types';
import type { Settings } from '../settings';
import type { Disposable as DisposableLike } from '../events';
import { AgentService } from './agent-service';
import { dashboardData } from './dashboard';
import { Maintenance, type ReembedOptions } from './maintenance';
import type { AgentMemoryError } from '../errors';
import { MemoryPolicies } from './memory-policies';
import { SettingsSession } from './settings-session';
import { MemoryTools } from '../tools/memory-tools';
import type { AgentMemoryApp, AgentTaskResult, DeletionPlan, DeletionPolicyName, RoleMemoryView, TaskProgress, TaskStreamItem, UserDeletion } from './types';

export type * from './types';

export interface CreateAppOptions {
  databasePath: string;
  /** The program the app runs in: recorded in each audit entry of the memory (editor, cli, mcp). */
  channel?: AuditChannel;
  settings: Settings;
  apiKey?: string;
  /** The embedding endpoint's key, read when needed (SecretStorage in the editor; EMBEDDING_API_KEY_ENV elsewhere). */
  embeddingApiKey?(): Promise<string | undefined>;
  /** Told once per failure streak of the embedding endpoint while it serves queries (retrieval then uses keywords). */
  onEmbeddingFailure?(error: AgentMemoryError): void;
  /** Folder with mimic3-demo.sqlite and ehrsql-mimic3-tasks.jsonl. */
  demoDataDir: string;
  /** Scratch folder (role memories). */
  storageDir: string;
  /** The folder the chat tools' citations must lie in (the editor's first workspace folder; else the working directory). */
  workspaceRoot?(): string;
  logger: Logger;
}

/**
 * Builds the core for one memory database.
 *
 * @example
 * const app = await createApp({ databasePath, settings, demoDataDir, storageDir, logger });
 * const result = await app.runTask('how many patients were admitted in 2104?');
 */
export async function createApp(options: CreateAppOptions): Promise<AgentMemoryApp> {
  const app = new AgentMemoryCore(options);
  try {
    await app.agent.loadRoleMemories();
  } catch (error) {
    app.dispose();
    throw error;
  }
  return app;
}

class AgentMemoryCore extends Disposable implements AgentMemoryApp {
  private readonly store: MemoryStore;
  private readonly session: SettingsSession;
  private readonly policies: MemoryPolicies;
  private readonly maintenance: Maintenance;
  private readonly retriever: MemoryRetriever;
  private tools: MemoryTools | undefined;
  readonly agent: AgentService;

  private readonly workspaceRoot: CreateAppOptions['workspaceRoot'];

  constructor(options: CreateAppOptions) {
    super();
    this.workspaceRoot = options.workspaceRoot;
    // Registered first, disposed last (disposal runs newest first).
    // The memory budget applies from the open on (a change of the setting at the next open).
    const budget = memoryBudget(options.settings.memoryBudgetMB);
    this.store = this._register(MemoryStore.open(options.databasePath, { logger: options.logger, channel: options.channel, memoryBudget: budget }));
    this.session = this._register(new SettingsSession(options.settings, options.apiKey));
    const retriever = (this.retriever = this._register(MemoryRetriever.open(this.store, { logger: options.logger, memoryBudget: budget })));
    this.policies = this._register(new MemoryPolicies(this.store, this.session, options.logger));
    this.maintenance = this._register(new Maintenance(this.store, this.session, options.demoDataDir, options.logger, { embeddingApiKey: options.embeddingApiKey, onEmbeddingFailure: options.onEmbeddingFailure }));
    this.agent = this._register(new AgentService(this.session, this.policies, retriever, this.maintenance, { demoDataDir: options.demoDataDir, storageDir: path.resolve(options.storageDir), logger: options.logger }));
  }

  readonly onDidChange = (listener: (event: MemoryChangeEvent) => void): DisposableLike => this.store.onDidChange(listener);

  configure(settings: Settings, apiKey?: string): void {
    this.session.configure(settings, apiKey);
  }

  // ------------------------------------------------------------ reading
  counts(): Record<RecordStatus, number> {
    return this.store.counts();
  }
  list(query: ListQuery) {
    return this.store.list({ ...query, misaligned: query.misaligned ?? this.session.settings.misaligned });
  }
  get(id: string) {
    return this.store.get(id);
  }
  audit(recordId?: string) {
    return this.store.audit({ recordId, limit: 200 });
  }
  retrievalsOf(recordId: string) {
    return this.policies.manager.tasks.retrievalsOf(recordId);
  }
  tasks() {
    return this.policies.manager.tasks.list();
  }
  task(taskIndex: number) {
    return this.policies.manager.tasks.get(taskIndex);
  }
  dashboard() {
    return dashboardData(this.store, this.policies.manager.tasks, this.session.settings.misaligned);
  }

  // ------------------------------------------------------------ user operations
  approve(ids: string[]): void {
    this.policies.approve(ids);
  }
  unapprove(ids: string[]): void {
    this.policies.unapprove(ids);
  }
  unreject(ids: string[]): void {
    this.policies.unreject(ids);
  }
  reject(ids: string[]): void {
    this.policies.reject(ids);
  }
  restore(ids: string[]): void {
    this.policies.restore(ids);
  }
  purge(ids: string[]): void {
    this.policies.purge(ids);
  }
  deleteRecords(ids: string[], reason: string): UserDeletion {
    return this.policies.deleteRecords(ids, reason);
  }
  proposedDeletions() {
    return this.policies.proposals();
  }
  confirmDeletions(ids: string[]) {
    return this.policies.confirmProposals(ids);
  }
  keepRecords(ids: string[]) {
    return this.policies.keepProposals(ids);
  }
  staleIds() {
    return reviewQueries(this.store).staleIds();
  }
  recordCheck(id: string) {
    return reviewQueries(this.store).checkOf(id);
  }
  revalidate(options: { signal?: AbortSignal; onProgress?: (done: number, total: number) => void; onlyIfChanged?: boolean } = {}) {
    return this.agent.revalidate(options);
  }
  agentDataPath(): string {
    return this.agent.agentDataPath;
  }
  rerankValues() {
    return this.agent.rerankValues();
  }
  planDeletion(policy: DeletionPolicyName): DeletionPlan {
    return this.policies.planDeletion(policy);
  }
  applyDeletion(plan: DeletionPlan): number {
    return this.policies.applyDeletion(plan);
  }

  // ------------------------------------------------------------ the agent
  runTask(question: string, options: { signal?: AbortSignal; groundTruth?: unknown; humanReview?: boolean } = {}): Promise<AgentTaskResult> {
    return this.agent.runTask(question, options);
  }
  runStream(items: TaskStreamItem[], options: { signal?: AbortSignal; onProgress?: (p: TaskProgress) => void; humanReview?: boolean } = {}): Promise<AgentTaskResult[]> {
    return this.agent.runStream(items, options);
  }
  roleMemories(): RoleMemoryView[] {
    return this.agent.roleMemories();
  }
  resetRoleMemory(role: Role): void {
    this.agent.resetRoleMemory(role);
  }

  // ------------------------------------------------------------ maintenance
  importJsonl(file: string, options?: { skipInvalid?: boolean }): Promise<number> {
    return this.maintenance.importJsonl(file, options);
  }
  checkJsonlFile(file: string): Promise<{ valid: number; problems: string[] }> {
    return this.maintenance.checkJsonlFile(file);
  }
  exportJsonl(file: string, status?: RecordStatus): Promise<number> {
    return this.maintenance.exportJsonl(file, status);
  }
  seedDemoMemory(count?: number): Promise<number> {
    return this.maintenance.seedDemoMemory(count);
  }
  reembed(options?: ReembedOptions): Promise<number> {
    return this.maintenance.reembed(options);
  }
  embeddingChanged(): void {
    this.maintenance.embeddingChanged();
  }

  // ------------------------------------------------------------ tools for other agents
  /** The memory as tools for other agents (MCP, VS Code language-model tools), on this app's store and policies. */
  memoryTools(): MemoryTools {
    // Functions: settings replace the manager and re-embedding the embedder; the tools always use the current ones.
    this.tools ??= new MemoryTools({
      store: this.store,
      tasks: () => this.policies.manager.tasks,
      retrieve: (question, vector, k, options) => this.retriever.retrieve(question, vector, k, options),
      embedder: () => this.maintenance.embedder,
      afterTask: (input) => this.policies.manager.afterTask(input),
      additionPolicy: () => this.session.settings.addition.policy,
      citationRoot: this.workspaceRoot,
    });
    return this.tools;
  }
}
