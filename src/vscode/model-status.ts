/**
 * The model status-bar item: which model answers (the offline reuse model, or the endpoint's
 * model) and the endpoint's health from the last connection test. A click tests the
 * connection. Also runs "Test Connection" and shows its cause and fix.
 */
import * as vscode from 'vscode';
import { ConnectionResult, testConnection } from '../core/agent/model/connection-test';
import type { Logger } from '../core/logger';
import type { Settings } from './settings-schema';

type Health = { state: 'unknown' } | { state: 'testing' } | { state: 'result'; result: ConnectionResult };

/** Status-bar text and tooltip for a model and its health (pure, exported for tests). */
export function modelStatusText(model: Settings['model'], health: Health): { text: string; tooltip: string } {
  if (!model.baseUrl) {
    return { text: '$(hubot) reuse model', tooltip: 'Agent Memory model: the offline reuse model (adapts the closest memory record; no LLM). Configure an endpoint to use an LLM.' };
  }
  const name = model.name || '(no model name)';
  if (health.state === 'testing') return { text: `$(sync~spin) ${name}`, tooltip: `Testing ${model.baseUrl}…` };
  if (health.state === 'unknown') return { text: `$(hubot) ${name}`, tooltip: `Agent Memory model: ${name} at ${model.baseUrl} (not tested yet). Click to test the connection.` };
  const r = health.result;
  if (r.ok) return { text: `$(hubot) ${r.servedModel ?? name} $(check)`, tooltip: `${r.message} Click to test again.` };
  return { text: `$(hubot) ${name} $(warning)`, tooltip: `${r.message} ${r.fix ?? ''} Click to test again.` };
}

const endpointKey = (m: Settings['model']): string => `${m.baseUrl}\n${m.name}`;

export class ModelStatus implements vscode.Disposable {
  readonly item: vscode.StatusBarItem;
  private health: Health = { state: 'unknown' };
  private testedFor = '';

  constructor(
    private readonly settings: () => Settings,
    private readonly apiKey: () => Promise<string | undefined>,
    private readonly logger: Logger,
  ) {
    this.item = vscode.window.createStatusBarItem('agentMemory.model', vscode.StatusBarAlignment.Left, 49);
    this.item.name = 'Agent Memory Model';
    this.item.command = { command: 'agentMemory.testConnection', title: 'Test the model connection' };
    this.render();
    this.item.show();
  }

  get text(): string {
    return this.item.text;
  }

  /** Settings changed: the old health no longer applies if the endpoint or model changed. */
  reset(): void {
    if (endpointKey(this.settings().model) !== this.testedFor) this.health = { state: 'unknown' };
    this.render();
  }

  /** Runs the test, updates the item, logs the outcome (never the key). */
  async test(): Promise<ConnectionResult | undefined> {
    const model = this.settings().model;
    if (!model.baseUrl) {
      this.health = { state: 'unknown' };
      this.render();
      return undefined;
    }
    this.health = { state: 'testing' };
    this.testedFor = endpointKey(model);
    this.render();
    const result = await testConnection({ baseURL: model.baseUrl, model: model.name, apiKey: (await this.apiKey()) ?? undefined });
    this.health = { state: 'result', result };
    this.render();
    if (result.ok) this.logger.info(`[model] ${result.message}`);
    else this.logger.warn(`[model] connection test failed (${result.problem}): ${result.message} Fix: ${result.fix ?? '–'}`);
    return result;
  }

  private render(): void {
    const { text, tooltip } = modelStatusText(this.settings().model, this.health);
    this.item.text = text;
    this.item.tooltip = tooltip;
    const failed = this.health.state === 'result' && !this.health.result.ok;
    this.item.backgroundColor = failed ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  }

  dispose(): void {
    this.item.dispose();
  }
}
