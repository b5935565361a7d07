/**
 * Registry of CLI subcommands. Add one line per command; each module exports
 * `summary` and `run(argv)`. Loaded lazily so `--help` stays fast.
 */
export interface CliCommand {
  summary: string;
  run(argv: string[]): Promise<number>;
}

function lazy(summary: string, load: () => { run(argv: string[]): Promise<number> }): CliCommand {
  return { summary, run: (argv) => load().run(argv) };
}

export const COMMANDS: Record<string, CliCommand> = {
  /* eslint-disable @typescript-eslint/no-require-imports */
  version: lazy('print the Agent Memory version', () => require('./version')),
};
