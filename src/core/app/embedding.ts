import type { Logger } from '../logger';
import type { MemoryStore } from '../memory/sqlite/store';
import { HashingEmbedder } from '../similarity/hashing-embedder';
import { fitTextStatistics, TextStatistics } from '../similarity/text/text-statistics';

const STATISTICS_META = 'embedder_statistics';

/** Anything that embeds one text synchronously (the built-in embedder). */
export interface SyncEmbedder {
  readonly id: string;
  readonly dimension: number;
  embedSync(text: string): Float32Array;
}

/**
 * The built-in embedder of a store: fitted statistics are persisted in the
 * store's metadata so that every process embeds with the same id; they are
 * (re)fitted only on an explicit re-embed or when the memory is first seeded.
 */
export function storeEmbedder(store: MemoryStore, logger: Logger): HashingEmbedder {
  const raw = store.getMeta(STATISTICS_META);
  if (raw) {
    try {
      return new HashingEmbedder({ statistics: TextStatistics.fromJSON(JSON.parse(raw)) });
    } catch (error) {
      logger.warn(`[embedder] stored statistics are unreadable (${String(error)}); using the unfitted embedder until the next re-embed`);
    }
  }
  return new HashingEmbedder();
}

/**
 * Re-fits the built-in embedder on all records and re-embeds every record in one
 * transaction (audit: re-embed). Returns the new embedder.
 */
export function refitAndReembed(store: MemoryStore, trigger: 'user' | 'import' | 'agent'): { embedder: HashingEmbedder; count: number } {
  const rows = store.queries.embeddingSources();
  const statistics = rows.length > 0 ? fitTextStatistics(rows) : undefined;
  const embedder = new HashingEmbedder({ statistics });
  const vectors = new Map(rows.map((r) => [r.id, embedder.embedSync(r.question)]));
  store.replaceEmbeddings(vectors, embedder.id, { trigger, reason: `re-embedded ${rows.length} records with ${embedder.id}` });
  if (statistics) store.setMeta(STATISTICS_META, JSON.stringify(statistics.toJSON()));
  else store.deleteMeta(STATISTICS_META);
  return { embedder, count: rows.length };
}
