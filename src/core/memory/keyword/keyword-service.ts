import * as fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import { errorMessage } from '../../errors';
import { Logger, nullLogger, tagged } from '../../logger';
import { KeywordHit, KeywordIndex, KeywordIndexOptions } from './keyword-index';
import { ENGINE_FILE_SUFFIX } from './keyword-engine';
import { tempFileOf } from './keyword-index-file';
import { KeywordEventSchema, MAX_KEYWORD_HITS, SharedAnswer, WORKER_FAILED, WORKER_READY, WORKER_STATE_SLOT } from './keyword-protocol';
import { KeywordWarmer, WarmSignal } from './keyword-warmer';
import type { MemoryStore } from '../sqlite/store';
import { workerBootstrap } from '../../worker-script';

/** How long a query waits for the keyword worker before answering without it. */
export const KEYWORD_ANSWER_TIMEOUT_MS = 250;
/** How long a query waits for the keyword side to load when the dense side cannot answer. */
export const KEYWORD_BACKUP_WAIT_MS = 120_000;
/**
 * How long close() lets a loaded worker write its index file before stopping it.
 * The file is a cache of the database (caught up from its change log, or rebuilt,
 * at the next open), so a shutdown never waits on it for longer than this.
 */
export const KEYWORD_CLOSE_WAIT_MS = 300;

/** The keyword side of hybrid search, in this thread or in a worker. */
export interface KeywordSource {
  /** 'inline' (this thread) or 'worker'. */
  readonly where: 'inline' | 'worker';
  /** Settles when the index is loaded (or failed to). */
  readonly ready: Promise<void>;
  /** Loaded and answering. */
  readonly isReady: boolean;
  /** How it was obtained (KeywordIndexOrigin), once loaded. */
  readonly origin: string | null;
  /**
   * Settles when the term cache is first warmed (KeywordWarmer: new queries
   * then search few terms through MiniSearch), or as soon as it cannot be
   * (failed, closed). The worker does not keep the process alive while it
   * loads and warms; inline warming does, until it completes.
   */
  readonly warmed: Promise<void>;
  /** The first warming completed (a change of the index drops the cache until it re-warms). */
  readonly isWarm: boolean;
  /**
   * Settles at the next completed warming (the first, or a re-warm after
   * changes; in the worker, one completed after answering a search posted
   * after this call), or when warming stops (failed, closed).
   */
  nextWarm(): Promise<void>;
  /**
   * Starts the search `search(text, limit)` will ask for, when it can run
   * beside this thread (the worker): the caller does its dense search
   * meanwhile. A no-op inline or while the worker loads.
   */
  prefetch(text: string, limit: number): void;
  /** Hits, or null when the keyword side cannot answer now. `wait`: block until it is loaded (the dense side is out). */
  search(text: string, limit: number, wait?: boolean): KeywordHit[] | null;
  /**
   * How many active records hold each index term (any field), for the relevance score (relevance.ts);
   * null when the keyword side cannot answer (failed, closed). Waits while the index loads.
   */
  documentFrequencies(terms: readonly string[]): number[] | null;
  flush(): void;
  close(): void;
  /**
   * After close(): settles when the source has stopped: its database connection
   * closed and no temp file of its left behind (the worker may take a moment).
   * The store is closed after this, so that its close is the last one.
   */
  readonly stopped: Promise<void>;
}

/**
 * The keyword index in this thread (loaded or rebuilt synchronously at open),
 * its term cache warmed between the thread's other work (steps of a few
 * milliseconds, see KeywordWarmer).
 */
export class InlineKeywords implements KeywordSource {
  readonly where = 'inline';
  readonly ready = Promise.resolve();
  readonly isReady = true;
  /** close() is synchronous here. */
  readonly stopped = Promise.resolve();
  private readonly warmer: KeywordWarmer;

  constructor(
    readonly index: KeywordIndex,
    logger: Logger = nullLogger,
  ) {
    const log = tagged(logger, 'keywords');
    this.warmer = new KeywordWarmer(index, { logger: log, onWarmed: (r) => log.debug(`term cache warmed: ${r.terms} terms, ${r.postings} postings in ${r.ms} ms`) });
    this.warmer.start();
  }

