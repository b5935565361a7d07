/**
 * The memory a standalone tool server works on: one database file opened with
 * the same pieces the app uses (store, hybrid retriever, memory manager with the
 * given addition policy, the store's built-in embedder). Other processes (the
 * editor, other servers) may write the same file: the indexes follow their
 * changes, and the embedder is re-read when another process re-embedded.
 *
 * @example
 * const memory = openToolMemory({ databasePath: 'memory.sqlite', addition: 'strict', logger });
 * memory.tools.search({ query: 'parse a CSV' }, { via: 'mcp', name: 'claude-code' });
 * await memory.close();
 */
import * as path from 'node:path';
import { storeEmbedder, SyncEmbedder } from '../core/app/embedding';
import { ServingEmbedder } from '../core/app/endpoint-embedding';
import { MemoryRetriever } from '../core/agent/retriever';
import type { Logger } from '../core/logger';
import type { MemoryBudget } from '../core/memory/memory-budget';
import type { DomainValues } from '../core/memory/search/domain-values';
import { MemoryStore } from '../core/memory/sqlite/store';
import type { AdditionPolicyName } from '../core/policy/addition';
import { MemoryManager } from '../core/policy/memory-manager';
import { codeSimilarity } from '../core/similarity/code';
import { MemoryTools } from '../core/tools/memory-tools';

export interface ToolMemoryOptions {
  databasePath: string;
  addition: AdditionPolicyName;
  logger: Logger;
  /** The key of the embedding endpoint the memory's vectors come from, if any (EMBEDDING_API_KEY_ENV). */
  embeddingApiKey?: string;
  /** The folder citations must lie in (default: the working directory, the client's workspace for an MCP server). */
  citationRoot?: string;
  /** Re-rank memory_search (hybrid-search's opt-in stage); it applies only once `domainValues` are given. */
  rerank?: boolean;
  /**
   * The values of the database the agent's programs query (`mcp --values-from`), applied when read: the
   * re-ranking applies only with them and the relevance floor reads them. A rejection leaves the fused
   * search (the caller says why).
   */
  domainValues?: Promise<DomainValues>;
  /** Caps of the memory's caches (default: the default budget; memory-budget.ts). */
  memoryBudget?: MemoryBudget;
}

export interface ToolMemory {
  readonly tools: MemoryTools;
  readonly store: MemoryStore;
  /**
   * Closes the memory: indexes first, then (once the keyword worker has
   * stopped, or after `waitMs`) the store, whose close is then the last one,
   * so the file is left clean and the next open skips the full check.
   */
  close(waitMs?: number): Promise<void>;
}

/** How long close() waits for the keyword worker before closing the store anyway. */
export const TOOL_MEMORY_CLOSE_WAIT_MS = 500;

export function openToolMemory(options: ToolMemoryOptions): ToolMemory {
  const { logger } = options;
  const store = MemoryStore.open(options.databasePath === ':memory:' ? ':memory:' : path.resolve(options.databasePath), { logger, channel: 'mcp', memoryBudget: options.memoryBudget });
  let retriever: MemoryRetriever | undefined;
  let manager: MemoryManager | undefined;
  try {
    retriever = MemoryRetriever.open(store, { logger, rerank: options.rerank, memoryBudget: options.memoryBudget });
    manager = new MemoryManager(store, { addition: options.addition, mode: 'editor', codeSimilarity: (a, b, lang) => codeSimilarity(a, b, lang), logger });
  } catch (error) {
    retriever?.close();
    store.close();
    throw error;
  }
  const r = retriever;
  const m = manager;
  let closed = false;
  options.domainValues?.then(
    (values) => {
      if (!closed) r.configure({ rerank: options.rerank === true, domainValues: values });
    },
    () => undefined,
  );
  let embedder: SyncEmbedder = storeEmbedder(store, logger);
  const currentEmbedder = (): SyncEmbedder => {
    const stored = store.embedder;
    // Another process re-embedded (or seeded) the memory: take its fitted embedder.
    if (stored && stored.id !== embedder.id) embedder = storeEmbedder(store, logger);
    return embedder;
  };
  // Queries are embedded by whatever built the vectors: the built-in embedder, or the endpoint recorded in the store.
  const serving = new ServingEmbedder(store, { builtin: currentEmbedder, configured: () => undefined, apiKey: async () => options.embeddingApiKey, logger });
  const tools = new MemoryTools({
    store,
    tasks: () => m.tasks,
    retrieve: (question, vector, k, options) => r.retrieve(question, vector, k, options),
    embedder: () => serving,
    afterTask: (input) => m.afterTask(input),
    additionPolicy: () => options.addition,
    citationRoot: () => options.citationRoot ?? process.cwd(),
  });
  return {
    tools,
    store,
    close: async (waitMs = TOOL_MEMORY_CLOSE_WAIT_MS) => {
      closed = true;
      m.dispose();
      r.close();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([r.stopped, new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
      clearTimeout(timer);
      store.close();
    },
  };
}
