import * as path from 'node:path';
import * as fs from 'node:fs';

export const summary = 'print the Agent Memory version';

export async function run(): Promise<number> {
  const pkgPath = [path.join(__dirname, '..', '..', '..', 'package.json'), path.join(__dirname, '..', 'package.json')].find((p) => fs.existsSync(p));
  const version = pkgPath ? (JSON.parse(fs.readFileSync(pkgPath, 'utf8')) as { version: string }).version : 'unknown';
  process.stdout.write(`agent-memory ${version}\n`);
  return 0;
}
