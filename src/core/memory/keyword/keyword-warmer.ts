import { errorMessage } from '../../errors';
import { Logger, nullLogger } from '../../logger';
import type { KeywordIndex } from './keyword-index';

/**
 * Time after which a warming step ends (KeywordIndex.warmStep), at the next
 * piece of a term: steps of 2 to 5 ms at 100k records (and garbage collection
 * pauses), which is all a query arriving meanwhile waits.
 */
export const WARM_SLICE_MS = 2;
/** Quiet time after a change of the index before warming starts over, so a write-heavy period does not keep re-warming. */
export const WARM_QUIET_MS = 1_000;

/** One completed warming: its duration (first step to last, queries included) and the warmed cache. */
export interface WarmReport {
  ms: number;
  terms: number;
  postings: number;
}

export interface KeywordWarmerOptions {
  logger?: Logger;
  sliceMs?: number;
  quietMs?: number;
  /** Called after each completed warming (the first and each one after a change). */
  onWarmed?: (report: WarmReport) => void;
}

/**
 * Completions of a keyword index's warming, for whoever waits on them:
 * `first` settles at the first one, `next(since)` at the next one whose mark
 * is above `since`; both settle when warming stops for good. The keyword
 * worker marks a completion with the last search request it had answered
 * (KeywordEvent 'warmed', afterRequest); a warmer in the same thread marks
 * none (every wait is due).
 *
 * @example
 * const signal = new WarmSignal();
 * const wait = signal.next(lastRequestId);
 * signal.completed(eventAfterRequest); // wait settles if eventAfterRequest > lastRequestId
 */
export class WarmSignal {
  readonly first: Promise<void>;
  private settleFirst: () => void = () => undefined;
  private waits: { since: number; resolve: () => void }[] = [];
  private stopped = false;

  constructor() {
    this.first = new Promise<void>((resolve) => (this.settleFirst = resolve));
  }

  /** Settles at the next completion marked above `since`, or when warming stops. */
  next(since = -Infinity): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise<void>((resolve) => this.waits.push({ since, resolve }));
  }

  /** A warming completed (`mark`: see the class comment). */
  completed(mark = Infinity): void {
    this.settleFirst();
    const due = this.waits.filter((w) => mark > w.since);
    this.waits = this.waits.filter((w) => mark <= w.since);
    for (const w of due) w.resolve();
  }

  /** No warming will complete any more (closed, failed): every wait settles. */
  stop(): void {
    this.stopped = true;
    this.completed();
  }
}

/**
 * Warms a keyword index's term cache in the background of its thread: steps
 * of WARM_SLICE_MS (KeywordIndex.warmStep) run from `setImmediate`, so
 * searches interleave with them. When a search (or a step) catches up on a
 * change of the index, warming starts over once the index has been quiet for
 * WARM_QUIET_MS. `close` cancels it. A warming under way keeps the process
 * alive until it completes (seconds at 100k records), a pending re-warm does
 * not (its timer is unref'd).
 *
 * @example
 * const warmer = new KeywordWarmer(index, { onWarmed: (r) => logger.debug(`warmed ${r.terms} terms`) });
 * warmer.start();
 * index.search(text, 32);
 * warmer.noticeChanges(); // after each search
 * warmer.close();
 */
export class KeywordWarmer {
  private readonly signal = new WarmSignal();
  private completed = false;
  private closed = false;
  private immediate: NodeJS.Immediate | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** The index version last seen (changes after it restart warming). */
  private seen: number;
  /** When the current warming's first step ran (0: none yet). */
  private started = 0;
  private readonly logger: Logger;
  private readonly sliceMs: number;
  private readonly quietMs: number;

  constructor(
    private readonly index: KeywordIndex,
    private readonly options: KeywordWarmerOptions = {},
  ) {
    this.logger = options.logger ?? nullLogger;
    this.sliceMs = options.sliceMs ?? WARM_SLICE_MS;
    this.quietMs = options.quietMs ?? WARM_QUIET_MS;
    this.seen = index.version;
  }

  /** Settles when the first warming completes, or when warming stops without completing (closed, failed). */
  get warmed(): Promise<void> {
    return this.signal.first;
  }

  /** The first warming completed (changes since drop the cache until it re-warms). */
  get isWarm(): boolean {
    return this.completed;
  }

  /** Settles at the next completed warming (the first, or the next after a change), or when warming stops (closed, failed). */
  nextWarm(): Promise<void> {
    return this.signal.next();
  }

  /** Starts warming now. */
  start(): void {
    if (this.closed) return;
    this.seen = this.index.version;
    this.cancel();
    this.schedule();
  }

  /** After a search: when it caught up on a change of the index, warming starts over once the index is quiet. */
  noticeChanges(): void {
    if (this.closed || this.index.version === this.seen) return;
    this.seen = this.index.version;
    this.waitForQuiet();
  }

  /** Stops warming for good. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.cancel();
    this.signal.stop();
  }

  private readonly step = (): void => {
    this.immediate = null;
    if (this.closed) return;
    if (this.started === 0) this.started = performance.now();
    let more: boolean;
    try {
      more = this.index.warmStep(this.sliceMs);
    } catch (error) {
      this.logger.warn(`warming the keyword index stopped: ${errorMessage(error)}; queries search their terms on demand`);
      this.close();
      return;
    }
    if (this.index.version !== this.seen) {
      // The step caught up on changes: start over once they stop.
      this.seen = this.index.version;
      this.waitForQuiet();
    } else if (more) this.schedule();
    else this.finish();
  };

  private finish(): void {
    const stats = this.index.cacheStats;
    const report: WarmReport = { ms: Math.round(performance.now() - this.started), terms: stats.warmedTerms, postings: stats.warmedPostings };
    this.started = 0;
    this.completed = true;
    this.signal.completed();
    this.options.onWarmed?.(report);
  }

  private schedule(): void {
    // Not unref'd: an unref'd immediate runs only when something else wakes the event loop.
    this.immediate = setImmediate(this.step);
  }

  private waitForQuiet(): void {
    this.cancel();
    this.timer = setTimeout(() => {
      this.timer = null;
      this.schedule();
    }, this.quietMs);
    this.timer.unref();
  }

  private cancel(): void {
    if (this.immediate) clearImmediate(this.immediate);
    if (this.timer) clearTimeout(this.timer);
    this.immediate = null;
    this.timer = null;
    this.started = 0;
  }
}
