/**
 * Notices writes other processes make to the memory database (MCP servers,
 * the CLI), so a record another agent stored as pending shows in the sidebar
 * at once: the database file and its WAL are watched (fs.watch on the folder),
 * and the views refresh, throttled, while the app is open.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import type { Logger } from '../../core/logger';

/** At most one refresh per this many milliseconds while another process writes. */
export const EXTERNAL_REFRESH_MS = 500;

export interface ExternalChangeOptions {
  databasePath: () => string;
  /** Called (throttled) after the database files changed on disk. */
  onChange: () => void;
  /** Re-watch when this fires (the database path may have changed). */
  onDidChangeSettings: vscode.Event<unknown>;
  logger: Logger;
}

export function watchExternalChanges(options: ExternalChangeOptions): vscode.Disposable {
  let watcher: fs.FSWatcher | undefined;
  let watched = '';
  let timer: NodeJS.Timeout | undefined;
  const fire = (): void => {
    timer ??= setTimeout(() => {
      timer = undefined;
      options.onChange();
    }, EXTERNAL_REFRESH_MS);
  };
  const watch = (): void => {
    const file = options.databasePath();
    if (file === watched) return;
    watcher?.close();
    watcher = undefined;
    watched = file;
    if (file === ':memory:') return;
    const base = path.basename(file);
    try {
      watcher = fs.watch(path.dirname(file), (_event, name) => {
        if (name === base || name === `${base}-wal`) fire();
      });
      watcher.on('error', (error) => options.logger.warn(`[external] stopped watching ${file}: ${String(error)}`));
    } catch (error) {
      options.logger.warn(`[external] cannot watch ${file} for other processes' writes (${String(error)}); use Refresh Explorer`);
    }
  };
  watch();
  const listener = options.onDidChangeSettings(() => watch());
  return {
    dispose: () => {
      listener.dispose();
      watcher?.close();
      if (timer) clearTimeout(timer);
    },
  };
}