  get origin(): string {
    return this.index.origin;
  }

  get warmed(): Promise<void> {
    return this.warmer.warmed;
  }

  nextWarm(): Promise<void> {
    return this.warmer.nextWarm();
  }

  get isWarm(): boolean {
    return this.warmer.isWarm;
  }

  prefetch(): void {
    // Inline: nothing runs beside this thread.
  }

  search(text: string, limit: number): KeywordHit[] {
    const hits = this.index.search(text, limit);
    this.warmer.noticeChanges();
    return hits;
  }

  documentFrequencies(terms: readonly string[]): number[] {
    return terms.map((t) => this.index.documentFrequency(t));
  }

  flush(): void {
    this.index.flush();
  }

  close(): void {
    this.warmer.close();
    this.index.close();
  }
}

/**
 * The keyword index loaded and queried in a worker thread, so loading a large
 * index (seconds of JSON parsing and MiniSearch revival) never blocks this
 * thread. Queries are synchronous calls through a shared buffer (see
 * SharedAnswer); until the worker is ready they answer null at once, so hybrid
 * search answers with the dense side alone.
 */
export class WorkerKeywords implements KeywordSource {
  readonly where = 'worker';
  readonly ready: Promise<void>;
  origin: string | null = null;
  private warm = false;
  /** The worker's warmings, marked with the last search it had answered. */
  private readonly warmSignal = new WarmSignal();
  private readonly answer = SharedAnswer.create();
  private readonly worker: Worker;
  /** Where the worker persists the index (null: nowhere). */
  private readonly file: string | null;
  private requestId = 0;
  /** The request `prefetch` posted and no `search` has collected yet. */
  private pending: { id: number; text: string; limit: number } | null = null;
  private closed = false;
  private stopping: Promise<void> | null = null;
  private timeouts = 0;

  constructor(store: MemoryStore, options: KeywordIndexOptions, private readonly logger: Logger) {
    const file = options.file === undefined ? store.connectionForQueries().name + ENGINE_FILE_SUFFIX[options.engine ?? 'compact'] : options.file;
    this.file = file;
    this.worker = new Worker(workerBootstrap(__dirname, 'keyword-worker', { slot: WORKER_STATE_SLOT, value: WORKER_FAILED }), {
      eval: true,
      workerData: { dbFile: store.connectionForQueries().name, file, engine: options.engine, maxPostings: options.maxPostings, persistDebounceMs: options.persistDebounceMs, termCachePostings: options.termCachePostings, termCacheBytes: options.termCacheBytes, shared: this.answer.shared },
    });
    this.worker.unref();
    this.ready = new Promise<void>((resolve) => {
      this.worker.on('message', (raw: unknown) => {
        const event = KeywordEventSchema.safeParse(raw);
        if (!event.success) return;
        const e = event.data;
        if (e.type === 'ready') this.origin = e.origin;
        if (e.type === 'ready' || e.type === 'failed') resolve();
        if (e.type === 'failed') this.warmSignal.stop();
        if (e.type === 'warmed') {
          this.warm = true;
          this.warmSignal.completed(e.afterRequest);
        }
        // A worker still winding down after close() may still report: its owner (and its log) may be gone.
        if (this.closed) return;
        // The worker tags its own lines: one [keywords] tag, not two.
        if (e.type === 'log') this.logger[e.level](e.message.startsWith('[keywords] ') ? e.message : `[keywords] ${e.message}`);
        else if (e.type === 'ready') this.logger.debug(`[keywords] worker ready in ${e.ms} ms (${e.origin})`);
        else if (e.type === 'warmed') this.logger.debug(`[keywords] term cache warmed: ${e.terms} terms, ${e.postings} postings in ${e.ms} ms`);
        else this.logger.warn(`[keywords] the keyword index could not load: ${e.message}; searching with vectors only`);
      });
      this.worker.on('error', (error) => {
        this.answer.setState(WORKER_FAILED);
        if (!this.closed) this.logger.warn(`[keywords] the keyword worker failed: ${errorMessage(error)}; searching with vectors only`);
        resolve();
        this.warmSignal.stop();
      });
      this.worker.on('exit', () => {
        if (this.answer.state !== WORKER_FAILED && !this.closed) this.answer.setState(WORKER_FAILED);
        resolve();
        this.warmSignal.stop();
      });
    });
  }

