/**
 * Cleanup that must happen however a bench ends: normally, on an error, or interrupted (Ctrl+C:
 * SIGINT, a kill: SIGTERM). A bench's temp checkout or throwaway PostgreSQL cluster must not
 * outlive it. Cleanups run synchronously (an `exit` handler cannot wait), once each.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/**
 * Registers `cleanup` to run once: when the returned function is called (e.g. in `finally`), when
 * the process exits, or on SIGINT / SIGTERM, after which the process exits with 128 + the signal's
 * number (130, 143), as a shell reports an interrupted command.
 *
 * @example
 * const stop = onExitOrSignal(() => cluster.stopSync());
 * try { await bench(); } finally { stop(); }
 */
export function onExitOrSignal(cleanup: () => void): () => void {
  let done = false;
  const run = () => {
    if (done) return;
    done = true;
    process.off('exit', run);
    for (const s of SIGNALS) process.off(s, onSignal);
    cleanup();
  };
  const onSignal = (signal: NodeJS.Signals) => {
    try {
      run();
    } finally {
      process.exit(128 + (os.constants.signals[signal] ?? 0));
    }
  };
  process.on('exit', run);
  for (const s of SIGNALS) process.on(s, onSignal);
  return run;
}

/**
 * A new directory under the OS temp dir (never in the work tree), removed with everything in it
 * when `remove` is called, when the process exits, or on SIGINT / SIGTERM.
 *
 * @example
 * const work = tempDirRemovedOnExit('agent-memory-coldstart-');
 * try { … work.dir … } finally { work.remove(); }
 */
export function tempDirRemovedOnExit(prefix: string): { dir: string; remove: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, remove: onExitOrSignal(() => fs.rmSync(dir, { recursive: true, force: true })) };
}
