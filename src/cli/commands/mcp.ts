/**
 * `agent-memory mcp --db FILE [--addition fixed|all|coarse|strict]`: serves the
 * memory to MCP clients (Claude Code, Cursor, VS Code, …) on stdio until the
 * client closes the connection. stdout carries the protocol only; logs go to stderr.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { stderrLogger } from '../../core/logger';
import { AdditionPolicyNameSchema } from '../../core/policy/addition';
import { createMemoryMcpServer } from '../../mcp/server';
import { openToolMemory } from '../../mcp/tool-memory';
import { EMBEDDING_API_KEY_ENV } from '../../core/similarity/endpoint-embedder';
import { HELP_SHOWN, parseCommandArgs, parseValues } from '../args';
import { packageVersion } from './version';

export const summary = 'serve the memory to MCP clients on stdio (memory_search, memory_record, memory_feedback)';

export const USAGE = `Usage: agent-memory mcp --db FILE [--addition fixed|all|coarse|strict] [--verbose]

Serves the memory database FILE over the Model Context Protocol on stdio.
  --db FILE       memory database (created if missing; shared with the editor and other servers)
  --addition P    addition policy for memory_record (default strict: records wait as pending
                  until approved in the Agent Memory sidebar)
  --verbose       log more to stderr
A memory embedded through an embedding endpoint (agent-memory re-embed --model …) is queried
through the same endpoint; its API key comes from the environment variable
${EMBEDDING_API_KEY_ENV}. When the endpoint fails, memory_search answers by keywords.`;

const ArgsSchema = z.object({
  db: z.string({ message: '--db FILE is required' }).min(1, '--db FILE is required'),
  addition: AdditionPolicyNameSchema.default('strict'),
  verbose: z.boolean().default(false),
});

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs(argv, { usage: USAGE, options: { db: { type: 'string' }, addition: { type: 'string' }, verbose: { type: 'boolean' } } });
  if (parsed === HELP_SHOWN) return 0;
  const args = parseValues(ArgsSchema, parsed.values, USAGE);
  const logger = stderrLogger(args.verbose ? 'info' : 'warn');
  const memory = openToolMemory({ databasePath: args.db, addition: args.addition, logger, embeddingApiKey: process.env[EMBEDDING_API_KEY_ENV] || undefined });
  const server = createMemoryMcpServer(memory.tools, { version: packageVersion(), logger });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  const stop = (): void => {
    void server.close();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    await server.connect(transport);
    logger.info(`[mcp] serving ${args.db} (addition ${args.addition}) on stdio`);
    await closed;
  } finally {
    process.removeListener('SIGINT', stop);
    process.removeListener('SIGTERM', stop);
    // A write is acknowledged only after its transaction committed; one still awaiting an embedding fails unacknowledged.
    await memory.close();
  }
  return 0;
}
