/**
 * The re-ranking's memory-side state ({@link QuestionShapes}) kept with the
 * active records of a store: every active record's shape is computed once
 * when it is read (the first query after it was added, restored or its text
 * changed) and un-counted when it leaves (deleted, purged, any status other
 * than active), through the `record_changes` log, as the dense and keyword
 * sides follow it. A log that no longer reaches back reloads.
 *
 * Open: from the copy saved in the memory (shape-persist.ts) when it holds:
 * its seq is within the change log's reach, its arrays fit together, the
 * shapes of {@link SPOT_CHECK_RECORDS} of its records computed anew equal the
 * saved ones, and once the records changed since are applied it holds exactly
 * the active records. Otherwise (none, stale, foreign, corrupt) every active
 * record is read in pages of {@link SHAPE_PAGE_ROWS} (question and code; ~100–300
 * µs of masking per record) and the result saved (from
 * {@link SHAPES_SAVE_MIN_RECORDS} records; again once a twentieth of them
 * changed). With `background` the work runs across event-loop turns, so an
 * editor host never blocks long, and `shapes()` answers null until the load
 * is complete: the search then keeps the fused order (a cold start's first
 * answers are not re-ranked). Without it the load completes in `open`.
 *
 * @example
 * const index = ShapeIndex.open(store);
 * index.shapes()?.rerank(query, candidates); // null while a background load runs
 * index.dispose();
 */
import { errorMessage } from '../../errors';
import { Logger, nullLogger, tagged } from '../../logger';
import { hash53 } from '../../text-hash';
import type { Database } from '../sqlite/database';
import { MAX_INCREMENTAL_CHANGES, RecordChangeLog } from '../sqlite/record-changes';
import type { DomainValues } from './domain-values';
import { programKey } from './program-collapse';
import { QuestionShapes, recordShape } from './rerank';
import { loadShapes, saveShapes } from './shape-persist';
import type { MemoryStore } from '../sqlite/store';

/** Records read per load step (2–10 ms of masking each step at 2 cores, so an editor host never blocks long). */
export const SHAPE_PAGE_ROWS = 64;
/** From this many active records on, computed shapes are saved in the memory (a smaller memory computes them in a second or two). */
export const SHAPES_SAVE_MIN_RECORDS = 10_000;
/** Saved records whose shapes are computed anew and compared before a saved copy is used. */
export const SPOT_CHECK_RECORDS = 32;
/** A saved copy is saved again once this share of its records changed since. */
export const SHAPES_RESAVE_SHARE = 1 / 20;

interface ShapeRow {
  rid: number;
  question: string;
  code: string;
  language: string;
}

export interface ShapeIndexOptions {
  logger?: Logger;
  background?: boolean;
  /** A background load starts once it settles (see {@link ShapeIndex.open}). */
  after?: Promise<unknown>;
  domainValues?: DomainValues | null;
  /** Records from which computed shapes are saved (default SHAPES_SAVE_MIN_RECORDS; Infinity: never). */
  saveMinRecords?: number;
}

/** Where the shapes held came from (tests, diagnostics). */
export type ShapesOrigin = 'loading' | 'saved' | 'computed';

export class ShapeIndex {
  private readonly state = new QuestionShapes();
  private readonly log: RecordChangeLog;
  private readonly pageStmt;
  private readonly changedStmt;
  private readonly activeStmt;
  private readonly logger: Logger;
  private readonly saveMin: number;
  /** Next rid the load reads from; null once loaded. */
  private loadFrom: number | null = 0;
  private loadSeq = 0;
  private seq = 0;
  /** Records changed since the shapes were last saved (or computed). */
  private unsaved = 0;
  private saveScheduled = false;
  private disposed = false;
  private started = Date.now();
  private from: ShapesOrigin = 'loading';
  /** Settles when the records are loaded (at once for a synchronous open). */
  readonly ready: Promise<void>;

