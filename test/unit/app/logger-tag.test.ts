import { strict as assert } from 'node:assert';
import { tagged, type Logger } from '../../../src/core/logger';

/** A logger that keeps every line. */
function recording(lines: string[]): Logger {
  const keep = (m: string | Error) => void lines.push(String(m));
  return { trace: keep, debug: keep, info: keep, warn: keep, error: keep };
}

describe('tagged logger', () => {
  it('prefixes its component once, also for a line relayed with the tag already on it', () => {
    const lines: string[] = [];
    const log = tagged(recording(lines), 'keywords');
    log.info('worker ready');
    log.warn('[keywords] relayed from the worker');
    log.debug('[other] another component keeps its own tag');
    assert.deepEqual(lines, ['[keywords] worker ready', '[keywords] relayed from the worker', '[keywords] [other] another component keeps its own tag']);
  });
});
