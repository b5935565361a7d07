import * as fs from 'node:fs';
import * as path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { storeEmbedder, refitAndReembed, SyncEmbedder } from './app-embedding';
import { dashboardData } from './app-dashboard';
import { DEFAULT_SEED_COUNT, DEMO_DATABASE_FILE, DEMO_TASKS_FILE, demoSeedRecords, readDemoTasks } from './app-seed';
import type { AgentMemoryApp, AgentTaskResult, DeletionPlan, DeletionPolicyName, RoleMemoryView, TaskProgress, TaskStreamItem } from './app-types';
import { AgentMemoryError, errorMessage } from './errors';
import type { Disposable } from './events';
import { Logger, tagged } from './logger';
import { exportJsonl, importJsonl } from './memory/jsonl';
import type { ListQuery } from './memory/record-query';
import { MemoryStore } from './memory/store';
import type { MemoryChangeEvent, RecordStatus } from './memory/types';
import { runTaskPipeline } from './agent/task-pipeline';
import { EditorEvaluator, GoldEvaluator } from './agent/task-evaluators';
import { MemoryRetriever } from './agent/retriever';
import { CodeGenerator, LlmCodeGenerator, ReuseCodeGenerator } from './agent/loop/generators';
import { ModelClient } from './agent/model/model-client';
import { Role } from './agent/role-memory';
import { RoleMemories } from './agent/role-memories';
import { JsonFileRoleMemoryStore } from './agent/role-memory-store';
import { DatabaseValueLookup } from './agent/reuse/value-lookup';
import { createRunner, toolboxDocs, CodeRunner } from './agent/runners';
import { MemoryManager } from './policy/memory-manager';
import type { PolicyDeletionPlan } from './policy/deletion/types';
import { evaluateHumanVerdict } from './policy/utility';
import { codeSimilarity } from './similarity/code';
import { MemoryTools } from './tools/memory-tools';
import type { Settings } from './settings';

export interface CreateAppOptions {
  databasePath: string;
  settings: Settings;
  apiKey?: string;
  /** Folder with mimic3-demo.sqlite and ehrsql-mimic3-tasks.jsonl. */
  demoDataDir: string;
  /** Scratch folder (role memories). */
  storageDir: string;
  logger: Logger;
}

/**
 * Builds the core for one memory database: store, hybrid search, built-in or
 * endpoint model, sandboxed runner, memory manager, role memories.
 *
 * @example
 * const app = await createApp({ databasePath, settings, demoDataDir, storageDir, logger });
 * const result = await app.runTask('how many patients were admitted in 2104?');
 */
export async function createApp(options: CreateAppOptions): Promise<AgentMemoryApp & { configure(settings: Settings, apiKey?: string): void }> {
  const app = new AgentMemoryCore(options);
  await app.loadRoleMemories();
  return app;
}

class AgentMemoryCore implements AgentMemoryApp {
  private readonly logger: Logger;
  private readonly store: MemoryStore;
  private readonly retriever: MemoryRetriever;
  private embedder: SyncEmbedder;
  private manager: MemoryManager;
  private runner: CodeRunner;
  private generator: CodeGenerator;
  private model: ModelClient | null = null;
  private settings: Settings;
  private apiKey: string | undefined;
  private dataDb: BetterSqlite3.Database | null = null;
  private roles!: RoleMemories;
  private readonly plans = new WeakMap<DeletionPlan, PolicyDeletionPlan>();
  private tools: MemoryTools | undefined;

  constructor(private readonly options: CreateAppOptions) {
    this.logger = tagged(options.logger, 'core');
    this.settings = options.settings;
    this.apiKey = options.apiKey;
    this.store = MemoryStore.open(options.databasePath, { logger: options.logger });
    this.embedder = storeEmbedder(this.store, this.logger);
    this.retriever = MemoryRetriever.open(this.store, { logger: options.logger });
    this.manager = this.createManager();
    this.runner = createRunner(this.settings.runner.language, { logger: options.logger });
    this.generator = this.createGenerator();
  }

  readonly onDidChange = (listener: (event: MemoryChangeEvent) => void): Disposable => this.store.onDidChange(listener);

