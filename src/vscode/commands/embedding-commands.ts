/** The embedding endpoint: configure it (settings + key in SecretStorage), re-embed with progress and cancel, show failures. */
import * as vscode from 'vscode';
import { z } from 'zod';
import type { AgentMemoryError } from '../../core/errors';
import type { Container } from '../container';
import { cancelled, registerSafeCommand } from './command-support';
import { askEndpoint, storeKeyAnswer } from './endpoint-wizard';

/** Arguments for `agentMemory.configureEmbedding` (all optional; missing ones are asked for). */
export const EmbeddingEndpointArgsSchema = z.object({
  baseUrl: z.union([z.literal(''), z.url({ protocol: /^https?$/ })]).optional(),
  /** Empty: the built-in offline embedder. */
  model: z.string().trim().optional(),
  /** Empty string removes the stored key. */
  apiKey: z.string().optional(),
  /** Re-embed at once (default: ask). */
  reembed: z.boolean().optional(),
});

export function registerEmbeddingCommands(c: Container): vscode.Disposable[] {
  return [
    registerSafeCommand(c.logger, 'agentMemory.reembed', async () => {
      const target = c.settings.value.embedding.model || 'the built-in embedder';
      // Settings written a moment ago (Configure Embedding Endpoint) reach the core before it reads them.
      await c.host.settingsChanged(c.settings.value, false);
      const n = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Agent Memory: re-embedding the memory with ${target}`, cancellable: true },
        async (progress, token) => {
          const controller = new AbortController();
          const subscription = token.onCancellationRequested(() => controller.abort());
          let reported = 0;
          try {
            return await c.host.withApp((app) =>
              app.reembed({
                signal: controller.signal,
                onProgress: ({ done, total }) => {
                  const percent = total > 0 ? (100 * done) / total : 100;
                  progress.report({ message: `${done} / ${total}`, increment: percent - reported });
                  reported = percent;
                },
              }),
            );
          } finally {
            subscription.dispose();
          }
        },
      );
      void vscode.window.showInformationMessage(`Agent Memory: re-embedded ${n} record(s) with ${target}.`);
      return n;
    }),

    registerSafeCommand(c.logger, 'agentMemory.configureEmbedding', async (arg) => {
      const given = EmbeddingEndpointArgsSchema.parse(arg ?? {});
      const answers = await askEndpoint({
        title: 'Embedding endpoint',
        emptyMeans: 'use the built-in offline embedder',
        current: c.settings.value.embedding,
        urlPlaceholder: 'https://api.openai.com/v1',
        modelPlaceholder: 'text-embedding-3-small, nomic-embed-text, …',
        given,
        keys: c.embeddingApiKey,
      });
      if (!answers) return cancelled();
      const { baseUrl, model, apiKey } = answers;
      await c.settings.update('embedding.baseUrl', baseUrl);
      await c.settings.update('embedding.model', baseUrl ? model : '');
      const key = await storeKeyAnswer(c.embeddingApiKey, apiKey);
      c.logger.info(`[embedder] endpoint ${baseUrl || '(built-in embedder)'} model ${model || '–'}; API key ${key.said}`);
      const reembed =
        given.reembed ??
        (await vscode.window.showInformationMessage('Agent Memory: re-embed the memory now? The current vectors serve until the new ones are complete.', 'Re-embed Now', 'Later')) === 'Re-embed Now';
      const count = reembed ? await vscode.commands.executeCommand<number | undefined>('agentMemory.reembed') : undefined;
      return { baseUrl, model: baseUrl ? model : '', apiKeyStored: key.stored, reembedded: count ?? null };
    }),
  ];
}

/** Shows an embedding endpoint failure once per failure streak, with the fixes. */
export function showEmbeddingFailure(error: AgentMemoryError): void {
  void vscode.window
    .showWarningMessage(`Agent Memory: the embedding endpoint failed: ${error.message} Retrieval uses keywords until it answers again.`, 'Configure Embedding Endpoint…', 'Show Logs')
    .then(
      (choice) => {
        if (choice === 'Configure Embedding Endpoint…') return vscode.commands.executeCommand('agentMemory.configureEmbedding');
        if (choice === 'Show Logs') return vscode.commands.executeCommand('agentMemory.showLogs');
        return undefined;
      },
      () => undefined,
    );
}
