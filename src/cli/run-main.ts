/**
 * The tail every `npm run bench:*` entry point shares: run `main`, set the exit
 * code it returns; a usage error (args.ts: unknown option, bad value) is one line
 * on stderr with exit code 2; any other error prints `name: CODE: message` (the
 * typed error's code when there is one) to stderr with exit code 1.
 */
import { errorMessage, isAgentMemoryError } from '../core/errors';
import { EXIT, isUsageError } from './args';

/**
 * `exit`: end the process once `main` settles (for a bench whose runners keep handles open).
 *
 * @example
 * if (require.main === module) runMain('bench:paper', () => main(process.argv.slice(2)));
 */
export function runMain(name: string, main: () => Promise<number>, options: { exit?: boolean } = {}): void {
  let started: Promise<number>;
  try {
    started = main();
  } catch (error) {
    started = Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
  const settled = started.then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      if (isUsageError(error)) {
        const line = errorMessage(error).split('\n')[0];
        process.stderr.write(`${name}: ${line}${/[.!?]$/.test(line) ? '' : '.'} See: npm run ${name} -- --help\n`);
        process.exitCode = EXIT.usage;
        return;
      }
      process.stderr.write(`${name}: ${isAgentMemoryError(error) ? `${error.code}: ` : ''}${errorMessage(error)}\n`);
      process.exitCode = EXIT.failure;
    },
  );
  if (options.exit) void settled.then(() => process.exit());
}