  /** Applies new settings in place (model, runner, policies). */
  configure(settings: Settings, apiKey?: string): void {
    const runnerChanged = settings.runner.language !== this.settings.runner.language;
    this.settings = settings;
    this.apiKey = apiKey;
    this.manager.dispose();
    this.manager = this.createManager();
    if (runnerChanged) {
      this.runner.dispose();
      this.runner = createRunner(settings.runner.language, { logger: this.options.logger });
    }
    this.generator = this.createGenerator();
  }

  private get dataPath(): string {
    return this.settings.agent.dataPath || path.join(this.options.demoDataDir, DEMO_DATABASE_FILE);
  }

  private createManager(): MemoryManager {
    const d = this.settings.deletion;
    const beta = this.settings.addition.policy === 'coarse' ? d.historyBetaCoarse : d.historyBetaStrict;
    return new MemoryManager(this.store, {
      addition: this.settings.addition.policy,
      mode: 'editor',
      deletion: this.settings.capacity > 0 && d.automatic === 'none' ? 'capacity' : d.automatic,
      deletionParams: {
        period: d.period,
        alpha: d.alpha,
        minRetrievals: d.historyMinRetrievals,
        beta,
        threshold: d.forgettingThreshold,
        protectSeeds: d.protectSeeds,
        ...(this.settings.capacity > 0 ? { capacity: this.settings.capacity } : {}),
      },
      codeSimilarity: (a, b, lang) => codeSimilarity(a, b, lang),
      logger: this.options.logger,
    });
  }

  private createGenerator(): CodeGenerator {
    const { baseUrl, name } = this.settings.model;
    if (baseUrl && name) {
      this.model = new ModelClient({ baseURL: baseUrl, model: name, apiKey: this.apiKey }, this.options.logger);
      return new LlmCodeGenerator(this.model);
    }
    this.model = null;
    return new ReuseCodeGenerator(fs.existsSync(this.dataPath) ? new DatabaseValueLookup(this.openData()) : undefined);
  }

  private openData(): BetterSqlite3.Database {
    this.dataDb ??= new BetterSqlite3(this.dataPath, { readonly: true, fileMustExist: true });
    return this.dataDb;
  }

  async loadRoleMemories(): Promise<void> {
    this.roles = await RoleMemories.load(new JsonFileRoleMemoryStore(path.join(this.options.storageDir, 'role-memories')), this.options.logger);
  }

  // ------------------------------------------------------------ reading

  counts(): Record<RecordStatus, number> {
    return this.store.counts();
  }
  list(query: ListQuery) {
    return this.store.list({ ...query, misaligned: query.misaligned ?? this.settings.misaligned });
  }
  get(id: string) {
    return this.store.get(id);
  }
  audit(recordId?: string) {
    return this.store.audit({ recordId, limit: 200 });
  }
  retrievalsOf(recordId: string) {
    return this.manager.tasks.retrievalsOf(recordId);
  }
  tasks() {
    return this.manager.tasks.list();
  }
  task(taskIndex: number) {
    return this.manager.tasks.get(taskIndex);
  }
  dashboard() {
    return dashboardData(this.store, this.manager.tasks, this.settings.misaligned);
  }

  // ------------------------------------------------------------ user operations

  approve(ids: string[]): void {
    this.manager.approve(ids);
    this.recordHumanVerdict(ids, 'approve');
  }
  reject(ids: string[]): void {
    this.manager.reject(ids);
    this.recordHumanVerdict(ids, 'reject');
  }
  restore(ids: string[]): void {
    this.manager.restore(ids);
  }
  purge(ids: string[]): void {
    this.manager.purge(ids);
  }
  deleteRecords(ids: string[], reason: string): void {
    this.store.transition(ids, 'delete', { trigger: 'user', reason });
  }

  /** The human verdict on a pending record is the strict Φ of the task that produced it. */
  private recordHumanVerdict(ids: string[], verdict: 'approve' | 'reject'): void {
    const evaluation = evaluateHumanVerdict(verdict);
    for (const id of ids) {
      const taskIndex = this.store.get(id)?.metadata.taskIndex;
      if (typeof taskIndex === 'number' && this.manager.tasks.get(taskIndex)?.utility == null) {
        this.manager.tasks.setUtility(taskIndex, evaluation.utility!, evaluation.evaluator);
      }
    }
  }

