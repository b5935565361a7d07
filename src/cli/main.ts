#!/usr/bin/env node
/**
 * `agent-memory` CLI. Each subcommand lives in `src/cli/commands/<name>.ts` and
 * exports `run(argv: string[]): Promise<number>` plus a one-line `summary`.
 */
import { errorMessage, isAgentMemoryError } from '../core/errors';
import { COMMANDS } from './commands';

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    const lines = Object.entries(COMMANDS).map(([n, c]) => `  ${n.padEnd(18)} ${c.summary}`);
    process.stdout.write(`Usage: agent-memory <command> [options]\n\nCommands:\n${lines.join('\n')}\n`);
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`agent-memory: unknown command '${name}'. Run 'agent-memory --help' for the list.\n`);
    return 2;
  }
  return command.run(rest);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const prefix = isAgentMemoryError(error) ? `agent-memory: ${error.code}: ` : 'agent-memory: ';
    process.stderr.write(prefix + errorMessage(error) + '\n');
    process.exitCode = 1;
  },
);
