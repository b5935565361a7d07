import { strict as assert } from 'node:assert';
import { inspect } from 'node:util';
import { AgentMemoryError } from '../../../src/core/errors';
import { Logger, redactError, redactingLogger } from '../../../src/core/logger';

const PASSWORD = 'Zq8vT2wLx9pR4mK7';
const URL_WITH_PASSWORD = `postgres://agent_memory_app:${PASSWORD}@db.internal:5432/agent_memory?sslmode=verify-full`;

/** Every string a rendering of `error` can show: messages, stacks, causes (util.inspect walks the cause chain). */
function everything(error: unknown): string {
  return inspect(error, { depth: 20 }) + JSON.stringify(error);
}

describe('redactError: credentials in a postgres:// URL never survive, however deep the cause chain', () => {
  it('redacts the message, the stack and every nested cause (the known leak: a driver error as the cause of a typed error)', () => {
    const driver = new Error(`connect ECONNREFUSED for ${URL_WITH_PASSWORD}`);
    const wrapped = new AgentMemoryError('UNREACHABLE', 'The team memory is unreachable.', { where: 'db.internal' }, { cause: new Error(`pool failed: ${URL_WITH_PASSWORD}`, { cause: driver }) });
    assert.ok(everything(wrapped).includes(PASSWORD), 'the fixture must contain the password');
    const clean = redactError(wrapped);
    assert.ok(!everything(clean).includes(PASSWORD), everything(clean));
    assert.ok(clean instanceof AgentMemoryError);
    assert.equal((clean).code, 'UNREACHABLE');
    const cause = (clean as { cause?: Error }).cause!;
    assert.match(cause.message, /postgres:\/\/\[redacted:url-credentials\]@db\.internal/);
    assert.match((cause as { cause?: Error }).cause!.message, /\[redacted:url-credentials\]/);
    // The original is not changed (a copy is redacted).
    assert.ok(everything(wrapped).includes(PASSWORD));
  });

  it('redacts a string cause, an AggregateError\'s errors and a password given as a URL parameter; a clean error is returned as is', () => {
    const agg = new AggregateError([new Error(`a ${URL_WITH_PASSWORD}`), new Error('harmless')], 'several attempts failed', { cause: `postgres://db/x?password=${PASSWORD}` });
    const clean = redactError(agg);
    assert.ok(!everything(clean).includes(PASSWORD), everything(clean));
    assert.equal((clean as AggregateError).errors.length, 2);
    const plain = new Error('nothing secret', { cause: new Error('still nothing') });
    assert.equal(redactError(plain), plain);
  });

  it('a redacting logger passes errors with nested credentials on without them', () => {
    const seen: unknown[] = [];
    const sink: Logger = { trace: () => undefined, debug: () => undefined, info: () => undefined, warn: (m, ...a) => seen.push(m, ...a), error: (m, ...a) => seen.push(m, ...a) };
    const logger = redactingLogger(sink);
    const error = new Error('open failed', { cause: new Error(`at ${URL_WITH_PASSWORD}`) });
    logger.error(error);
    logger.warn(`retrying ${URL_WITH_PASSWORD}`, error);
    assert.equal(seen.length, 3);
    for (const item of seen) assert.ok(!everything(item).includes(PASSWORD), everything(item));
  });
});
