import { storeEmbedder } from '../app/embedding';
import { Logger, nullLogger } from '../logger';
import { MemoryStore } from '../memory/sqlite/store';
import { SyntheticRecords } from './synthetic-records';

/** Records written per transaction by `seedSynthetic`. */
export const SYNTHETIC_BATCH = 1000;

/**
 * Appends `count` synthetic active records (EHRSQL question variants, see
 * SyntheticRecords) to the store at `databasePath`, embedded with the store's
 * own built-in embedder, in transactions of SYNTHETIC_BATCH records. Ids are
 * `syn-<seed>-<n>`, so a second run with the same seed fails on the first
 * duplicate id and writes nothing more (each batch is one transaction).
 *
 * @example
 * seedSynthetic({ databasePath: 'big.sqlite', tasksFile: 'data/ehr/ehrsql-mimic3-tasks.jsonl', count: 100_000 });
 */
export function seedSynthetic(options: { databasePath: string; tasksFile: string; count: number; seed?: number; logger?: Logger }): number {
  const logger = options.logger ?? nullLogger;
  const seed = options.seed ?? 7;
  const gen = SyntheticRecords.fromFile(options.tasksFile, seed);
  const store = MemoryStore.open(options.databasePath, { logger });
  try {
    const embedder = storeEmbedder(store, logger);
    const base = store.counts();
    const offset = base.active + base.pending + base.deleted;
    let added = 0;
    while (added < options.count) {
      const batch = gen.records(Math.min(SYNTHETIC_BATCH, options.count - added)).map((r, i) => ({ ...r, id: `syn-${seed}-${offset + added + i + 1}`, createdTask: 0 }));
      const vectors = batch.map((r) => embedder.embedSync(r.question));
      store.add(batch, { trigger: 'import', reason: 'synthetic test memory', embeddings: vectors, embedderId: embedder.id, returnRecords: false });
      added += batch.length;
    }
    return added;
  } finally {
    store.close();
  }
}
