import type { Database } from './database';

/** More changed records than this since the last catch-up: a full reload is cheaper than the increments. */
export const MAX_INCREMENTAL_CHANGES = 20_000;

/** What changed since a cursor position: the rids to re-read, or 'reload' when the log no longer covers it. */
export type ChangesSince = { head: number; rids: number[] } | { head: number; reload: true };

/**
 * Reader of `record_changes` (schema v8): every insert, status / text / vector
 * change and purge of a record, by any process, appends the record's rid
 * through triggers. A derived index keeps the seq it last applied and, before
 * a query, re-reads only the rids changed after it. One indexed `MAX(seq)`
 * read per query when nothing changed.
 *
 * @example
 * const log = new RecordChangeLog(db);
 * let seq = log.head();            // before reading the full state
 * const next = log.since(seq);     // later: { head, rids } or { head, reload: true }
 */
export class RecordChangeLog {
  private readonly headStmt;
  private readonly minStmt;
  private readonly sinceStmt;

  constructor(db: Database) {
    this.headStmt = db.prepare('SELECT COALESCE(MAX(seq), 0) AS seq FROM record_changes').pluck();
    this.minStmt = db.prepare('SELECT MIN(seq) FROM record_changes').pluck();
    this.sinceStmt = db.prepare('SELECT DISTINCT rid FROM record_changes WHERE seq > ? AND seq <= ?').pluck();
  }

  /** The seq of the newest change (0 when none). */
  head(): number {
    return this.headStmt.get() as number;
  }

  /**
   * The records changed after `seq` (up to the current head); 'reload' when the log no longer reaches
   * back to it or more than `limit` changes came since (an index whose full read costs more than its
   * increments passes a higher one).
   */
  since(seq: number, limit = MAX_INCREMENTAL_CHANGES): ChangesSince {
    const head = this.head();
    if (head <= seq) return { head: seq, rids: [] };
    const oldest = this.minStmt.get() as number | null;
    if (oldest === null || oldest > seq + 1 || head - seq > limit) return { head, reload: true };
    return { head, rids: this.sinceStmt.all(seq, head) as number[] };
  }
}