  private constructor(private readonly db: Database, logger: Logger, background: boolean, after: Promise<unknown>, saveMin: number) {
    this.logger = tagged(logger, 'shapes');
    this.saveMin = saveMin;
    this.log = new RecordChangeLog(db);
    this.pageStmt = db.prepare("SELECT rid, question, code, language FROM records WHERE rid >= ? AND status = 'active' ORDER BY rid LIMIT ?");
    this.changedStmt = db.prepare('SELECT rid, status, question, code, language FROM records WHERE rid IN (SELECT value FROM json_each(?))');
    this.activeStmt = db.prepare("SELECT COUNT(*) FROM records WHERE status = 'active'").pluck();
    if (!background && !this.restore()) {
      this.startLoad();
      this.finishLoad();
    }
    this.ready = background ? this.loadInBackground(after) : Promise.resolve();
  }

  /**
   * `after`: a background load starts once it settles (the search passes its dense and keyword sides'
   * loads, so the shapes never compete with them for the first answer of a cold start).
   */
  static open(store: MemoryStore, options: ShapeIndexOptions = {}): ShapeIndex {
    // A side that failed to load does not stop the shapes (nor leave a rejection unhandled when nothing waits on it).
    const after = (options.after ?? Promise.resolve()).catch(() => undefined);
    const index = new ShapeIndex(store.connectionForQueries(), options.logger ?? store.log ?? nullLogger, options.background ?? false, after, options.saveMinRecords ?? SHAPES_SAVE_MIN_RECORDS);
    index.state.setDomainValues(options.domainValues ?? null);
    return index;
  }

  /** Whether every active record's shape is held (false while a background load runs). */
  get loaded(): boolean {
    return this.loadFrom === null && !this.disposed;
  }

  /** Where the shapes came from: the saved copy, or computed from the records ('loading' until loaded). */
  get origin(): ShapesOrigin {
    return this.from;
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

  /** Re-reads every active record (synchronously; from the saved copy when it holds). */
  reload(): void {
    if (this.restore()) return;
    this.startLoad();
    this.finishLoad();
  }

  dispose(): void {
    this.disposed = true;
    this.loadFrom = null;
    this.state.clear();
  }

  /** Saves the shapes held now (synchronously; benchmarks and tests: the index saves on its own). */
  save(): void {
    if (!this.loaded) return;
    this.catchUp();
    this.saveNow();
  }

  /**
   * Takes the saved copy when it holds (see the module comment); false, with the state empty, when there
   * is none or it does not hold. Applies the records changed since it was saved.
   */
  private restore(): boolean {
    const started = Date.now();
    let why: string;
    try {
      const read = loadShapes(this.db);
      if ('missing' in read) return false;
      if ('corrupt' in read) {
        why = read.corrupt;
      } else {
        const changes = this.log.since(read.seq, Math.max(1, Math.floor(read.saved.rids.length / 4)));
        if (read.seq > this.log.head()) {
          why = `it reflects change ${read.seq}, newer than this memory's last (${this.log.head()})`;
        } else if ('reload' in changes) {
          why = `it reflects change ${read.seq}, the log no longer reaches back to it from ${changes.head} (or too much changed since)`;
        } else {
          this.state.restore(read.saved);
          why = this.spotCheck(read.saved.rids, new Set(changes.rids));
          if (why === '') {
            this.seq = read.seq;
            this.loadFrom = null;
            this.from = 'saved';
            this.applyChanges(changes.head, changes.rids);
            const active = this.activeStmt.get() as number;
            if (active === this.state.size) {
              this.logger.debug(`read ${this.state.size} saved question shapes (${this.state.distinctShapes} distinct, ${changes.rids.length} records changed since) in ${Date.now() - started} ms`);
              return true;
            }
            why = `it holds ${this.state.size} records once caught up, the memory ${active} active ones`;
          }
        }
      }
    } catch (error) {
      why = errorMessage(error);
    }
    this.state.clear();
    this.loadFrom = 0;
    this.from = 'loading';
    this.logger.info(`the saved question shapes do not fit this memory (${why}); computing them from the records`);
    return false;
  }

  /** '' when the saved shapes of up to SPOT_CHECK_RECORDS records (evenly spread, none changed since) equal the ones computed now; else why not. */
  private spotCheck(rids: Float64Array, changed: Set<number>): string {
    const sample: number[] = [];
    const step = Math.max(1, rids.length / SPOT_CHECK_RECORDS);
    for (let i = 0; i < rids.length && sample.length < SPOT_CHECK_RECORDS; i = Math.floor(i + step)) if (!changed.has(rids[i])) sample.push(rids[i]);
    const rows = new Map((this.changedStmt.all(JSON.stringify(sample)) as (ShapeRow & { status: string })[]).map((r) => [r.rid, r]));
    for (const rid of sample) {
      const row = rows.get(rid);
      if (!row || row.status !== 'active') return `its record ${rid} is not an active record of this memory`;
      if (!this.state.holds(rid, recordShape(row.question, row.code), hash53(programKey(row.code, row.language)))) return `the shape of record ${rid} computed now differs from the saved one`;
    }
    return '';
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
      this.from = 'computed';
      this.logger.debug(`computed ${this.state.size} question shapes (${this.state.distinctShapes} distinct) in ${Date.now() - this.started} ms`);
      this.unsaved = this.state.size;
      this.saveIfDue();
      return false;
    }
    this.loadFrom = rows[rows.length - 1].rid + 1;
    return true;
  }

