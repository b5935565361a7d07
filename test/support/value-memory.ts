/**
 * A real in-memory store of EHR-style records and the demo database's values, for the relevance tests
 * that search through MemoryRetriever with and without the values (registers mocha's before/after).
 */
import * as path from 'node:path';
import { MemoryRetriever } from '../../src/core/agent/retriever';
import { readDomainValues } from '../../src/core/data/domain-values-reader';
import { nullLogger } from '../../src/core/logger';
import type { DomainValues } from '../../src/core/memory/search/domain-values';
import { DEFAULT_MIN_RELEVANCE } from '../../src/core/memory/search/relevance';
import { MemoryStore } from '../../src/core/memory/sqlite/store';
import { HashingEmbedder } from '../../src/core/similarity/hashing-embedder';
import { sampleRecord } from './records';

/** The bundled MIMIC-III demo database. */
export const EHR_DATABASE = path.join(__dirname, '..', '..', 'data', 'ehr', 'mimic3-demo.sqlite');

export interface ValueMemory {
  readonly store: MemoryStore;
  readonly values: DomainValues;
  /** A retriever on the store: without the values, or with them. */
  open(withValues: boolean): MemoryRetriever;
  /** The top 4 at the default relevance floor. */
  retrieve(retriever: MemoryRetriever, question: string): ReturnType<MemoryRetriever['retrieve']>;
}

/** Builds the store from `memory` (record i has id `r${i}`) before the suite's tests and closes it after. */
export function useValueMemory(memory: readonly { question: string; code: string }[]): ValueMemory {
  const embedder = new HashingEmbedder();
  let store: MemoryStore | null = null;
  let values: DomainValues | null = null;
  before(() => {
    store = MemoryStore.open(':memory:');
    const records = memory.map((r, i) => sampleRecord({ id: `r${i}`, question: r.question, code: r.code }));
    store.add(records, { trigger: 'user', embeddings: records.map((r) => embedder.embedSync(r.question)), embedderId: embedder.id });
    values = readDomainValues(EHR_DATABASE);
  });
  after(() => store?.close());
  const ready = <T>(x: T | null): T => {
    if (x === null) throw new Error('useValueMemory: used outside the suite that declared it');
    return x;
  };
  return {
    get store() {
      return ready(store);
    },
    get values() {
      return ready(values);
    },
    open: (withValues) => MemoryRetriever.open(ready(store), { file: null, logger: nullLogger, ...(withValues ? { domainValues: ready(values) } : {}) }),
    retrieve: (retriever, question) => retriever.retrieve(question, embedder.embedSync(question), 4, { minRelevance: DEFAULT_MIN_RELEVANCE }),
  };
}
