/** Import / export JSONL, seed the demo memory, re-embed, model endpoint, role memories. */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { z } from 'zod';
import type { ConnectionProblem, ConnectionResult } from '../../core/agent/model/connection-test';
import { StatusSchema } from '../../core/memory/types';
import type { Container } from '../container';
import { ROLES_URI } from '../documents';
import { cancelled, confirm, registerSafeCommand } from './command-support';
import { askEndpoint, storeKeyAnswer } from './endpoint-wizard';

export const DEFAULT_SEED_COUNT = 100;

/** Arguments for `agentMemory.configureModel` (all optional; missing ones are asked for). */
export const ModelEndpointArgsSchema = z.object({
  baseUrl: z.union([z.literal(''), z.url({ protocol: /^https?$/ })]).optional(),
  model: z.string().trim().optional(),
  /** Empty string removes the stored key. */
  apiKey: z.string().optional(),
});

/** `Import the 12 valid lines`: the button that imports a file's valid lines and skips its bad ones. */
export function importValidButton(valid: number): string {
  return `Import the ${valid} valid line${valid === 1 ? '' : 's'}`;
}

/**
 * A file with bad lines (and some good ones): names the bad lines and asks. True to import the
 * valid lines; cancelled when the user declines (nothing was written).
 */
async function askSkipInvalid(c: Container, file: string, valid: number, problems: readonly string[]): Promise<boolean> {
  for (const problem of problems) c.logger.warn(`[import] ${path.basename(file)} ${problem}`);
  const listed = problems.slice(0, 3).join('; ') + (problems.length > 3 ? `; and ${problems.length - 3} more (see the log)` : '');
  const button = importValidButton(valid);
  const choice = await c.notices.show('warning', `Agent Memory: ${problems.length} of the ${valid + problems.length} lines of ${path.basename(file)} are invalid: ${listed}. Nothing was imported yet.`, [button, 'Show Logs']);
  if (choice === 'Show Logs') void vscode.commands.executeCommand('agentMemory.showLogs');
  return choice === button ? true : cancelled();
}

export function registerDataCommands(c: Container): vscode.Disposable[] {
  return [
    registerSafeCommand(c.logger, 'agentMemory.importJsonl', async (arg) => {
      const file = typeof arg === 'string' ? arg : (await vscode.window.showOpenDialog({ canSelectMany: false, title: 'Import memory records', filters: { 'Memory JSONL': ['jsonl'] } }))?.[0]?.fsPath;
      if (!file) return cancelled();
      // Checked first (nothing written): a file with bad lines offers to import the valid ones.
      const { valid, problems } = await c.host.withApp((app) => app.checkJsonlFile(file));
      const skipInvalid = problems.length > 0 && valid > 0 && (await askSkipInvalid(c, file, valid, problems));
      const n = await withProgress(`importing ${file}`, () => c.host.withApp((app) => app.importJsonl(file, { skipInvalid })));
      const skipped = skipInvalid ? `; skipped ${problems.length} invalid line(s), listed in the log` : '';
      void vscode.window.showInformationMessage(`Agent Memory: imported ${n} record(s)${skipped}.`);
      return n;
    }),

    registerSafeCommand(c.logger, 'agentMemory.exportJsonl', async (arg, statusArg) => {
      const file = typeof arg === 'string' ? arg : (await vscode.window.showSaveDialog({ title: 'Export memory records', filters: { 'Memory JSONL': ['jsonl'] }, saveLabel: 'Export' }))?.fsPath;
      if (!file) return cancelled();
      const status = statusArg === undefined ? undefined : StatusSchema.parse(statusArg);
      const { n, counts } = await c.host.withApp(async (app) => ({ counts: app.counts(), n: await app.exportJsonl(file, status) }));
      // Every status unless one was asked for: say which, so pending and deleted records in the file are no surprise.
      const which = status ? `${status} ` : '';
      const split = status ? '' : ` (${counts.active} active, ${counts.pending} pending, ${counts.deleted} deleted; each keeps its status on import)`;
      void vscode.window.showInformationMessage(`Agent Memory: exported ${n} ${which}record(s) to ${file}${split}.`);
      return n;
    }),

    registerSafeCommand(c.logger, 'agentMemory.seedDemoMemory', async (arg) => {
      const count = typeof arg === 'number' ? z.number().int().min(1).max(10_000).parse(arg) : DEFAULT_SEED_COUNT;
      const { n, deletedSeeds } = await withProgress(`seeding ${count} demo records`, () =>
        c.host.withApp(async (app) => {
          const seeded = await app.seedDemoMemory(count);
          return { n: seeded, deletedSeeds: app.list({ status: 'deleted', limit: 10_000 }).items.filter((r) => r.provenance === 'seed').length };
        }),
      );
      void vscode.window.showInformationMessage(`Agent Memory: ${seedMessage(n, count, deletedSeeds)}`);
      return n;
    }),

    registerSafeCommand(c.logger, 'agentMemory.configureModel', async (arg) => {
      const given = ModelEndpointArgsSchema.parse(arg ?? {});
      const previous = c.settings.value.model.baseUrl;
      const answers = await askEndpoint({
        title: 'Model endpoint',
        emptyMeans: 'use the offline reuse model',
        current: { baseUrl: c.settings.value.model.baseUrl, model: c.settings.value.model.name },
        urlPlaceholder: 'http://localhost:11434/v1',
        modelPlaceholder: 'gpt-4o-mini, llama3.1, …',
        given,
        keys: c.apiKey,
      });
      if (!answers) return cancelled();
      const { baseUrl, model, apiKey } = answers;
      await c.settings.update('model.baseUrl', baseUrl);
      await c.settings.update('model.name', model);
      const key = await storeKeyAnswer(c.apiKey, apiKey);
      c.logger.info(`[model] endpoint ${baseUrl || '(offline reuse model)'} model ${model || '–'}; API key ${key.said}`);
      if (!baseUrl && previous) void vscode.window.showInformationMessage(`Agent Memory: model endpoint cleared (was ${previous}): the agent now uses the offline reuse model, which adapts a memory record.`);
      // Test at once, so a wrong URL, key or model shows now and not as a failed task later.
      const connection = baseUrl ? await testAndShow(c) : undefined;
      return { baseUrl, model, apiKeyStored: key.stored, connection };
    }),

    registerSafeCommand(c.logger, 'agentMemory.testConnection', async () => {
      if (!c.settings.value.model.baseUrl) {
        void vscode.window.showInformationMessage('Agent Memory: no model endpoint is configured; the agent uses the offline reuse model.', 'Configure Model Endpoint…').then(
          (choice) => (choice ? vscode.commands.executeCommand('agentMemory.configureModel') : undefined),
          () => undefined,
        );
        return undefined;
      }
      return testAndShow(c);
    }),

    registerSafeCommand(c.logger, 'agentMemory.showRoleMemories', async () => {
      await c.host.get();
      const doc = await vscode.workspace.openTextDocument(ROLES_URI);
      await vscode.window.showTextDocument(doc, { preview: true });
      return doc.uri.toString();
    }),

    registerSafeCommand(c.logger, 'agentMemory.resetRoleMemory', async (arg, opts) => {
      const role = arg === 'coder' || arg === 'debugger' ? arg : (await vscode.window.showQuickPick(['coder', 'debugger'], { title: 'Reset which role memory?' }));
      if (role !== 'coder' && role !== 'debugger') return cancelled();
      if (!(await confirm(`Reset the ${role}'s role memory? Its lessons and patterns are cleared.`, 'Reset', (opts ?? {})))) return cancelled();
      await c.host.withApp((app) => app.resetRoleMemory(role));
      c.logger.info(`[roles] reset ${role}`);
      return role;
    }),
  ];
}

