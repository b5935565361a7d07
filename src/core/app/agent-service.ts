/**
 * The agent of the editor and the CLI: the model (reuse or LLM endpoint), the
 * runner, the role memories and the data database the generated code queries,
 * each rebuilt from settings between tasks; every task goes through the one task
 * pipeline (src/core/agent/task-pipeline.ts).
 */
import BetterSqlite3 from 'better-sqlite3';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CodeGenerator, LlmCodeGenerator, ReuseCodeGenerator } from '../agent/loop/generators';
import { ModelClient } from '../agent/model/model-client';
import type { MemoryRetriever } from '../agent/retriever';
import { DatabaseValueLookup } from '../agent/reuse/value-lookup';
import type { Role } from '../agent/role-memory';
import { RoleMemories } from '../agent/role-memories';
import { JsonFileRoleMemoryStore } from '../agent/role-memory-store';
import { questionProblem } from '../agent/question';
import { createRunner, toolboxDocs, type CodeRunner, type RunLanguage } from '../agent/runners';
import { databaseFingerprint } from '../revalidation/fingerprint';
import { revalidate, type RevalidationReport } from '../revalidation/revalidate';
import { EditorEvaluator, GoldEvaluator, HumanReviewedGoldEvaluator } from '../agent/task-evaluators';
import { NO_GOLD_LOG_FIELD, noGoldStatus } from '../agent/gold-answer';
import { runTaskPipeline } from '../agent/task-pipeline';
import { assertDataDatabase } from '../data/data-database';
import { DEMO_DATABASE_FILE } from '../data/ehr-tasks';
import { readDomainValuesOffThread } from '../data/domain-values-reader';
import { perFileVersion } from '../data/per-file-version';
import { AgentMemoryError, errorMessage } from '../errors';
import type { DomainValues } from '../memory/search/domain-values';
import { Disposable } from '../lifecycle';
import type { Logger } from '../logger';
import type { Settings } from '../settings';
import type { Maintenance } from './maintenance';
import type { MemoryPolicies } from './memory-policies';
import { RunnerHolder } from './runner-holder';
import type { SettingsSession } from './settings-session';
import { taskResultOf } from './task-result';
import type { AgentTaskResult, RoleMemoryView, TaskProgress, TaskStreamItem } from './types';

interface Model {
  generator: CodeGenerator;
  /** The chat model (judge, role memories); null for the reuse model. */
  chat: ModelClient | null;
}

/** A database larger than this is not scanned for the re-ranking's value columns in the editor's process. */
export const MAX_DOMAIN_VALUES_FILE_MB = 256;

/** The database the agent's programs query: agentMemory.agent.dataPath, else the bundled demo in `demoDataDir`. */
export function agentDataPathOf(settings: Settings, demoDataDir: string): string {
  return settings.agent.dataPath || path.join(demoDataDir, DEMO_DATABASE_FILE);
}

export interface AgentServiceOptions {
  demoDataDir: string;
  storageDir: string;
  logger: Logger;
}

export class AgentService extends Disposable {
  private readonly runners: RunnerHolder;
  private model: Model;
  private dataDb: { path: string; db: BetterSqlite3.Database } | null = null;
  private roles!: RoleMemories;
  /** The data fingerprint (taken again only when the file changed). */
  private readonly fingerprintOf = perFileVersion((file) => databaseFingerprint(file).id);
  /**
   * The agent database's values for the re-ranking (read again only when the file changed); null for a
   * file over {@link MAX_DOMAIN_VALUES_FILE_MB} MB, whose columns would be scanned in the editor's process.
   */
  private readonly domainValuesOf = perFileVersion((file, size): Promise<DomainValues | null> => {
    if (size <= MAX_DOMAIN_VALUES_FILE_MB * 1024 * 1024) return readDomainValuesOffThread(file);
    this.options.logger.info(`retrieval: the values of ${file} are not read for re-ranking (over ${MAX_DOMAIN_VALUES_FILE_MB} MB)`);
    return Promise.resolve(null);
  });
  /** The values the retriever last got, and the database they are of (null: none). */
  private domainValues: { path: string; values: DomainValues | null } | null = null;

