/**
 * How this code starts its worker threads: the entry script sits beside the module that starts it, as
 * `<name>.js` (beside the bundle in dist/, or tsc output) or as `<name>.ts` (run from source under tsx,
 * which the worker then registers first).
 *
 * @example
 * ```ts
 * new Worker(workerBootstrap(__dirname, 'keyword-worker'), { eval: true, workerData });
 * ```
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentMemoryError } from './errors';

/** The code a `new Worker(code, { eval: true })` runs to load the entry `name` found in `dir` (the caller's `__dirname`). */
export function workerBootstrap(dir: string, name: string): string {
  for (const file of [`${name}.js`, `${name}.ts`].map((f) => path.join(dir, f))) {
    if (fs.existsSync(file)) return `${file.endsWith('.ts') ? "require('tsx/cjs');" : ''}require(${JSON.stringify(file)});`;
  }
  throw new AgentMemoryError('INVALID_STATE', `The ${name} worker script was not found beside ${dir}; reinstall the extension or the CLI.`);
}