  planDeletion(policy: DeletionPolicyName): DeletionPlan {
    const plan = this.manager.plan(policy, this.planParams(policy));
    const withQuestions: DeletionPlan = { ...plan, candidates: plan.candidates.map((c) => ({ ...c, question: c.question || this.store.get(c.recordId)?.question || '' })) };
    this.plans.set(withQuestions, plan);
    return withQuestions;
  }

  /** A capacity plan without a configured capacity previews against the current size. */
  private planParams(policy: DeletionPolicyName): { capacity?: number } {
    return policy === 'capacity' && this.settings.capacity === 0 ? { capacity: this.store.counts().active } : {};
  }

  applyDeletion(plan: DeletionPlan): number {
    // A plan that came back through a webview/command is matched by ids against a fresh dry run.
    const known = this.plans.get(plan);
    const fresh = known ?? this.manager.plan(plan.policy, this.planParams(plan.policy));
    const wanted = new Set(plan.candidates.map((c) => c.recordId));
    const filtered: PolicyDeletionPlan = { ...fresh, candidates: fresh.candidates.filter((c) => wanted.has(c.recordId)) };
    return this.manager.apply(filtered, 'user').deleted.length;
  }

  // ------------------------------------------------------------ the agent

  async runTask(question: string, options: { signal?: AbortSignal; groundTruth?: unknown } = {}): Promise<AgentTaskResult> {
    if (!question.trim()) throw new AgentMemoryError('INVALID_INPUT', 'The question is empty: type a question about the database.');
    if (!fs.existsSync(this.dataPath)) throw new AgentMemoryError('CONFIG', `The database the agent queries was not found at ${this.dataPath}. Set agentMemory.agent.dataPath.`);
    const language = this.settings.runner.language;
    const evaluator = options.groundTruth !== undefined ? new GoldEvaluator(options.groundTruth, 'strict') : new EditorEvaluator(this.settings.addition.policy, this.model, this.logger);
    const r = await runTaskPipeline(
      {
        memory: this.manager,
        retriever: this.retriever,
        embedder: this.embedder,
        generator: this.generator,
        evaluator,
        run: (request, signal) => this.runner.run(request, signal),
        toolboxDocs: (lang) => toolboxDocs(lang),
        roles: this.roles.forModel(this.model),
        modelKind: this.model ? 'llm' : 'reuse',
        logger: this.options.logger,
      },
      question,
      { databasePath: this.dataPath, language, k: this.settings.retrieval.k, maxDebugRounds: this.settings.agent.maxDebugRounds, limits: { timeoutMs: this.settings.runner.timeoutMs, memoryMb: this.settings.runner.memoryMb }, signal: options.signal },
    );
    const { run, after } = r;
    return {
      taskIndex: run.taskIndex,
      question,
      model: run.model,
      language,
      code: run.code,
      answer: run.answer,
      outcome: run.outcome,
      verdict: r.verdict,
      modelKind: r.modelKind,
      attempts: run.attempts.length,
      demonstrations: run.demonstrations.map((d) => ({ recordId: d.recordId, question: d.question, inputSimilarity: d.inputSimilarity, code: d.code })),
      utility: after.utility,
      addition: { added: after.addition.recordId !== null, recordId: after.addition.recordId, status: after.addition.status ?? null, reason: after.addition.reason },
      deletions: after.deletions.map((d) => ({ rule: d.ruleId, recordIds: d.recordIds })),
      inputSimilarity: after.similarity.inputSimilarity,
      outputSimilarity: after.similarity.outputSimilarity,
      ...(run.gaveUp ? { error: run.gaveUp } : {}),
      durationMs: r.durationMs,
    };
  }

