/**
 * Watches the agent's database (agentMemory.agent.dataPath, else the bundled demo): when
 * the file changes, the records whose stored data fingerprint differs are re-run in the
 * sandbox (src/core/revalidation), in a cancellable progress notification. Polls the
 * file's size and mtime (fs.watchFile): the file may live outside the workspace, and a
 * SQLite write often replaces or appends to it in ways a rename-based watcher misses.
 */
import * as fs from 'node:fs';
import type * as vscode from 'vscode';
import { errorMessage } from '../core/errors';
import type { Logger } from '../core/logger';
import type { AppHost } from './app-host';
import type { Settings } from './settings-schema';

const POLL_MS = 2000;
const SETTLE_MS = 1500;

export interface DataWatcherOptions {
  host: AppHost;
  onDidChangeSettings: vscode.Event<Settings>;
  /** Runs the revalidation of the records whose fingerprint differs (with progress). */
  revalidateChanged(): Promise<unknown>;
  logger: Logger;
}

export function watchAgentData(options: DataWatcherOptions): vscode.Disposable {
  let watched: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  const onChange = (cur: fs.Stats, prev: fs.Stats): void => {
    if (cur.mtimeMs === prev.mtimeMs && cur.size === prev.size) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (running || !options.host.current) return;
      running = true;
      options.logger.info(`[revalidate] ${watched} changed: re-running the programs whose data fingerprint differs`);
      options.revalidateChanged().then(
        () => (running = false),
        (error: unknown) => {
          running = false;
          options.logger.warn(`[revalidate] after a data change: ${errorMessage(error)}`);
        },
      );
    }, SETTLE_MS);
  };
  const retarget = (): void => {
    const file = options.host.current?.agentDataPath();
    if (file === watched) return;
    if (watched) fs.unwatchFile(watched, onChange);
    watched = file;
    if (file) fs.watchFile(file, { interval: POLL_MS, persistent: false }, onChange);
  };
  const sub = options.onDidChangeSettings(() => retarget());
  const appSub = options.host.onDidChange(() => retarget());
  retarget();
  return {
    dispose: () => {
      clearTimeout(timer);
      sub.dispose();
      appSub.dispose();
      if (watched) fs.unwatchFile(watched, onChange);
    },
  };
}
