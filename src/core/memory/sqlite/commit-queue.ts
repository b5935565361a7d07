import type { Database } from './database';

/**
 * Post-commit work of a store: outside a transaction an action runs at once;
 * inside {@link CommitQueue.atomically} it is queued and runs after the commit,
 * in order, or is dropped on rollback. Consecutive "task changed" notices are
 * coalesced into one (they carry no ids).
 */
export class CommitQueue {
  private deferred: (() => void)[] | null = null;
  private coalescedAt: number | null = null;

  constructor(private readonly db: Database) {}

  get inTransaction(): boolean {
    return this.deferred !== null;
  }

  /** Runs `action` now, or after the enclosing atomically() commits. */
  afterCommit(action: () => void): void {
    if (this.deferred) this.deferred.push(action);
    else action();
  }

  /** Like afterCommit, but at most one such action is queued per transaction. */
  afterCommitOnce(action: () => void): void {
    if (this.deferred) {
      if (this.coalescedAt !== null) return;
      this.coalescedAt = this.deferred.length;
    }
    this.afterCommit(action);
  }

  /** Runs `fn` as one IMMEDIATE transaction; nested calls join the outer one (as a savepoint). */
  atomically<T>(fn: () => T): T {
    const queue = this.deferred;
    if (queue) {
      const mark = queue.length;
      try {
        return this.db.transaction(fn)();
      } catch (error) {
        queue.length = mark;
        if (this.coalescedAt !== null && this.coalescedAt >= mark) this.coalescedAt = null;
        throw error;
      }
    }
    const actions: (() => void)[] = [];
    this.deferred = actions;
    this.coalescedAt = null;
    let result: T;
    try {
      result = this.db.transaction(fn).immediate();
    } finally {
      this.deferred = null;
      this.coalescedAt = null;
    }
    for (const action of actions) action();
    return result;
  }
}
