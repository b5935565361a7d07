/**
 * The Agent Memory MCP server: memory_search, memory_record and memory_feedback
 * (schemas and descriptions from src/core/tools/tool-schemas.ts), each answering
 * with `structuredContent` plus a text rendering. A malformed call or a failed
 * operation answers `isError` with a message that says what to do; nothing is
 * written then. The caller is the client named in the initialize handshake.
 *
 * @example
 * const server = createMemoryMcpServer(memory.tools, { version: '0.1.0' });
 * await server.connect(new StdioServerTransport());
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage, isAgentMemoryError } from '../core/errors';
import type { Logger } from '../core/logger';
import type { MemoryToolApi, ToolClient } from '../core/tools/memory-tools';
import { TOOL_DEFINITIONS, ToolName } from '../core/tools/tool-schemas';
import { renderToolResult } from '../core/tools/render';

export const SERVER_NAME = 'agent-memory';

const INSTRUCTIONS =
  'Agent Memory is an episodic memory of solved coding tasks, shared with the user\'s editor. ' +
  'Before a task, call memory_search with the task; follow a returned record only when it fits. ' +
  'After the task, call memory_record with the final code and whether it worked (pass the retrievalId), ' +
  'or memory_feedback when you only want to report the outcome. Records wait for the user\'s approval under the strict policy.';

/**
 * What an MCP client is told when a call fails: the typed error's message, except a database's own error
 * text (constraint, table and column names), which goes to the server's log only.
 */
export function clientMessage(name: ToolName, error: unknown, logger?: Logger): string {
  const raw = isAgentMemoryError(error) && error.code === 'DATABASE' && typeof error.details?.pgCode === 'string';
  if (isAgentMemoryError(error) && !raw) return `${error.code}: ${error.message}`;
  logger?.error(`[mcp] ${name} failed: ${errorMessage(error)}`);
  if (raw) return `DATABASE: the team memory refused ${name} (a database error; its detail is in the MCP server's log). Nothing was changed: try again, or ask the team memory's administrator.`;
  return `Agent Memory failed on ${name} (the detail is in the MCP server's log). Nothing was written.`;
}

export function createMemoryMcpServer(tools: MemoryToolApi, options: { version: string; logger?: Logger }): McpServer {
  const server = new McpServer({ name: SERVER_NAME, version: options.version }, { instructions: INSTRUCTIONS });
  const client = (): ToolClient => {
    const info = server.server.getClientVersion();
    return { via: 'mcp', name: info?.name || 'unknown-client', ...(info?.version ? { version: info.version } : {}) };
  };
  const call = async (name: ToolName, args: unknown, signal: AbortSignal): Promise<CallToolResult> => {
    try {
      const result = name === 'memory_search' ? await tools.search(args, client()) : name === 'memory_record' ? await tools.record(args, client(), signal) : await tools.feedback(args, client());
      return { content: [{ type: 'text', text: renderToolResult(name, result) }], structuredContent: result };
    } catch (error) {
      return { isError: true, content: [{ type: 'text', text: clientMessage(name, error, options.logger) }] };
    }
  };
  for (const def of Object.values(TOOL_DEFINITIONS)) {
    server.registerTool(
      def.name,
      {
        title: def.title,
        description: def.description,
        inputSchema: def.input,
        outputSchema: def.output,
        annotations: { title: def.title, readOnlyHint: !def.writes, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      },
      (args: unknown, extra: { signal: AbortSignal }) => call(def.name, args, extra.signal),
    );
  }
  return server;
}