  constructor(
    private readonly session: SettingsSession,
    private readonly policies: MemoryPolicies,
    private readonly retriever: MemoryRetriever,
    private readonly maintenance: Maintenance,
    private readonly options: AgentServiceOptions,
  ) {
    super();
    this.runners = this._register(new RunnerHolder(session.settings.runner, options.logger));
    this.model = this.createModel(session.settings, session.apiKey);
    this._register({ dispose: () => this.dataDb?.db.close() });
    this.retriever.configure({ rerank: session.settings.retrieval.rerank, domainValues: null });
    this.startDomainValues(session.settings);
    this._register(
      session.onDidApply(({ settings, apiKey }) => {
        this.runners.use(settings.runner);
        this.model = this.createModel(settings, apiKey);
        const known = this.domainValues?.path === this.dataPath(settings) ? this.domainValues.values : null;
        this.retriever.configure({ rerank: settings.retrieval.rerank, domainValues: known });
        this.startDomainValues(settings);
      }),
    );
  }

  /** {@link useDomainValues} in the background (the editor does not wait; a task does, see run). */
  private startDomainValues(settings: Settings): void {
    this.useDomainValues(settings).catch((error: unknown) => this.options.logger.warn(`retrieval: the agent database's values were not applied (${errorMessage(error)})`));
  }

  /**
   * Whenever the agent has a database (issue 35; re-ranking on or off), its values go to the retriever:
   * the re-ranking applies only with them (rerank.ts, rerankApplies) and memory_search's relevance floor
   * leaves a query's words in them out of its known share. Read in a worker thread when the app starts,
   * when the settings name another file, and before each task (again only when the file changed; about
   * 0.6 s for the demo: the task waits, the editor does not); a file over
   * {@link MAX_DOMAIN_VALUES_FILE_MB} MB is not read (its columns would be scanned in the editor's
   * process), nor one that cannot be read, nor a missing one: the search is then the fused one.
   */
  private async useDomainValues(settings: Settings): Promise<void> {
    const dataPath = this.dataPath(settings);
    const values = fs.existsSync(dataPath) ? await this.valuesFor(dataPath) : null;
    // Read for a database the settings no longer name (changed meanwhile): the newer read applies.
    const current = this.session.settings;
    if (this.isDisposed || this.dataPath(current) !== dataPath) return;
    this.domainValues = { path: dataPath, values };
    this.retriever.configure({ rerank: current.retrieval.rerank, domainValues: values });
  }

  /** The agent database's values for a re-ranking (the team memory's too), as the personal memory's tasks read them. */
  rerankValues(): Promise<DomainValues | null> {
    return this.valuesFor(this.agentDataPath);
  }

  private async valuesFor(dataPath: string): Promise<DomainValues | null> {
    try {
      return await this.domainValuesOf(dataPath);
    } catch (error) {
      this.options.logger.warn(`retrieval: the values of ${dataPath} could not be read for re-ranking (${errorMessage(error)}); it uses the memory's programs only`);
      return null;
    }
  }

  async loadRoleMemories(): Promise<void> {
    this.roles = await RoleMemories.load(new JsonFileRoleMemoryStore(path.join(this.options.storageDir, 'role-memories')), this.options.logger);
  }

  /** The database the agent's programs query (the setting, else the bundled demo). */
  get agentDataPath(): string {
    return this.dataPath(this.session.settings);
  }

  private dataPath(settings: Settings): string {
    return agentDataPathOf(settings, this.options.demoDataDir);
  }

  private createModel(settings: Settings, apiKey: string | undefined): Model {
    const { baseUrl, name } = settings.model;
    if (baseUrl && name) {
      const chat = new ModelClient({ baseURL: baseUrl, model: name, apiKey }, this.options.logger);
      return { generator: new LlmCodeGenerator(chat, settings.agent.promptBudgetTokens), chat };
    }
    const file = this.dataPath(settings);
    return { generator: new ReuseCodeGenerator(fs.existsSync(file) ? new DatabaseValueLookup(this.openData(file)) : undefined), chat: null };
  }

  private openData(file: string): BetterSqlite3.Database {
    if (this.dataDb?.path !== file) {
      this.dataDb?.db.close();
      this.dataDb = { path: file, db: new BetterSqlite3(file, { readonly: true, fileMustExist: true }) };
    }
    return this.dataDb.db;
  }

  /** One task; the settings, model, runner and memory manager stay fixed until it has finished. */
  runTask(question: string, options: { signal?: AbortSignal; groundTruth?: unknown; humanReview?: boolean } = {}): Promise<AgentTaskResult> {
    const problem = questionProblem(question);
    if (problem) return Promise.reject(new AgentMemoryError('INVALID_INPUT', problem));
    return this.session.runTask((settings) => this.run(settings, question, options));
  }