/** Runs the connection test and shows its outcome; a failure names the cause and offers the fix. */
async function testAndShow(c: Container): Promise<ConnectionResult | undefined> {
  const result = await withProgress('testing the model connection', () => c.modelStatus.test());
  if (!result) return undefined;
  if (result.ok) {
    void vscode.window.showInformationMessage(`Agent Memory: ${result.message}`);
    return result;
  }
  const action = FIX_ACTION[result.problem ?? 'unreachable'];
  void vscode.window.showErrorMessage(`Agent Memory: model connection failed: ${result.message} ${result.fix ?? ''}`, action.label, 'Test Again', 'Show Logs').then(
    (choice) => {
      if (choice === action.label) return action.run();
      if (choice === 'Test Again') return vscode.commands.executeCommand('agentMemory.testConnection');
      if (choice === 'Show Logs') return vscode.commands.executeCommand('agentMemory.showLogs');
      return undefined;
    },
    () => undefined,
  );
  return result;
}

const configure = { label: 'Configure Model Endpoint…', run: () => vscode.commands.executeCommand('agentMemory.configureModel') };
const FIX_ACTION: Record<ConnectionProblem, { label: string; run: () => Thenable<unknown> }> = {
  auth: { label: 'Enter API Key…', run: () => vscode.commands.executeCommand('agentMemory.configureModel') },
  'bad-model': { label: 'Set Model Name…', run: () => vscode.commands.executeCommand('workbench.action.openSettings', 'agentMemory.model.name') },
  'not-found': { label: 'Fix Base URL…', run: () => vscode.commands.executeCommand('workbench.action.openSettings', 'agentMemory.model.baseUrl') },
  refused: configure,
  timeout: configure,
  unreachable: configure,
  'bad-config': configure,
  server: { label: 'Open Settings', run: () => vscode.commands.executeCommand('workbench.action.openSettings', 'agentMemory.model') },
  'bad-response': { label: 'Fix Base URL…', run: () => vscode.commands.executeCommand('workbench.action.openSettings', 'agentMemory.model.baseUrl') },
};

/** `seeded 100 demo records…`; when fewer than asked, why: the others were seeded before. */
export function seedMessage(seeded: number, asked: number, deletedSeeds = 0): string {
  const already = asked - seeded;
  // Seeding skips records already stored in any status: deleted seeds are restored from the Deleted group, not seeded again.
  const deleted = deletedSeeds > 0 && already > 0 ? `; ${Math.min(deletedSeeds, already)} of them are deleted: restore them from the Deleted group` : '';
  if (seeded === 0) return `seeded 0 demo records: all ${asked} are already in memory (seeded before${deleted}). Nothing to add.`;
  const rest = already > 0 ? ` (${already} more were already in memory, seeded before${deleted})` : '';
  return `seeded ${seeded} demo record(s) from the EHR questions${rest}.`;
}

function withProgress<T>(title: string, work: () => Promise<T>): Thenable<T> {
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Agent Memory: ${title}…` }, work);
}
