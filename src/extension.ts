/**
 * VS Code entry point: activate/deactivate only. Everything is built by the
 * Container (src/vscode/container.ts). Activation stays cheap: the memory
 * database opens on first use, not here.
 */
import type * as vscode from 'vscode';
import type { AgentMemoryApp } from './core/app/types';
import type { CreateApp } from './vscode/app-host';
import { Container } from './vscode/container';

/** What `activate` returns (`vscode.extensions.getExtension(...).exports`); used by integration tests. */
export interface AgentMemoryExtensionApi {
  readonly container: Container;
  /** Milliseconds spent in `activate` (performance.now() around it). */
  readonly activationMs: number;
  /** The app, created on demand. */
  getApp(): Promise<AgentMemoryApp>;
  /** Swaps the app factory (tests); the current app is disposed. */
  useAppFactory(factory: CreateApp): void;
}

export function activate(context: vscode.ExtensionContext): AgentMemoryExtensionApi {
  const started = performance.now();
  const c = new Container(context);
  context.subscriptions.push(c);
  const activationMs = performance.now() - started;
  c.logger.info(`[activation] Agent Memory activated in ${activationMs.toFixed(1)} ms (database not opened yet)`);
  return {
    container: c,
    activationMs,
    getApp: () => c.host.get(),
    useAppFactory: (factory) => c.host.useFactory(factory),
  };
}

/** Nothing to do: context.subscriptions disposes the container (and the app with it). */
export function deactivate(): void {}
