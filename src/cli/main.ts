#!/usr/bin/env node
/**
 * `agent-memory` CLI. Each subcommand lives in `src/cli/commands/<name>.ts` and
 * exports `run(argv: string[]): Promise<number>` plus a one-line `summary`; every
 * one parses its arguments with `node:util` parseArgs (src/cli/args.ts) and
 * answers `--help`.
 */
import { errorMessage, isAgentMemoryError } from '../core/errors';
import { assertNodeApi } from '../core/memory/sqlite/native-sqlite';
import { redactText } from '../core/security/redact';
import { describeConnection, isPostgresUrl, looksLikeUrl } from '../core/memory/postgres/connection';
import { EXIT, isUsageError, usageError } from './args';
import { COMMANDS } from './commands';
import { flushStdout, watchStdout } from './stdout';

const FAILED_EXIT_GRACE_MS = 500;

export const MAIN_USAGE = 'Usage: agent-memory <command> [options]   (agent-memory <command> --help for its options)';

const EXIT_CODES = `Exit codes:
  ${EXIT.ok}  success
  ${EXIT.failure}  the operation failed (the message on stderr says why and what to do)
  ${EXIT.usage}  usage error: unknown command or option, missing or invalid argument`;

function help(): string {
  const lines = Object.entries(COMMANDS).map(([n, c]) => `  ${n.padEnd(18)} ${c.summary}`);
  return `${MAIN_USAGE}\n\nCommands:\n${lines.join('\n')}\n\n${EXIT_CODES}\n`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    (name ? process.stdout : process.stderr).write(help());
    return name ? EXIT.ok : EXIT.usage;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`agent-memory: unknown command '${name}'. Run 'agent-memory --help' for the list.\n`);
    return EXIT.usage;
  }
  refuseOtherUrls(rest);
  assertNodeApi(); // before any command touches SQLite: on too old a Node the binary segfaults
  watchStdout();
  const code = await command.run(rest);
  await flushStdout(); // a command's output that did not arrive whole is a failure, said as such
  return code;
}

/** `--db` takes a file path or a postgres:// URL; any other URL (pg://, postgres:/…) is a typo, refused before it becomes a folder named after it. */
function refuseOtherUrls(argv: string[]): void {
  argv.forEach((arg, i) => {
    const value = arg === '--db' ? argv[i + 1] : arg.startsWith('--db=') ? arg.slice('--db='.length) : undefined;
    if (value !== undefined && looksLikeUrl(value) && !isPostgresUrl(value)) {
      throw usageError(`--db takes a memory file path or a team memory URL postgres://user@host/database; ${describeConnection(value)} is neither.`, MAIN_USAGE);
    }
  });
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const prefix = isAgentMemoryError(error) ? `agent-memory: ${error.code}: ` : 'agent-memory: ';
    // An error can quote its input (a URL with a key, a line of an import file): redacted like every log line.
    process.stderr.write(redactText(prefix + errorMessage(error)) + '\n');
    process.exitCode = isUsageError(error) ? EXIT.usage : EXIT.failure;
    // The command is over: a connection left half open by the failure (a login the server has not
    // yet timed out) must not keep the process alive for a minute. Cleanup in progress gets 0.5 s.
    setTimeout(() => process.exit(), FAILED_EXIT_GRACE_MS).unref();
  },
);
