/**
 * The memory tools for VS Code's chat agents (Copilot agent mode and others):
 * memory_search, memory_record and memory_feedback, contributed in package.json
 * (`contributes.languageModelTools`, same schemas as the MCP server) and
 * registered here with `vscode.lm.registerTool`. They run on the editor's own
 * app (same store, addition policy and redaction), or on the team memory while
 * `agentMemory.team.url` is set (TeamMemoryTools on PostgreSQL). memory_record asks the user
 * for confirmation first. The setting `agentMemory.tools.enabled` turns them off.
 */
import * as vscode from 'vscode';
import { z } from 'zod';
import { errorMessage, isAgentMemoryError } from '../../core/errors';
import { settingId } from '../../core/settings';
import type { Logger } from '../../core/logger';
import type { MemoryToolApi, ToolClient } from '../../core/tools/memory-tools';
import type { FeedbackOutput, RecordOutput, SearchOutput } from '../../core/tools/tool-schemas';
import { renderToolResult } from '../../core/tools/render';
import { RecordInput, TOOL_DEFINITIONS, ToolName } from '../../core/tools/tool-schemas';
import type { AppHost } from '../app-host';

export const TOOLS_ENABLED_SETTING = settingId('tools.enabled');

const CLIENT: ToolClient = { via: 'vscode-lm', name: 'vscode-chat' };

/** Whether the tools are on (the setting, validated; default on). */
export function toolsEnabled(): boolean {
  return z.boolean().catch(true).parse(vscode.workspace.getConfiguration().get<unknown>(TOOLS_ENABLED_SETTING, true));
}

/** One memory tool as a VS Code language-model tool. */
export class MemoryLmTool implements vscode.LanguageModelTool<Record<string, unknown>> {
  constructor(
    private readonly name: ToolName,
    private readonly host: AppHost,
    private readonly logger: Logger,
    private readonly teamTools: () => MemoryToolApi | undefined = () => undefined,
  ) {}

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<Record<string, unknown>>): vscode.PreparedToolInvocation {
    const def = TOOL_DEFINITIONS[this.name];
    if (this.name !== 'memory_record') return { invocationMessage: def.title };
    const input = RecordInput.safeParse(options.input);
    const message = new vscode.MarkdownString();
    if (input.success) {
      message.appendMarkdown(`Store this ${input.data.language} solution (outcome **${input.data.outcome}**) in Agent Memory?\n\n`);
      message.appendMarkdown(`**${input.data.question.replace(/[\\`*_[\]<>]/g, (c) => `\\${c}`)}**\n\n`);
      message.appendCodeblock(input.data.code.split('\n').slice(0, 20).join('\n'), input.data.language);
      message.appendMarkdown('\nIt goes through the addition policy (under strict it waits in the sidebar for your approval); secrets are redacted first.');
    } else {
      message.appendMarkdown('Store an experience in Agent Memory? (The arguments look malformed: the call will be refused.)');
    }
    return { invocationMessage: 'Recording an experience in Agent Memory', confirmationMessages: { title: 'Record in Agent Memory', message } };
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<Record<string, unknown>>, token?: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult> {
    if (!toolsEnabled()) throw new Error(`The Agent Memory tools are turned off (setting ${TOOLS_ENABLED_SETTING}).`);
    const cancelled = new AbortController();
    const cancelling = token?.onCancellationRequested(() => cancelled.abort());
    try {
      const call = async (tools: MemoryToolApi): Promise<SearchOutput | RecordOutput | FeedbackOutput> => {
        if (this.name === 'memory_search') return tools.search(options.input, CLIENT);
        if (this.name === 'memory_record') return tools.record(options.input, CLIENT, cancelled.signal);
        return tools.feedback(options.input, CLIENT);
      };
      // With agentMemory.team.url set, the tools work on the team memory (PostgreSQL); otherwise on the personal one.
      const team = this.teamTools();
      const result = team ? await call(team) : await this.host.withApp((app) => call(app.memoryTools()));
      return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(renderToolResult(this.name, result)), new vscode.LanguageModelTextPart(JSON.stringify(result))]);
    } catch (error) {
      if (!isAgentMemoryError(error)) this.logger.error(`[lm-tools] ${this.name} failed: ${errorMessage(error)}`);
      // The message goes to the model: it says what was wrong and that nothing was written.
      throw new Error(isAgentMemoryError(error) ? `${error.code}: ${error.message}` : `Agent Memory failed: ${errorMessage(error)}`);
    } finally {
      cancelling?.dispose();
    }
  }
}

/** Registers the three tools while the setting is on; follows the setting. */
export function registerMemoryLmTools(host: AppHost, logger: Logger, teamTools?: () => MemoryToolApi | undefined): vscode.Disposable {
  let registered: vscode.Disposable[] = [];
  const sync = (): void => {
    const on = toolsEnabled() && typeof vscode.lm?.registerTool === 'function';
    if (on && registered.length === 0) {
      registered = (Object.keys(TOOL_DEFINITIONS) as ToolName[]).map((name) => vscode.lm.registerTool(name, new MemoryLmTool(name, host, logger, teamTools)));
      logger.info(`[lm-tools] registered ${registered.length} language-model tools`);
    } else if (!on && registered.length > 0) {
      for (const d of registered.splice(0)) d.dispose();
      logger.info('[lm-tools] language-model tools turned off');
    }
  };
  sync();
  const listener = vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration(TOOLS_ENABLED_SETTING)) sync();
  });
  return new vscode.Disposable(() => {
    listener.dispose();
    for (const d of registered.splice(0)) d.dispose();
  });
}
