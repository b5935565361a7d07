/**
 * Registers the Agent Memory MCP server with VS Code (so every chat agent
 * there can discover it), where the running VS Code has the API
 * (`vscode.lm.registerMcpServerDefinitionProvider`, 1.101+; the few types used are
 * declared here and the API is feature-detected, since a host may still lack or refuse it).
 * The server runs this extension's bundled CLI with the editor's own Node
 * (`process.execPath`, as Electron's Node) on the editor's memory database.
 */
import * as vscode from 'vscode';
import { mcpServerCommand, mcpTeamServerCommand, withTeamPassword } from '../../core/tools/mcp-server-command';
import { errorMessage } from '../../core/errors';
import type { Logger } from '../../core/logger';
import { toolsEnabled } from './lm-tools';

export const MCP_PROVIDER_ID = 'agentMemory.mcpServer';

export interface McpStdioServerDefinition {
  label: string;
  command: string;
  args: string[];
  env: Record<string, string | number | null>;
  version?: string;
}
interface McpStdioServerDefinitionCtor {
  new (label: string, command: string, args?: string[], env?: Record<string, string | number | null>, version?: string): McpStdioServerDefinition;
}
export interface McpServerDefinitionProvider {
  onDidChangeMcpServerDefinitions?: vscode.Event<void>;
  provideMcpServerDefinitions(token: vscode.CancellationToken): unknown[];
  resolveMcpServerDefinition?(server: McpStdioServerDefinition, token: vscode.CancellationToken): Promise<McpStdioServerDefinition>;
}
type RegisterProvider = (id: string, provider: McpServerDefinitionProvider) => vscode.Disposable;

export { mcpServerCommand };

export interface McpProviderOptions {
  extensionPath: string;
  version: string;
  databasePath: () => string;
  additionPolicy: () => string;
  /** agentMemory.retrieval.rerank: the server re-ranks memory_search (`--rerank`). */
  rerank: () => boolean;
  /**
   * The database the agent's programs query, when it exists (`--values-from`): the server's search gets its
   * values as the editor's own does (the re-ranking applies only with them; the relevance floor reads them).
   */
  valuesFrom?: () => string | undefined;
  /** agentMemory.memoryBudgetMB: the server's caches on a memory file (`--memory-budget-mb`). */
  memoryBudgetMB: () => number;
  /** Fires when the database path, the policy or the re-ranking setting changed. */
  onDidChange: vscode.Event<unknown>;
  /**
   * The team memory while agentMemory.team.url is set: the server then serves that space
   * (`--db <url> --space <space>`), its password passed only through the child's environment.
   */
  team?: {
    target(): { url: string; space: string } | undefined;
    password(): Promise<string | undefined>;
    onDidChange: vscode.Event<unknown>;
  };
  logger: Logger;
}

export const TEAM_MCP_LABEL = 'Agent Memory (team)';

/** What became of the registration: the host took it, has no such API, or refused it. */
export type McpProviderState = 'registered' | 'absent' | 'refused';

export interface McpProviderRegistration extends vscode.Disposable {
  readonly state: McpProviderState;
  /** The provider the host took (integration tests ask it for the definition the editor would start). */
  readonly provider?: McpServerDefinitionProvider;
}

function noRegistration(state: McpProviderState): McpProviderRegistration {
  return { state, dispose: () => undefined };
}

/**
 * Registers the provider when the API exists; otherwise a no-op, said once in the log.
 * package.json contributes the provider id under both names hosts look for:
 * `mcpServerDefinitionProviders` (VS Code 1.101+) and `modelContextServerCollections`
 * (the preview API of VS Code 1.100, as in code-server 4.100).
 */
export function registerMcpServerProvider(options: McpProviderOptions): McpProviderRegistration {
  const lm = vscode.lm as unknown as { registerMcpServerDefinitionProvider?: RegisterProvider };
  const Definition = (vscode as unknown as { McpStdioServerDefinition?: McpStdioServerDefinitionCtor }).McpStdioServerDefinition;
  if (typeof lm.registerMcpServerDefinitionProvider !== 'function' || typeof Definition !== 'function') {
    options.logger.info('[mcp] this VS Code has no MCP server definition API; configure the server by hand (see the README)');
    return noRegistration('absent');
  }
  const changed = new vscode.EventEmitter<void>();
  const listener = vscode.Disposable.from(options.onDidChange(() => changed.fire()), ...(options.team ? [options.team.onDidChange(() => changed.fire())] : []));
  let registration: vscode.Disposable;
  let provider: McpServerDefinitionProvider;
  try {
    registration = lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, (provider = {
      onDidChangeMcpServerDefinitions: changed.event,
      provideMcpServerDefinitions: () => {
        if (!toolsEnabled()) return [];
        const team = options.team?.target();
        if (team) {
          // No password here: the editor may cache provided definitions; it is added when the server starts (below).
          const { command, args, env } = mcpTeamServerCommand(options.extensionPath, team, undefined, options.rerank(), options.valuesFrom?.());
          return [new Definition(TEAM_MCP_LABEL, command, args, env, options.version)];
        }
        const { command, args, env } = mcpServerCommand(options.extensionPath, options.databasePath(), options.additionPolicy(), undefined, options.rerank(), options.memoryBudgetMB(), options.valuesFrom?.());
        return [new Definition('Agent Memory', command, args, env, options.version)];
      },
      resolveMcpServerDefinition: async (server) => {
        if (server.label !== TEAM_MCP_LABEL || !options.team) return server;
        const env = withTeamPassword(Object.fromEntries(Object.entries(server.env ?? {}).filter(([, v]) => v !== null).map(([k, v]) => [k, String(v)])), await options.team.password());
        return new Definition(server.label, server.command, server.args, env, server.version);
      },
    }));
  } catch (error) {
    // A host whose preview of this API wants a contribution point we do not declare throws:
    // the extension works without it (the MCP server can be configured by hand, see the README).
    listener.dispose();
    changed.dispose();
    options.logger.warn(`[mcp] this VS Code refused the MCP server definition provider (${errorMessage(error)}); configure the server by hand (see the README)`);
    return noRegistration('refused');
  }
  options.logger.info('[mcp] registered the Agent Memory MCP server definition provider');
  const all = vscode.Disposable.from(registration, listener, changed);
  return { state: 'registered', provider, dispose: () => all.dispose() };
}
