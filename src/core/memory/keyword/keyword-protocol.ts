import { z } from 'zod';
import type { KeywordHit } from './keyword-index';

/** Most hits one keyword answer carries (the fusion depth of k = MAX_K). */
export const MAX_KEYWORD_HITS = 8000;
export const WORKER_LOADING = 0;
export const WORKER_READY = 1;
export const WORKER_FAILED = 2;
/** The Int32 slot of the shared buffer that holds the worker state (see SharedAnswer). */
export const WORKER_STATE_SLOT = 1;

export const KeywordWorkerDataSchema = z.object({
  dbFile: z.string().min(1),
  file: z.string().nullable(),
  engine: z.enum(['compact', 'minisearch']).optional(),
  maxPostings: z.number().int().positive().optional(),
  termCachePostings: z.number().int().min(0).optional(),
  termCacheBytes: z.number().int().min(0).optional(),
  persistDebounceMs: z.number().int().min(0).optional(),
  shared: z.instanceof(SharedArrayBuffer),
});
export type KeywordWorkerData = z.infer<typeof KeywordWorkerDataSchema>;

export const KeywordRequestSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('search'), id: z.number().int(), text: z.string(), limit: z.number().int().min(0).max(MAX_KEYWORD_HITS) }),
  z.object({ type: z.literal('frequencies'), id: z.number().int(), terms: z.array(z.string()).max(MAX_KEYWORD_HITS) }),
  z.object({ type: z.literal('flush'), id: z.number().int() }),
  z.object({ type: z.literal('close'), id: z.number().int() }),
]);
export type KeywordRequest = z.infer<typeof KeywordRequestSchema>;

export const KeywordEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready'), origin: z.string(), ms: z.number() }),
  z.object({ type: z.literal('failed'), message: z.string() }),
  // The term cache warmed (the first time, and again after changes): wall time of the warming, warmed terms and their postings,
  // and the id of the last search the worker had answered then (so a caller can tell a warming after its searches from an older one).
  z.object({ type: z.literal('warmed'), ms: z.number(), terms: z.number().int(), postings: z.number().int(), afterRequest: z.number().int() }),
  z.object({ type: z.literal('log'), level: z.enum(['debug', 'info', 'warn']), message: z.string() }),
]);
export type KeywordEvent = z.infer<typeof KeywordEventSchema>;

/**
 * The buffer shared by the caller and the keyword worker. Int32 slots: [0] id
 * of the last answered request, [1] worker state, [2] hit count of the answer
 * (-1: failed); then (rid, score) float64 pairs. The caller posts a request and
 * waits (Atomics.wait) until slot 0 holds its id: a synchronous call of about
 * 0.1 ms on top of the search itself.
 */
export class SharedAnswer {
  static readonly BYTES = 16 + MAX_KEYWORD_HITS * 16;
  private readonly ctrl: Int32Array;
  private readonly hits: Float64Array;

  constructor(readonly shared: SharedArrayBuffer) {
    this.ctrl = new Int32Array(shared, 0, 4);
    this.hits = new Float64Array(shared, 16, MAX_KEYWORD_HITS * 2);
  }

  static create(): SharedAnswer {
    return new SharedAnswer(new SharedArrayBuffer(SharedAnswer.BYTES));
  }

  get state(): number {
    return Atomics.load(this.ctrl, WORKER_STATE_SLOT);
  }

  setState(state: number): void {
    Atomics.store(this.ctrl, WORKER_STATE_SLOT, state);
    Atomics.notify(this.ctrl, WORKER_STATE_SLOT);
  }

  /** Blocks until the worker left the loading state or `timeoutMs` passed; the state. */
  waitWhileLoading(timeoutMs: number): number {
    if (this.state === WORKER_LOADING) Atomics.wait(this.ctrl, WORKER_STATE_SLOT, WORKER_LOADING, timeoutMs);
    return this.state;
  }

  answer(id: number, hits: KeywordHit[]): void {
    const n = Math.min(hits.length, MAX_KEYWORD_HITS);
    for (let i = 0; i < n; i++) {
      this.hits[2 * i] = hits[i].rid;
      this.hits[2 * i + 1] = hits[i].score;
    }
    this.publish(id, n);
  }

  fail(id: number): void {
    this.publish(id, -1);
  }

  private publish(id: number, count: number): void {
    Atomics.store(this.ctrl, 2, count);
    Atomics.store(this.ctrl, 0, id);
    Atomics.notify(this.ctrl, 0);
  }

  /** Waits for the answer to request `id`; null on timeout or failure. */
  await(id: number, timeoutMs: number): KeywordHit[] | null {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const seen = Atomics.load(this.ctrl, 0);
      if (seen === id) break;
      const left = deadline - Date.now();
      if (left <= 0) return null;
      Atomics.wait(this.ctrl, 0, seen, left);
    }
    const count = Atomics.load(this.ctrl, 2);
    if (count < 0) return null;
    const out: KeywordHit[] = new Array<KeywordHit>(count);
    for (let i = 0; i < count; i++) out[i] = { rid: this.hits[2 * i], score: this.hits[2 * i + 1] };
    return out;
  }
}
