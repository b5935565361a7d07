/**
 * The tail every `npm run bench:*` entry point shares: run `main`, set the exit
 * code it returns, and on an error print `name: CODE: message` (the typed
 * error's code when there is one) to stderr with exit code 1.
 */
import { errorMessage, isAgentMemoryError } from '../core/errors';

/**
 * @example
 * if (require.main === module) runMain('bench:paper', () => main(process.argv.slice(2)));
 */
export function runMain(name: string, main: () => Promise<number>): void {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`${name}: ${isAgentMemoryError(error) ? `${error.code}: ` : ''}${errorMessage(error)}\n`);
      process.exitCode = 1;
    },
  );
}