  private finishLoad(): void {
    while (this.loadStep());
  }

  /** The saved copy (one turn) or one page per event-loop turn, starting after `after` and the opening turn (open returns at once). */
  private async loadInBackground(after: Promise<unknown>): Promise<void> {
    await after;
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (this.disposed || this.restore()) return;
    this.startLoad();
    do await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.loadStep());
  }

  /** Applies the changes committed (by any process) since the last query; a re-read record replaces its shape. */
  private catchUp(): void {
    const changes = this.log.since(this.seq, Math.max(MAX_INCREMENTAL_CHANGES, this.state.size));
    if ('reload' in changes) {
      this.logger.info(`many records changed since the question shapes were read (change ${this.seq} → ${changes.head}); reloading`);
      this.reload();
      return;
    }
    if (changes.rids.length === 0) return;
    this.applyChanges(changes.head, changes.rids);
    this.saveIfDue(true);
  }

  private applyChanges(head: number, rids: number[]): void {
    this.seq = head;
    if (rids.length === 0) return;
    this.unsaved += rids.length;
    const rows = this.changedStmt.all(JSON.stringify(rids)) as (ShapeRow & { status: string })[];
    const live = new Set<number>();
    for (const row of rows) {
      if (row.status !== 'active') continue;
      this.state.set(row.rid, row.question, row.code, row.language);
      live.add(row.rid);
    }
    for (const rid of rids) if (!live.has(rid)) this.state.delete(rid);
  }

  /** Saves when enough records are held and enough changed since the last save; `later`: in a turn of its own (not inside a query). */
  private saveIfDue(later = false): void {
    const size = this.state.size;
    if (size < this.saveMin || this.unsaved < Math.max(1, size * SHAPES_RESAVE_SHARE) || this.db.readonly) return;
    if (!later) return this.saveNow();
    if (this.saveScheduled) return;
    this.saveScheduled = true;
    setImmediate(() => {
      this.saveScheduled = false;
      if (this.loaded) this.saveNow();
    }).unref();
  }

  private saveNow(): void {
    if (this.db.readonly || this.disposed) return;
    const started = Date.now();
    try {
      saveShapes(this.db, this.state.exportShapes(), this.seq);
      this.unsaved = 0;
      this.logger.debug(`saved ${this.state.size} question shapes in ${Date.now() - started} ms`);
    } catch (error) {
      this.logger.warn(`could not save the question shapes (${errorMessage(error)}); the next open computes them again`);
    }
  }
}
