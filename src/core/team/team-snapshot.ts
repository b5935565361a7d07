/**
 * What a view shows of the team memory: the counts and the newest records of each status
 * (pending, active, deleted), paged ("load more" widens one status's page). Re-read from
 * the server when the session reports a change (the change feed) or on `reload()`; loads
 * are coalesced (one in flight, at most one queued), so a burst of notifications costs two
 * round trips, not one per change. A view reads `current` synchronously.
 *
 * @example
 * const snapshot = new TeamSnapshot(session);
 * snapshot.onDidLoad(() => tree.refresh());
 * snapshot.current?.records.pending; // newest first
 */
import { Emitter } from '../events';
import type { MemoryRecord, RecordStatus } from '../memory/types';
import { RECORD_STATUSES } from '../memory/types';
import type { TeamSession } from './team-session';

/** Records per page of one status. */
export const TEAM_PAGE_SIZE = 100;

export interface TeamSnapshotData {
  counts: Record<RecordStatus, number>;
  /** Newest first, at most the status's page limit. */
  records: Record<RecordStatus, MemoryRecord[]>;
  /** When the load finished (ms since epoch). */
  loadedAt: number;
}

export class TeamSnapshot {
  private readonly loaded = new Emitter<TeamSnapshotData>();
  /** Fires after each successful load. */
  readonly onDidLoad = this.loaded.event;
  private readonly failedLoad = new Emitter<unknown>();
  /** Fires when a load failed (the previous snapshot stays). */
  readonly onDidFail = this.failedLoad.event;
  private data: TeamSnapshotData | undefined;
  private loading: Promise<void> | undefined;
  private queued = false;
  private readonly pages = new Map<RecordStatus, number>();
  private readonly subscription: { dispose(): void };
  private disposed = false;

  constructor(private readonly session: TeamSession, private readonly pageSize = TEAM_PAGE_SIZE) {
    this.subscription = session.onDidChangeRecords(() => {
      this.reload().catch(() => undefined);
    });
  }

  /** The last loaded snapshot (undefined before the first load). */
  get current(): TeamSnapshotData | undefined {
    return this.data;
  }

  /** How many records of `status` the view shows (pages × page size). */
  limit(status: RecordStatus): number {
    return (this.pages.get(status) ?? 1) * this.pageSize;
  }

  /** Shows one more page of `status`, then reloads. */
  loadMore(status: RecordStatus): Promise<void> {
    this.pages.set(status, (this.pages.get(status) ?? 1) + 1);
    return this.reload();
  }

  /**
   * Re-reads the counts and pages. While a load runs, one more is queued (it sees every
   * change committed before it starts); the promise resolves when the data includes this call.
   */
  reload(): Promise<void> {
    if (this.disposed) return Promise.resolve();
    if (this.loading) {
      this.queued = true;
      return this.loading.then(() => this.loading ?? Promise.resolve());
    }
    const run = this.load().finally(() => {
      this.loading = undefined;
      if (this.queued && !this.disposed) {
        this.queued = false;
        this.reload().catch(() => undefined);
      }
    });
    this.loading = run;
    return run;
  }

  private async load(): Promise<void> {
    try {
      const data = await this.session.run(async (store) => {
        const counts = await store.counts();
        const lists = await Promise.all(RECORD_STATUSES.map((status) => (counts[status] > 0 ? store.listByStatus(status, this.limit(status)) : Promise.resolve([]))));
        const records = Object.fromEntries(RECORD_STATUSES.map((status, i) => [status, lists[i]])) as Record<RecordStatus, MemoryRecord[]>;
        return { counts, records, loadedAt: Date.now() };
      });
      if (this.disposed) return;
      this.data = data;
      this.loaded.fire(data);
    } catch (error) {
      if (!this.disposed) this.failedLoad.fire(error);
      throw error;
    }
  }

  dispose(): void {
    this.disposed = true;
    this.subscription.dispose();
    this.loaded.dispose();
    this.failedLoad.dispose();
  }
}
