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
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { AgentMemoryError } from './errors';

/**
 * When the worker's `workerData.shared` (a SharedArrayBuffer) carries a state slot the caller may
 * block on with Atomics.wait: the slot and the value that means "failed". The bootstrap stores it
 * when the entry cannot even load, because the caller's 'error' handler cannot run while it waits.
 */
export interface FailState {
  slot: number;
  value: number;
}

/**
 * tsx's CommonJS hook as resolved from where this module was loaded (only a source run loads a `.ts`
 * entry), not from the process's working directory (an eval worker resolves from there). Resolved
 * through a require made for this file rather than a literal `require.resolve('tsx/cjs')`: a bundle
 * (dist/) never runs a `.ts` entry and does not ship tsx, and esbuild cannot bundle a literal
 * require.resolve of a package it does not include (it warned once per bundle).
 */
function tsxHook(): string {
  return createRequire(__filename).resolve('tsx/cjs');
}

/** The code a `new Worker(code, { eval: true })` runs to load the entry `name` found in `dir` (the caller's `__dirname`). */
export function workerBootstrap(dir: string, name: string, failState?: FailState): string {
  for (const file of [`${name}.js`, `${name}.ts`].map((f) => path.join(dir, f))) {
    if (!fs.existsSync(file)) continue;
    const load = `${file.endsWith('.ts') ? `require(${JSON.stringify(tsxHook())});` : ''}require(${JSON.stringify(file)});`;
    if (!failState) return load;
    return `try { ${load} } catch (error) { const shared = require('node:worker_threads').workerData?.shared; if (shared instanceof SharedArrayBuffer) { const state = new Int32Array(shared); Atomics.store(state, ${failState.slot}, ${failState.value}); Atomics.notify(state, ${failState.slot}); } throw error; }`;
  }
  throw new AgentMemoryError('INVALID_STATE', `The ${name} worker script was not found beside ${dir}; reinstall the extension or the CLI.`);
}
