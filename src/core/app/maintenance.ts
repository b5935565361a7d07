/**
 * Maintenance of the memory: the store's built-in embedder (re-fitted on an
 * explicit re-embed), JSONL import and export, seeding the demo memory.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_SEED_COUNT, DEMO_TASKS_FILE, demoSeedRecords, readDemoTasks } from '../data/ehr-tasks';
import { Disposable } from '../lifecycle';
import type { Logger } from '../logger';
import { exportJsonl, importJsonl } from '../memory/jsonl';
import type { MemoryStore } from '../memory/store';
import type { RecordStatus } from '../memory/types';
import { refitAndReembed, storeEmbedder, SyncEmbedder } from './embedding';
import type { SettingsSession } from './settings-session';

export class Maintenance extends Disposable {
  private current: SyncEmbedder;

  constructor(private readonly store: MemoryStore, private readonly session: SettingsSession, private readonly demoDataDir: string, logger: Logger) {
    super();
    this.current = storeEmbedder(store, logger);
  }

  /** The embedder every question and record of this store is embedded with. */
  get embedder(): SyncEmbedder {
    return this.current;
  }

  async reembed(): Promise<number> {
    const { embedder, count } = refitAndReembed(this.store, 'user');
    this.current = embedder;
    return count;
  }

  async importJsonl(file: string): Promise<number> {
    // Raw bytes: import checks they are valid UTF-8 and names the line of any that is not.
    const bytes = await fs.promises.readFile(file);
    // One transaction: a failure (disk full) leaves neither records without vectors nor a half-fitted embedder.
    return this.store.atomically(() => {
      const result = importJsonl(this.store, bytes, { reason: `imported from ${path.basename(file)}`, ignoreEmbeddings: true });
      this.current = refitAndReembed(this.store, 'user').embedder;
      return result.imported;
    });
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
    // One transaction: a failure (disk full) leaves neither records without vectors nor a half-fitted embedder.
    this.current = this.store.atomically(() => {
      if (fresh.length > 0) this.store.add(fresh, { trigger: 'user', reason: `seeded ${fresh.length} demo records (EHRSQL gold programs)` });
      return refitAndReembed(this.store, 'user').embedder;
    });
    return fresh.length;
  }
}
