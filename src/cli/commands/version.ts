import * as fs from 'node:fs';
import * as path from 'node:path';
import { HELP_SHOWN, parseCommandArgs } from '../args';

export const summary = 'print the Agent Memory version';

const USAGE = 'Usage: agent-memory version\n\nPrints the version of the installed Agent Memory.';

/** The version in package.json (bundled dist/cli.js or from source). */
export function packageVersion(): string {
  const pkgPath = [path.join(__dirname, '..', '..', '..', 'package.json'), path.join(__dirname, '..', 'package.json')].find((p) => fs.existsSync(p));
  return pkgPath ? (JSON.parse(fs.readFileSync(pkgPath, 'utf8')) as { version: string }).version : 'unknown';
}

export async function run(argv: string[] = []): Promise<number> {
  if (parseCommandArgs(argv, { usage: USAGE, options: {} }) === HELP_SHOWN) return 0;
  process.stdout.write(`agent-memory ${packageVersion()}\n`);
  return 0;
}