  async runStream(items: TaskStreamItem[], options: { signal?: AbortSignal; onProgress?: (p: TaskProgress) => void } = {}): Promise<AgentTaskResult[]> {
    const results: AgentTaskResult[] = [];
    for (const item of items) {
      if (options.signal?.aborted) break;
      try {
        results.push(await this.runTask(item.question, { signal: options.signal, groundTruth: item.answer }));
      } catch (error) {
        if (options.signal?.aborted) break;
        throw error;
      }
      options.onProgress?.({ done: results.length, total: items.length, last: results[results.length - 1] });
    }
    return results;
  }

  // ------------------------------------------------------------ data

  async importJsonl(file: string): Promise<number> {
    // Raw bytes: import checks they are valid UTF-8 and names the line of any that is not.
    const bytes = await fs.promises.readFile(file);
    const imported = this.store.atomically(() => {
      const result = importJsonl(this.store, bytes, { reason: `imported from ${path.basename(file)}`, ignoreEmbeddings: true });
      this.embedder = refitAndReembed(this.store, 'user').embedder;
      return result.imported;
    });
    return imported;
  }

  async exportJsonl(file: string, status?: RecordStatus): Promise<number> {
    const lines: string[] = [];
    const n = exportJsonl(this.store, (line) => lines.push(line), status ? { status: [status] } : {});
    const tmp = `${file}.tmp-${process.pid}`;
    // exportJsonl hands over complete lines (each ends with a newline).
    await fs.promises.writeFile(tmp, lines.join(''), 'utf8');
    await fs.promises.rename(tmp, file);
    return n;
  }

  async seedDemoMemory(count = DEFAULT_SEED_COUNT): Promise<number> {
    const tasks = readDemoTasks(path.join(this.options.demoDataDir, DEMO_TASKS_FILE));
    const records = demoSeedRecords(tasks, count, this.settings.runner.language);
    const existing = new Set((this.store.db.prepare("SELECT json_extract(metadata, '$.sourceId') AS s FROM records WHERE provenance = 'seed'").all() as { s: string | null }[]).map((r) => r.s));
    const fresh = records.filter((r) => !existing.has(String(r.metadata?.sourceId)));
    // One transaction: a failure (disk full) leaves neither records without vectors nor a half-fitted embedder.
    this.embedder = this.store.atomically(() => {
      if (fresh.length > 0) this.store.add(fresh, { trigger: 'user', reason: `seeded ${fresh.length} demo records (EHRSQL gold programs)` });
      return refitAndReembed(this.store, 'user').embedder;
    });
    return fresh.length;
  }

  async reembed(): Promise<number> {
    const { embedder, count } = refitAndReembed(this.store, 'user');
    this.embedder = embedder;
    return count;
  }

  /** The memory as tools for other agents (VS Code language-model tools), on this app's store and policies. */
  memoryTools(): MemoryTools {
    // Functions: configure() replaces the manager and the embedder; the tools always use the current ones.
    this.tools ??= new MemoryTools({
      store: this.store,
      tasks: () => this.manager.tasks,
      retrieve: (question, vector, k) => this.retriever.retrieve(question, vector, k),
      embedder: () => this.embedder,
      afterTask: (input) => this.manager.afterTask(input),
      additionPolicy: () => this.settings.addition.policy,
    });
    return this.tools;
  }

  // ------------------------------------------------------------ role memories

  roleMemories(): RoleMemoryView[] {
    return (['coder', 'debugger'] as const).map((role) => {
      const m = this.roles.get(role);
      return { role, lessons: m.lessons, validPatterns: m.validPatterns, mistakesToAvoid: m.mistakesToAvoid, updates: m.updates };
    });
  }

  resetRoleMemory(role: Role): void {
    this.roles.reset(role);
  }

  /** Releases everything; a failing step is logged, never thrown (it would mask the error that led here). */
  dispose(): void {
    const steps: [string, () => void][] = [
      ['memory manager', () => this.manager.dispose()],
      ['runner', () => this.runner.dispose()],
      ['retriever', () => this.retriever.close()],
      ['EHR database', () => this.dataDb?.close()],
      ['memory store', () => this.store.close()],
    ];
    for (const [what, step] of steps) {
      try {
        step();
      } catch (error) {
        this.logger.warn(`closing the ${what} failed: ${errorMessage(error)}`);
      }
    }
  }
}
