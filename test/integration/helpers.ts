/**
 * Shared helpers for the extension-host suites: the extension's API, a fresh memory
 * database per suite (a temp file set through `agentMemory.databasePath` in the test
 * workspace), and the core app (always the real one).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentMemoryApp } from '../../src/core/app/types';
import type { AgentMemoryExtensionApi } from '../../src/extension';

export const EXTENSION_ID = 'agent-memory.agent-memory';

export async function extensionApi(): Promise<AgentMemoryExtensionApi> {
  const ext = vscode.extensions.getExtension<AgentMemoryExtensionApi>(EXTENSION_ID);
  if (!ext) throw new Error(`${EXTENSION_ID} is not installed`);
  return ext.activate();
}

/** Points the extension at a new empty database file and returns the (re-created) app. */
export async function freshMemory(label: string): Promise<{ api: AgentMemoryExtensionApi; app: AgentMemoryApp; databasePath: string }> {
  const api = await extensionApi();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `agent-memory-${label}-`));
  const databasePath = path.join(dir, 'memory.sqlite');
  await vscode.workspace.getConfiguration('agentMemory').update('databasePath', databasePath, vscode.ConfigurationTarget.Workspace);
  await waitFor(() => api.container.databasePath() === databasePath, 'the databasePath setting to apply');
  // Always the real core facade (src/core/app/index.ts): the host requires it, so a build without it fails loudly in getApp().
  api.container.host.reset();
  await api.getApp();
  return { api, app: currentApp(api), databasePath };
}

/**
 * A stable handle on whichever app instance is current: a settings change may
 * re-create the app, so tests never keep a stale instance.
 */
export function currentApp(api: AgentMemoryExtensionApi): AgentMemoryApp {
  return new Proxy({} as AgentMemoryApp, {
    get(_target, prop) {
      const app = api.container.host.current;
      if (!app) throw new Error(`the app is not open (reading ${String(prop)}); await api.getApp() first`);
      const value = (app as unknown as Record<string | symbol, unknown>)[prop];
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(app) : value;
    },
  });
}

/**
 * Sets one `agentMemory.*` setting in the workspace and returns once the extension has
 * applied it to the app (its `onDidApplySettings` event, fired after the app was configured
 * or dropped for another database), so a command called next sees the new value.
 */
export async function setSetting(api: AgentMemoryExtensionApi, key: string, value: unknown): Promise<void> {
  const config = vscode.workspace.getConfiguration('agentMemory');
  // Writing the value it already has changes nothing: no event would come.
  if (JSON.stringify(config.inspect(key)?.workspaceValue) === JSON.stringify(value)) {
    await api.getApp();
    return;
  }
  const applied = settingsApplied(api, key, value);
  try {
    await config.update(key, value, vscode.ConfigurationTarget.Workspace);
  } catch (error) {
    applied.cancel();
    throw error;
  }
  await applied.done;
  // The change may have re-created the app: open the new one before the test reads it.
  await api.getApp();
}

/**
 * Resolves on the extension's first "settings applied" event whose settings carry `value` at
 * `key` (any applied event when `value` is undefined: the setting was reset). Subscribed before
 * the write, so the event cannot be missed. The deadline only turns a change the extension
 * never applied (see the Agent Memory log) into a clear failure instead of a mocha timeout.
 */
function settingsApplied(api: AgentMemoryExtensionApi, key: string, value: unknown, deadlineMs = 15_000): { done: Promise<void>; cancel(): void } {
  let cancel = () => {};
  const done = new Promise<void>((resolve, reject) => {
    const subscription = api.container.onDidApplySettings((settings) => {
      if (value !== undefined && JSON.stringify(readKey(settings, key)) !== JSON.stringify(value)) return;
      cancel();
      resolve();
    });
    const timer = setTimeout(() => {
      cancel();
      reject(new Error(`the extension did not apply agentMemory.${key} = ${JSON.stringify(value)} within ${deadlineMs} ms (see the Agent Memory log)`));
    }, deadlineMs);
    cancel = () => {
      clearTimeout(timer);
      subscription.dispose();
    };
  });
  return { done, cancel };
}

function readKey(obj: unknown, key: string): unknown {
  return key.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], obj);
}

/** Polls `condition` (for UI state that settles asynchronously). */
export async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/** Runs a command and fails the test when it returned undefined (commands log and swallow their errors). */
export async function run<T>(command: string, ...args: unknown[]): Promise<T> {
  const result = await vscode.commands.executeCommand<T>(command, ...args);
  if (result === undefined) throw new Error(`${command} returned nothing: it failed or was cancelled (see the Agent Memory log)`);
  return result;
}

export async function closeAllEditors(): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
}
