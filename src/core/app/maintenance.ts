/**
 * Maintenance of the memory: the embedder (the built-in one, re-fitted on an
 * explicit re-embed, or an OpenAI-compatible endpoint set in
 * agentMemory.embedding.*), re-embedding, JSONL import and export, seeding the
 * demo memory.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_SEED_COUNT, DEMO_TASKS_FILE, demoSeedRecords, readDemoTasks } from '../data/ehr-tasks';
import { Disposable } from '../lifecycle';
import type { Logger } from '../logger';
import { checkJsonl, exportJsonl, importJsonl } from '../memory/io/jsonl';
import type { MemoryStore } from '../memory/sqlite/store';
import type { RecordStatus } from '../memory/types';
import { AgentMemoryError, errorMessage } from '../errors';
import type { QueryEmbedder } from '../similarity/embedder';
import { EndpointEmbedder } from '../similarity/endpoint-embedder';
import { refitAndReembed, storeEmbedder, SyncEmbedder } from './embedding';
import { isEndpointEmbedderId, reembedWithEndpoint, type ReembedProgress, ServingEmbedder, storeEndpoint } from './endpoint-embedding';
import type { SettingsSession } from './settings-session';

export interface ReembedOptions {
  signal?: AbortSignal;
  onProgress?(progress: ReembedProgress): void;
}

export interface MaintenanceOptions {
  /** The embedding endpoint's API key (SecretStorage in the editor, an environment variable elsewhere). */
  embeddingApiKey?(): Promise<string | undefined>;
  /** Told once per failure streak of the endpoint while it serves queries. */
  onEmbeddingFailure?(error: AgentMemoryError): void;
}

export class Maintenance extends Disposable {
  private current: SyncEmbedder;
  private readonly serving: ServingEmbedder;

  constructor(
    private readonly store: MemoryStore,
    private readonly session: SettingsSession,
    private readonly demoDataDir: string,
    private readonly logger: Logger,
    private readonly options: MaintenanceOptions = {},
  ) {
    super();
    this.current = storeEmbedder(store, logger);
    this.serving = new ServingEmbedder(store, {
      builtin: () => this.current,
      configured: () => this.configuredEndpoint(),
      apiKey: () => this.apiKey(),
      logger,
      onFailure: options.onEmbeddingFailure,
    });
  }

  /** The embedder every question and record of this store is embedded with (the one its vectors come from). */
  get embedder(): QueryEmbedder {
    return this.serving;
  }

  /**
   * Re-embeds every record with the configured embedder: the endpoint of
   * agentMemory.embedding.* when a model is set (progress, cancel; the old
   * vectors serve until the new ones are complete), else the re-fitted built-in one.
   */
  async reembed(options: ReembedOptions = {}): Promise<number> {
    const configured = this.configuredEndpoint();
    this.serving.reset();
    if (!configured) {
      const { embedder, count } = refitAndReembed(this.store, 'user');
      this.current = embedder;
      return count;
    }
    const embedder = new EndpointEmbedder({ ...configured, apiKey: await this.apiKey(), cache: this.store.embeddingCache, logger: this.logger });
    return (await reembedWithEndpoint(this.store, embedder, { ...options, logger: this.logger })).count;
  }

  /** Forgets the endpoint client (the key or the settings changed). */
  embeddingChanged(): void {
    this.serving.reset();
  }

  private configuredEndpoint(): { baseURL: string; model: string } | undefined {
    const { model, baseUrl } = this.session.settings.embedding;
    if (!model) return undefined;
    if (!baseUrl) throw new AgentMemoryError('CONFIG', `agentMemory.embedding.model is "${model}" but agentMemory.embedding.baseUrl is empty. Set the endpoint's base URL (e.g. https://api.openai.com/v1), or clear the model to use the built-in embedder.`);
    return { baseURL: baseUrl, model };
  }

  private async apiKey(): Promise<string | undefined> {
    return this.options.embeddingApiKey ? this.options.embeddingApiKey() : undefined;
  }

  /** After records were added without vectors to an endpoint-embedded memory: embeds them (only new texts reach the endpoint). */
  private async completeEndpointVectors(): Promise<void> {
    try {
      const embedder = await storeEndpoint(this.store, { configured: () => this.configuredEndpoint(), apiKey: () => this.apiKey(), logger: this.logger });
      if (embedder) await reembedWithEndpoint(this.store, embedder, { logger: this.logger });
    } catch (error) {
      this.logger.warn(`[embedder] the new records have no vectors yet (${errorMessage(error)}); keyword retrieval finds them. Run "Agent Memory: Re-embed Memory" when the endpoint answers.`);
    }
  }

  private endpointServes(): boolean {
    return isEndpointEmbedderId(this.store.embedder?.id);
  }

  async importJsonl(file: string, options: { skipInvalid?: boolean } = {}): Promise<number> {
    // Raw bytes: import checks they are valid UTF-8 and names the line of any that is not.
    const bytes = await fs.promises.readFile(file);
    const importOptions = { reason: `imported from ${path.basename(file)}`, ignoreEmbeddings: true, skipInvalid: options.skipInvalid === true };
    if (this.endpointServes()) {
      const { imported, skipped } = importJsonl(this.store, bytes, importOptions);
      this.logSkipped(file, skipped);
      await this.completeEndpointVectors();
      return imported;
    }
    // One transaction: a failure (disk full) leaves neither records without vectors nor a half-fitted embedder.
    return this.store.atomically(() => {
      const result = importJsonl(this.store, bytes, importOptions);
      this.logSkipped(file, result.skipped);
      this.current = refitAndReembed(this.store, 'user').embedder;
      return result.imported;
    });
  }

  /** Checks a JSONL file as importJsonl does, writing nothing. */
  async checkJsonlFile(file: string): Promise<{ valid: number; problems: string[] }> {
    const { records, problems } = checkJsonl(await fs.promises.readFile(file));
    return { valid: records.length, problems };
  }

  private logSkipped(file: string, skipped: readonly string[]): void {
    for (const problem of skipped) this.logger.warn(`[import] skipped ${path.basename(file)} ${problem}`);
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

  /** Adds the demo's initial memory (EHRSQL gold programs), skipping records seeded before; then re-embeds. */
  async seedDemoMemory(count = DEFAULT_SEED_COUNT): Promise<number> {
    const tasks = readDemoTasks(path.join(this.demoDataDir, DEMO_TASKS_FILE));
    const records = demoSeedRecords(tasks, count, this.session.settings.runner.language);
    const existing = this.store.queries.seedSourceIds();
    const fresh = records.filter((r) => !existing.has(String(r.metadata?.sourceId)));
    if (this.endpointServes()) {
      if (fresh.length > 0) this.store.add(fresh, { trigger: 'user', reason: `seeded ${fresh.length} demo records (EHRSQL gold programs)` });
      await this.completeEndpointVectors();
      return fresh.length;
    }
    // One transaction: a failure (disk full) leaves neither records without vectors nor a half-fitted embedder.
    this.current = this.store.atomically(() => {
      if (fresh.length > 0) this.store.add(fresh, { trigger: 'user', reason: `seeded ${fresh.length} demo records (EHRSQL gold programs)` });
      return refitAndReembed(this.store, 'user').embedder;
    });
    return fresh.length;
  }
}
