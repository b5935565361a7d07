import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { TaskLog } from '../../../src/core/memory/sqlite/task-log';
import type { Provenance } from '../../../src/core/memory/types';
import { sampleRecord } from '../../support/records';

/** A hand-built memory history on a real in-memory store. */
export class History {
  readonly store = MemoryStore.open(':memory:');
  readonly tasks = new TaskLog(this.store);

  record(id: string, createdTask: number, provenance: Provenance = 'agent', status: 'active' | 'pending' = 'active'): string {
    this.store.add([sampleRecord({ id, createdTask, provenance, status, question: `question for ${id}` })], { trigger: 'agent' });
    return id;
  }

  /** Retrieves `ids` in task `taskIndex` and evaluates that task with Φ = utility (null: not evaluated). */
  retrieve(taskIndex: number, ids: string[], utility: number | null, inputSimilarity = 0.8): void {
    this.tasks.logRetrievals(taskIndex, ids.map((recordId, rank) => ({ recordId, rank, inputSimilarity })));
    if (utility !== null) this.tasks.setUtility(taskIndex, utility);
  }

  /** Retrieves one record in consecutive tasks starting at `from`, with the given utilities. */
  retrieveSeries(id: string, from: number, utilities: (number | null)[]): void {
    utilities.forEach((u, i) => this.retrieve(from + i, [id], u));
  }

  close(): void {
    this.store.close();
  }
}
