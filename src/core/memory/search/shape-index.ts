/**
 * The re-ranking's memory-side state ({@link QuestionShapes}) kept with the
 * active records of a store: every active record's shape is computed once
 * when it is read (open, or the first query after it was added, restored or
 * its text changed) and un-counted when it leaves (deleted, purged, any
 * status other than active), through the `record_changes` log, as the dense
 * and keyword sides follow it. A log that no longer reaches back reloads.
 *
 * Open: the active records are read in pages of {@link SHAPE_PAGE_ROWS}
 * (question and code; ~20–40 µs of masking per record). With `background`
 * the pages are read across event-loop turns, so an editor host never blocks
 * long, and `shapes()` answers null until the load is complete: the search
 * then keeps the fused order (a cold start's first answers are not re-ranked).
 * Without it the load completes in `open`.
 *
 * @example
 * const index = ShapeIndex.open(store);
 * index.shapes()?.rerank(query, candidates); // null while a background load runs
 * index.dispose();
 */
import { Logger, nullLogger, tagged } from '../../logger';
import type { Database } from '../sqlite/database';
import { RecordChangeLog } from '../sqlite/record-changes';
import type { DomainValues } from './domain-values';
import { QuestionShapes } from './rerank';
import type { MemoryStore } from '../sqlite/store';

/** Records read per load step (2–10 ms of masking each step at 2 cores, so an editor host never blocks long). */
export const SHAPE_PAGE_ROWS = 64;

interface ShapeRow {
  rid: number;
  question: string;
  code: string;
  language: string;
}

export class ShapeIndex {
  private readonly state = new QuestionShapes();
  private readonly log: RecordChangeLog;
  private readonly pageStmt;
  private readonly changedStmt;
  private readonly logger: Logger;
  /** Next rid the load reads from; null once loaded. */
  private loadFrom: number | null = 0;
  private loadSeq = 0;
  private seq = 0;
  private disposed = false;
  private started = Date.now();
  /** Settles when the records are loaded (at once for a synchronous open). */
  readonly ready: Promise<void>;

  private constructor(db: Database, logger: Logger, background: boolean, after: Promise<unknown>) {
    this.logger = tagged(logger, 'shapes');
    this.log = new RecordChangeLog(db);
    this.pageStmt = db.prepare("SELECT rid, question, code, language FROM records WHERE rid >= ? AND status = 'active' ORDER BY rid LIMIT ?");
    this.changedStmt = db.prepare('SELECT rid, status, question, code, language FROM records WHERE rid IN (SELECT value FROM json_each(?))');
    this.startLoad();
    if (!background) this.finishLoad();
    this.ready = background ? this.loadInBackground(after) : Promise.resolve();
  }

  /**
   * `after`: a background load starts once it settles (the search passes its dense and keyword sides'
   * loads, so the shapes never compete with them for the first answer of a cold start).
   */
  static open(store: MemoryStore, options: { logger?: Logger; background?: boolean; after?: Promise<unknown>; domainValues?: DomainValues | null } = {}): ShapeIndex {
    // A side that failed to load does not stop the shapes (nor leave a rejection unhandled when nothing waits on it).
    const after = (options.after ?? Promise.resolve()).catch(() => undefined);
    const index = new ShapeIndex(store.connectionForQueries(), options.logger ?? store.log ?? nullLogger, options.background ?? false, after);
    index.state.setDomainValues(options.domainValues ?? null);
    return index;
  }

  /** Whether every active record's shape is held (false while a background load runs). */
  get loaded(): boolean {
    return this.loadFrom === null && !this.disposed;
  }

  /** The state, caught up with the store's changes; null while a background load runs (or after dispose). */
  shapes(): QuestionShapes | null {
    if (!this.loaded) return null;
    this.catchUp();
    return this.state;
  }

  /** The values of the data the agent works on (the re-ranking's value columns; null: none). */
  setDomainValues(values: DomainValues | null): void {
    this.state.setDomainValues(values);
  }

  /** Re-reads every active record (synchronously). */
  reload(): void {
    this.startLoad();
    this.finishLoad();
  }

  dispose(): void {
    this.disposed = true;
    this.loadFrom = null;
    this.state.clear();
  }

  private startLoad(): void {
    this.state.clear();
    this.loadSeq = this.log.head();
    this.loadFrom = 0;
    this.started = Date.now();
  }

  /** Reads one page of active records; false when done. */
  private loadStep(): boolean {
    const from = this.loadFrom;
    if (from === null || this.disposed) return false;
    const rows = this.pageStmt.all(from, SHAPE_PAGE_ROWS) as ShapeRow[];
    for (const row of rows) this.state.set(row.rid, row.question, row.code, row.language);
    if (rows.length < SHAPE_PAGE_ROWS) {
      this.loadFrom = null;
      this.seq = this.loadSeq;
      this.logger.debug(`read ${this.state.size} question shapes in ${Date.now() - this.started} ms`);
      return false;
    }
    this.loadFrom = rows[rows.length - 1].rid + 1;
    return true;
  }

  private finishLoad(): void {
    while (this.loadStep());
  }

  /** One page per event-loop turn, starting after `after` and the opening turn (open returns at once). */
  private async loadInBackground(after: Promise<unknown>): Promise<void> {
    await after;
    do await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.loadStep());
  }

  /** Applies the changes committed (by any process) since the last query; a re-read record replaces its shape. */
  private catchUp(): void {
    const changes = this.log.since(this.seq);
    if ('reload' in changes) {
      this.logger.info(`many records changed since the question shapes were read (change ${this.seq} → ${changes.head}); reloading`);
      this.reload();
      return;
    }
    if (changes.rids.length === 0) return;
    this.seq = changes.head;
    const rows = this.changedStmt.all(JSON.stringify(changes.rids)) as (ShapeRow & { status: string })[];
    const live = new Set<number>();
    for (const row of rows) {
      if (row.status !== 'active') continue;
      this.state.set(row.rid, row.question, row.code, row.language);
      live.add(row.rid);
    }
    for (const rid of changes.rids) if (!live.has(rid)) this.state.delete(rid);
  }
}