  private async run(settings: Settings, question: string, options: { signal?: AbortSignal; groundTruth?: unknown; humanReview?: boolean }): Promise<AgentTaskResult> {
    const dataPath = this.dataPath(settings);
    assertDataDatabase(dataPath);
    await this.useDomainValues(settings);
    // Re-ranking on: the task re-ranks from its first retrieval (the shapes read in the background since the setting applied).
    if (settings.retrieval.rerank) await this.retriever.ready;
    const language = settings.runner.language;
    const { generator, chat } = this.model;
    const runner = this.runners.runner;
    const policy = settings.addition.policy;
    // A gold answer that is empty, null or a lone 0 on this database checks nothing: the task runs as one without
    // a gold answer and its log says so (never counted correct, see gold-answer.ts).
    const noGold = options.groundTruth === undefined ? undefined : noGoldStatus(options.groundTruth);
    // An editor stream under strict addition: the gold answer marks the verdict, the human still approves.
    const evaluator =
      options.groundTruth === undefined || noGold
        ? new EditorEvaluator(policy, chat, this.options.logger)
        : options.humanReview && policy === 'strict'
          ? new HumanReviewedGoldEvaluator(options.groundTruth)
          : new GoldEvaluator(options.groundTruth, 'strict');
    const r = await runTaskPipeline(
      {
        memory: this.policies.manager,
        retriever: this.retriever,
        embedder: this.maintenance.embedder,
        generator,
        evaluator,
        run: (request, signal) => runner.run(request, signal),
        toolboxDocs: (lang) => toolboxDocs(lang),
        roles: this.roles.forModel(chat),
        modelKind: chat ? 'llm' : 'reuse',
        logger: this.options.logger,
      },
      question,
      {
        databasePath: dataPath,
        language,
        k: settings.retrieval.k,
        maxDebugRounds: settings.agent.maxDebugRounds,
        limits: { timeoutMs: settings.runner.timeoutMs, memoryMb: settings.runner.memoryMb },
        signal: options.signal,
        ...(noGold ? { logExtra: { [NO_GOLD_LOG_FIELD]: noGold } } : {}),
      },
    );
    const { run, after } = r;
    if (after.addition.recordId && run.outcome === 'success') this.policies.recordFingerprint(after.addition.recordId, this.fingerprintOf(dataPath));
    return taskResultOf(r, question, language, run.taskIndex);
  }

  /** Tasks one after the other; settings changed during the stream apply between two of its tasks. */
  async runStream(items: TaskStreamItem[], options: { signal?: AbortSignal; onProgress?: (p: TaskProgress) => void; humanReview?: boolean } = {}): Promise<AgentTaskResult[]> {
    const results: AgentTaskResult[] = [];
    for (const item of items) {
      if (options.signal?.aborted) break;
      try {
        results.push(await this.runTask(item.question, { signal: options.signal, groundTruth: item.answer, humanReview: options.humanReview }));
      } catch (error) {
        if (options.signal?.aborted) break;
        throw error;
      }
      options.onProgress?.({ done: results.length, total: items.length, last: results[results.length - 1] });
    }
    return results;
  }

  /**
   * Re-runs the records' programs against the agent's database (src/core/revalidation),
   * between tasks (settings fixed), with the runner isolation and limits of the settings.
   */
  revalidate(options: { signal?: AbortSignal; onProgress?: (done: number, total: number) => void; onlyIfChanged?: boolean } = {}): Promise<RevalidationReport> {
    return this.session.runTask(async (settings) => {
      const runners = new Map<RunLanguage, CodeRunner>();
      try {
        return await revalidate(this.policies.store, {
          dataPath: this.dataPath(settings),
          runner: (language) => {
            let r = runners.get(language);
            if (!r) runners.set(language, (r = createRunner(language, { logger: this.options.logger, isolation: settings.runner.isolation })));
            return r;
          },
          limits: { timeoutMs: settings.runner.timeoutMs, memoryMb: settings.runner.memoryMb },
          ...options,
        });
      } finally {
        for (const r of runners.values()) r.dispose();
      }
    });
  }

  roleMemories(): RoleMemoryView[] {
    return (['coder', 'debugger'] as const).map((role) => {
      const m = this.roles.get(role);
      return { role, lessons: m.lessons, validPatterns: m.validPatterns, mistakesToAvoid: m.mistakesToAvoid, updates: m.updates };
    });
  }

  resetRoleMemory(role: Role): void {
    this.roles.reset(role);
  }
}
