import { redactText } from './security/redact';

/**
 * Logging port: the core logs through this; the VS Code adapter backs it with a LogOutputChannel.
 * Every shipped sink (stderrLogger, the channel logger) is wrapped in `redactingLogger`, so no
 * log line carries a secret.
 */
export interface Logger {
  trace(message: string, ...args: unknown[]): void;
  debug(message: string, ...args: unknown[]): void;
  info(message: string, ...args: unknown[]): void;
  warn(message: string, ...args: unknown[]): void;
  error(message: string | Error, ...args: unknown[]): void;
}

/** A logger that drops everything (default for tests and library use). */
export const nullLogger: Logger = {
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

/** Logger writing to stderr (CLI use); never stdout, which carries results. */
export function stderrLogger(minLevel: 'debug' | 'info' | 'warn' = 'info'): Logger {
  const order = { trace: 0, debug: 1, info: 2, warn: 3, error: 4 } as const;
  const min = order[minLevel];
  const write = (level: keyof typeof order) => (message: string | Error, ...args: unknown[]) => {
    if (order[level] < min) return;
    const text = message instanceof Error ? message.stack ?? message.message : message;
    process.stderr.write(`[${level}] ${text}${args.length ? ' ' + args.map((a) => JSON.stringify(a)).join(' ') : ''}\n`);
  };
  return redactingLogger({ trace: write('trace'), debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') });
}

/**
 * Redacts secrets (src/core/security/redact.ts) from every message, error and
 * argument before `logger` sees them. Errors become redacted copies (message and stack).
 *
 * @example
 * const logger = redactingLogger(channelLogger(channel));
 * logger.warn(`401 for key sk-…`); // logs "401 for key [redacted:openai-key]"
 */
export function redactingLogger(logger: Logger): Logger {
  const clean = (args: unknown[]) => args.map(redactArg);
  return {
    trace: (m, ...a) => logger.trace(redactText(m), ...clean(a)),
    debug: (m, ...a) => logger.debug(redactText(m), ...clean(a)),
    info: (m, ...a) => logger.info(redactText(m), ...clean(a)),
    warn: (m, ...a) => logger.warn(redactText(m), ...clean(a)),
    error: (m, ...a) => logger.error(m instanceof Error ? redactError(m) : redactText(m), ...clean(a)),
  };
}

function redactArg(arg: unknown): unknown {
  if (typeof arg === 'string') return redactText(arg);
  if (arg instanceof Error) return redactError(arg);
  if (arg !== null && typeof arg === 'object') {
    try {
      return JSON.parse(redactText(JSON.stringify(arg))) as unknown;
    } catch {
      return '[unserialisable argument]';
    }
  }
  return arg;
}

/**
 * A copy of `error` whose message and stack are redacted (same name and prototype), and
 * so is every error in its `cause` chain (and an AggregateError's `errors`): a driver
 * error wrapped as the cause of a typed error can quote a connection string.
 */
export function redactError(error: Error, depth = 0): Error {
  const message = redactText(error.message);
  const stack = error.stack === undefined ? undefined : redactText(error.stack);
  const cause: unknown = (error as { cause?: unknown }).cause;
  const cleanCause = depth >= 8 ? undefined : cause instanceof Error ? redactError(cause, depth + 1) : typeof cause === 'string' ? redactText(cause) : cause;
  const errors = error instanceof AggregateError ? error.errors.map((e: unknown) => (e instanceof Error && depth < 8 ? redactError(e, depth + 1) : e)) : undefined;
  const errorsChanged = errors !== undefined && errors.some((e, i) => e !== (error as AggregateError).errors[i]);
  if (message === error.message && stack === error.stack && cleanCause === cause && !errorsChanged) return error;
  const copy = Object.create(Object.getPrototypeOf(error) as object) as Error;
  Object.assign(copy, error);
  Object.defineProperty(copy, 'message', { value: message, enumerable: false, writable: true, configurable: true });
  Object.defineProperty(copy, 'stack', { value: stack, enumerable: false, writable: true, configurable: true });
  if (cause !== undefined) Object.defineProperty(copy, 'cause', { value: cleanCause, enumerable: false, writable: true, configurable: true });
  if (errorsChanged) Object.defineProperty(copy, 'errors', { value: errors, enumerable: false, writable: true, configurable: true });
  return copy;
}

/** Prefixes every message with a `[component]` tag. */
export function tagged(logger: Logger, component: string): Logger {
  const p = `[${component}] `;
  // A message that already carries the tag (e.g. relayed from a worker that tags its own lines) keeps one.
  const tag = (m: string): string => (m.startsWith(p) ? m : p + m);
  return redactingLogger({
    trace: (m, ...a) => logger.trace(tag(m), ...a),
    debug: (m, ...a) => logger.debug(tag(m), ...a),
    info: (m, ...a) => logger.info(tag(m), ...a),
    warn: (m, ...a) => logger.warn(tag(m), ...a),
    error: (m, ...a) => logger.error(m instanceof Error ? m : tag(m), ...a),
  });
}
