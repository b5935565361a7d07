/**
 * Worker-thread entry of the background keyword index (see keyword-service.ts):
 * opens its own connection to the database, loads (or rebuilds) the MiniSearch
 * index off the caller's thread, then answers searches through the shared
 * buffer the caller waits on, and warms the index's term cache between them
 * (KeywordWarmer).
 */
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { parentPort, workerData } from 'node:worker_threads';
import { errorMessage } from '../../errors';
import type { Logger } from '../../logger';
import { Database, openDatabase } from '../sqlite/database';
import { KeywordIndex } from './keyword-index';
import { KeywordEvent, KeywordRequestSchema, KeywordWorkerDataSchema, SharedAnswer, WORKER_FAILED, WORKER_READY } from './keyword-protocol';
import { KeywordWarmer } from './keyword-warmer';

/**
 * A full garbage collection of this worker's heap, run after the index loads
 * and after each warming. Loading (a plain-object tree of the whole index
 * file) and warming (a result object per posting searched) leave hundreds of
 * MB of garbage that V8 otherwise keeps, heap grown, for as long as the
 * worker idles: at 100k records the process RSS stayed at 1.5 GB, and fell to
 * about 0.3 GB after one collection. `gc` is reached through the documented
 * `--expose_gc` flag set at run time (it only adds a `gc` function to
 * contexts created afterwards); a no-op where that is refused.
 */
function collector(): () => void {
  try {
    v8.setFlagsFromString('--expose_gc');
    const gc: unknown = vm.runInNewContext('gc');
    if (typeof gc === 'function') return () => void (gc as () => unknown)();
  } catch {
    // No collection on demand: V8 collects on its own schedule.
  }
  return () => undefined;
}

function main(): void {
  const port = parentPort;
  if (!port) throw new Error('keyword-worker must run in a worker thread');
  const data = KeywordWorkerDataSchema.parse(workerData);
  const answer = new SharedAnswer(data.shared);
  const send = (level: 'debug' | 'info' | 'warn') => (message: string | Error) => port.postMessage({ type: 'log', level, message: String(message) });
  const logger: Logger = { trace: () => undefined, debug: send('debug'), info: send('info'), warn: send('warn'), error: send('warn') };
  let index: KeywordIndex;
  let db: Database;
  const started = Date.now();
  try {
    // The thread that started this worker opened (and so checked) the same file a moment ago: a second
    // full check here would read every page again (seconds at 100k), and block termination while it runs.
    db = openDatabase(data.dbFile, { logger, integrityCheck: false });
    index = KeywordIndex.openDatabase(db, { file: data.file, engine: data.engine, maxPostings: data.maxPostings, persistDebounceMs: data.persistDebounceMs, termCachePostings: data.termCachePostings, termCacheBytes: data.termCacheBytes }, logger);
  } catch (error) {
    answer.setState(WORKER_FAILED);
    port.postMessage({ type: 'failed', message: errorMessage(error) });
    return;
  }
  const collect = collector();
  collect();
  answer.setState(WORKER_READY);
  port.postMessage({ type: 'ready', origin: index.origin, ms: Date.now() - started });
  let lastAnswered = 0;
  const warmer = new KeywordWarmer(index, { logger, onWarmed: (report) => {
      collect();
      port.postMessage({ type: 'warmed', ...report, afterRequest: lastAnswered } satisfies KeywordEvent);
    },
  });
  warmer.start();
  port.on('message', (raw: unknown) => {
    const request = KeywordRequestSchema.safeParse(raw);
    if (!request.success) return;
    const r = request.data;
    try {
      if (r.type === 'search') {
        answer.answer(r.id, index.search(r.text, r.limit));
        lastAnswered = r.id;
        warmer.noticeChanges();
      } else if (r.type === 'frequencies') {
        answer.answer(r.id, r.terms.map((t, i) => ({ rid: i, score: index.documentFrequency(t) })));
      } else {
        if (r.type === 'close') warmer.close();
        index.flush();
        // Closed before answering: the owner closes the store once this answer (or the worker's end) arrives,
        // and the last connection to close is the one that checkpoints the WAL and leaves the file clean.
        if (r.type === 'close') db.close();
        answer.answer(r.id, []);
        if (r.type === 'close') port.close();
      }
    } catch (error) {
      logger.warn(`keyword ${r.type} failed: ${errorMessage(error)}`);
      answer.fail(r.id);
    }
  });
}

main();
