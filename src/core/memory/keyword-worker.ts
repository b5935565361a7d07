/**
 * Worker-thread entry of the background keyword index (see keyword-service.ts):
 * opens its own connection to the database, loads (or rebuilds) the MiniSearch
 * index off the caller's thread, then answers searches through the shared
 * buffer the caller waits on, and warms the index's term cache between them
 * (KeywordWarmer).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { errorMessage } from '../errors';
import type { Logger } from '../logger';
import { openDatabase } from './database';
import { KeywordIndex } from './keyword-index';
import { KeywordEvent, KeywordRequestSchema, KeywordWorkerDataSchema, SharedAnswer, WORKER_FAILED, WORKER_READY } from './keyword-protocol';
import { KeywordWarmer } from './keyword-warmer';

function main(): void {
  const port = parentPort;
  if (!port) throw new Error('keyword-worker must run in a worker thread');
  const data = KeywordWorkerDataSchema.parse(workerData);
  const answer = new SharedAnswer(data.shared);
  const send = (level: 'debug' | 'info' | 'warn') => (message: string | Error) => port.postMessage({ type: 'log', level, message: String(message) });
  const logger: Logger = { trace: () => undefined, debug: send('debug'), info: send('info'), warn: send('warn'), error: send('warn') };
  let index: KeywordIndex;
  const started = Date.now();
  try {
    const db = openDatabase(data.dbFile, { logger });
    index = KeywordIndex.openDatabase(db, { file: data.file, maxPostings: data.maxPostings, persistDebounceMs: data.persistDebounceMs, termCachePostings: data.termCachePostings }, logger);
  } catch (error) {
    answer.setState(WORKER_FAILED);
    port.postMessage({ type: 'failed', message: errorMessage(error) });
    return;
  }
  answer.setState(WORKER_READY);
  port.postMessage({ type: 'ready', origin: index.origin, ms: Date.now() - started });
  let lastAnswered = 0;
  const warmer = new KeywordWarmer(index, { logger, onWarmed: (report) => port.postMessage({ type: 'warmed', ...report, afterRequest: lastAnswered } satisfies KeywordEvent) });
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
      } else {
        if (r.type === 'close') warmer.close();
        index.flush();
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