  get isReady(): boolean {
    return !this.closed && this.answer.state === WORKER_READY;
  }

  get isWarm(): boolean {
    return this.warm;
  }

  get warmed(): Promise<void> {
    return this.warmSignal.first;
  }

  /** As KeywordSource.nextWarm; here: the next warming the worker completes after answering a search posted after this call. */
  nextWarm(): Promise<void> {
    if (this.answer.state === WORKER_FAILED) return Promise.resolve();
    return this.warmSignal.next(this.requestId);
  }

  prefetch(text: string, limit: number): void {
    if (this.closed || this.answer.state !== WORKER_READY) return;
    const id = ++this.requestId;
    this.worker.postMessage({ type: 'search', id, text, limit });
    this.pending = { id, text, limit };
  }

  search(text: string, limit: number, wait = false): KeywordHit[] | null {
    if (this.closed) return null;
    if (wait) this.answer.waitWhileLoading(KEYWORD_BACKUP_WAIT_MS);
    if (this.answer.state !== WORKER_READY) return null;
    const pending = this.pending;
    this.pending = null;
    let id: number;
    if (pending && pending.id === this.requestId && pending.text === text && pending.limit === limit) id = pending.id;
    else {
      id = ++this.requestId;
      this.worker.postMessage({ type: 'search', id, text, limit });
    }
    const hits = this.answer.await(id, wait ? KEYWORD_BACKUP_WAIT_MS : KEYWORD_ANSWER_TIMEOUT_MS);
    if (hits === null && ++this.timeouts <= 3) this.logger.info(`[keywords] no keyword answer within ${KEYWORD_ANSWER_TIMEOUT_MS} ms (the worker is busy); answered without it`);
    return hits;
  }

  documentFrequencies(terms: readonly string[]): number[] | null {
    if (this.closed || this.answer.waitWhileLoading(KEYWORD_BACKUP_WAIT_MS) !== WORKER_READY) return null;
    const asked = terms.slice(0, MAX_KEYWORD_HITS);
    const id = ++this.requestId;
    this.worker.postMessage({ type: 'frequencies', id, terms: asked });
    // The answer's pairs are (term's position, its document frequency).
    const pairs = this.answer.await(id, KEYWORD_BACKUP_WAIT_MS);
    if (!pairs) return null;
    const out = asked.map(() => 0);
    for (const p of pairs) out[p.rid] = p.score;
    return out;
  }

  flush(): void {
    // Waits for the worker to write its file (it may still be loading).
    if (this.closed || this.answer.waitWhileLoading(KEYWORD_BACKUP_WAIT_MS) !== WORKER_READY) return;
    const id = ++this.requestId;
    this.worker.postMessage({ type: 'flush', id });
    this.answer.await(id, KEYWORD_BACKUP_WAIT_MS);
  }

  /**
   * Stops the worker at once: a loaded worker first gets KEYWORD_CLOSE_WAIT_MS
   * to write its index file and close its connection; one still loading (or
   * writing longer) is terminated, and the temp file it may have been writing
   * is removed once it has stopped (`stopped` settles then). The index file is
   * only ever replaced by a rename, so it is never left half written.
   */
  close(): void {
    if (this.closed) return;
    let flushed = false;
    if (this.answer.state === WORKER_READY) {
      const id = ++this.requestId;
      this.worker.postMessage({ type: 'close', id });
      flushed = this.answer.await(id, KEYWORD_CLOSE_WAIT_MS) !== null;
    }
    this.closed = true;
    this.warmSignal.stop();
    const file = this.file;
    this.stopping = this.worker.terminate().then(
      () => {
        if (!flushed && file) fs.rmSync(tempFileOf(file), { force: true });
      },
      (error: unknown) => this.logger.warn(`[keywords] stopping the keyword worker: ${errorMessage(error)}`),
    );
  }

  get stopped(): Promise<void> {
    return this.stopping ?? Promise.resolve();
  }
}
