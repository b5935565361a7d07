/** Logging port: the core logs through this; the VS Code adapter backs it with a LogOutputChannel. */
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
  return { trace: write('trace'), debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}

/** Prefixes every message with a `[component]` tag. */
export function tagged(logger: Logger, component: string): Logger {
  const p = `[${component}] `;
  return {
    trace: (m, ...a) => logger.trace(p + m, ...a),
    debug: (m, ...a) => logger.debug(p + m, ...a),
    info: (m, ...a) => logger.info(p + m, ...a),
    warn: (m, ...a) => logger.warn(p + m, ...a),
    error: (m, ...a) => logger.error(m instanceof Error ? m : p + m, ...a),
  };
}
