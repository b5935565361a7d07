import type { Database } from './database';
import type { Logger } from '../../logger';

/**
 * WAL checkpoints off the write path.
 *
 * In WAL mode a commit appends pages to `<file>-wal`; a checkpoint copies them into the
 * database file and syncs it. SQLite runs one automatically inside the commit that takes
 * the WAL past `wal_autocheckpoint` pages (1,000 by default): with ~44 pages per task that
 * is about 1 task in 23, and that task's COMMIT pays the copy and the sync (the p95 tail of
 * the per-task bookkeeping, docs/benchmarks.md). Here the store asks for a PASSIVE checkpoint
 * once the program is idle (after the event loop's current turn, setImmediate) instead, and
 * the automatic checkpoint stays as a safety net at a larger size
 * (WAL_AUTOCHECKPOINT_PAGES), so the WAL stays bounded by a program that writes without ever
 * yielding (a synchronous bulk load).
 *
 * Durability is unchanged: in WAL mode a transaction is durable once it is in the WAL (a
 * process killed before the checkpoint loses nothing: the next open reads the WAL), so a
 * checkpoint only moves committed pages; it never decides what is kept. PASSIVE never waits
 * for readers or writers of other connections or processes: what it cannot copy now is copied
 * by a later one.
 */

/** SQLite's automatic checkpoint, kept as the safety net (pages; ×4 KiB ≈ 16 MiB of WAL). */
export const WAL_AUTOCHECKPOINT_PAGES = 4096;
/** SQLite's own default (`checkpoints: 'sqlite'`: the automatic checkpoint alone, inside the commits). */
export const SQLITE_DEFAULT_AUTOCHECKPOINT_PAGES = 1000;

/**
 * Where a writable file database checkpoints its WAL: `idle` (default) after the commits, once
 * the program is idle, with the automatic checkpoint as a safety net at WAL_AUTOCHECKPOINT_PAGES;
 * `sqlite`: SQLite's automatic checkpoint alone at its default size, inside the commit that
 * crosses it (what earlier builds did; bench:policies --checkpoints sqlite compares the two).
 */
export const CHECKPOINT_MODES = ['idle', 'sqlite'] as const;
export type CheckpointMode = (typeof CHECKPOINT_MODES)[number];

/** The automatic checkpoint's size under `mode`. */
export function autocheckpointPages(mode: CheckpointMode): number {
  return mode === 'idle' ? WAL_AUTOCHECKPOINT_PAGES : SQLITE_DEFAULT_AUTOCHECKPOINT_PAGES;
}

/** Frames the WAL is let grow to between two idle checkpoints (SQLite's own default checkpoint size). */
export const IDLE_CHECKPOINT_FRAMES = SQLITE_DEFAULT_AUTOCHECKPOINT_PAGES;
/** At most this many commits between two idle checkpoints, however small the commits. */
const MAX_COMMITS_BETWEEN = 10_000;

/** What the idle checkpoints of one connection did (for the bench and the tests). */
export interface CheckpointStats {
  /** Checkpoints run. */
  runs: number;
  /** WAL frames written since the previous checkpoint, summed over the runs. */
  frames: number;
  /** Runs that could not copy every frame (another connection was reading or checkpointing). */
  partial: number;
}

/**
 * Runs a PASSIVE checkpoint of `db` once the event loop is idle (setImmediate) after the
 * commit that brings the WAL to about IDLE_CHECKPOINT_FRAMES frames: the same pace as
 * SQLite's automatic checkpoint (each checkpoint syncs the file, so one per commit would
 * cost more), but between tasks, not inside one. Frames per commit are not known before a
 * checkpoint, so the number of commits between two is learnt from the last one (the first
 * commit's checkpoint runs at once).
 *
 * @example
 * const checkpoints = new IdleCheckpointer(db, logger);
 * db.transaction(write).immediate();
 * checkpoints.committed(); // when due, the checkpoint runs after this turn, not inside the commit
 */
export class IdleCheckpointer {
  private pending: NodeJS.Immediate | null = null;
  private disposed = false;
  /** Commits since the last checkpoint, and how many are let pass before the next one. */
  private commitsSince = 0;
  private every = 1;
  /** The WAL's frame count at the last checkpoint, and whether it copied every frame (the next writer then starts the WAL over). */
  private lastLog = 0;
  private lastComplete = true;
  readonly stats: CheckpointStats = { runs: 0, frames: 0, partial: 0 };
  /** Whether this connection checkpoints when idle: a writable file in WAL mode, with `mode` idle. */
  readonly active: boolean;

  constructor(
    private readonly db: Database,
    private readonly logger: Logger,
    mode: CheckpointMode = 'idle',
  ) {
    this.active = mode === 'idle' && !db.memory && !db.readonly && db.pragma('journal_mode', { simple: true }) === 'wal';
  }

  /** Call after a write committed: when the WAL is due for a checkpoint, one is scheduled for after the current turn. */
  committed(): void {
    if (!this.active || this.disposed) return;
    this.commitsSince++;
    if (this.pending !== null || this.commitsSince < this.every) return;
    this.pending = setImmediate(() => {
      this.pending = null;
      this.runNow();
    });
    // A scheduled checkpoint never keeps a process alive (closing the connection checkpoints anyway).
    this.pending.unref();
  }

  /** Whether a checkpoint is scheduled and has not run yet. */
  get scheduled(): boolean {
    return this.pending !== null;
  }

  /** Runs a PASSIVE checkpoint now (the scheduled one, or a caller's, in either mode). Never throws: a failure is logged and a later commit tries again. */
  runNow(): void {
    if (this.disposed || !this.db.open) return;
    // A transaction begun by hand and still open: a later commit schedules the next one.
    if (this.db.inTransaction) return;
    let row: { busy: number; log: number; checkpointed: number } | undefined;
    try {
      [row] = this.db.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
    } catch (error) {
      this.logger.debug(`[store] idle WAL checkpoint skipped: ${String(error)}`);
      return;
    }
    this.stats.runs++;
    if (!row || row.log < 0) return; // not in WAL mode
    const written = this.lastComplete || row.log < this.lastLog ? row.log : row.log - this.lastLog;
    this.stats.frames += written;
    if (written > 0 && this.commitsSince > 0) this.every = Math.max(1, Math.min(MAX_COMMITS_BETWEEN, Math.round((IDLE_CHECKPOINT_FRAMES * this.commitsSince) / written)));
    this.commitsSince = 0;
    this.lastLog = row.log;
    this.lastComplete = row.busy === 0 && row.checkpointed >= row.log;
    if (!this.lastComplete) this.stats.partial++;
  }

  /** Cancels a scheduled checkpoint (before the connection closes). */
  dispose(): void {
    this.disposed = true;
    if (this.pending !== null) clearImmediate(this.pending);
    this.pending = null;
  }
}
