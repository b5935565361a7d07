/**
 * `agent-memory mcp --db FILE|postgres://… [--addition fixed|all|coarse|strict] [--rerank] [--values-from DB.sqlite] [--space NAME]`:
 * serves the memory (a SQLite file, or a space of the team memory on PostgreSQL) to MCP
 * clients (Claude Code, Cursor, VS Code, …) on stdio until the client closes the
 * connection. stdout carries the protocol only; logs go to stderr.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { errorMessage, isAgentMemoryError } from '../../core/errors';
import { readDomainValuesOffThread } from '../../core/data/domain-values-reader';
import { RERANK_NEEDS_VALUES } from '../../core/memory/search/rerank';
import { stderrLogger } from '../../core/logger';
import { AdditionPolicyNameSchema } from '../../core/policy/addition';
import { createMemoryMcpServer } from '../../mcp/server';
import { openToolMemory } from '../../mcp/tool-memory';
import { openTeamToolMemory } from '../../mcp/team-tool-memory';
import { describeConnection, isPostgresUrl, PASSWORD_ENV } from '../../core/memory/postgres/connection';
import type { MemoryToolApi } from '../../core/tools/memory-tools';
import { EMBEDDING_API_KEY_ENV } from '../../core/similarity/endpoint-embedder';
import { budgetFromCommandLine, DEFAULT_MEMORY_BUDGET_MB, MEMORY_BUDGET_ENV } from '../../core/memory/memory-budget';
import { HELP_SHOWN, parseCommandArgs, parseValues, usageError } from '../args';
import { packageVersion } from './version';

export const summary = 'serve the memory to MCP clients on stdio (memory_search, memory_record, memory_feedback)';

export const USAGE = `Usage: agent-memory mcp --db FILE [--addition fixed|all|coarse|strict] [--rerank] [--values-from DB.sqlite] [--memory-budget-mb N] [--verbose]
       agent-memory mcp --db postgres://user@host/db?sslmode=verify-full [--space NAME] [--rerank] [--values-from DB.sqlite] [--verbose]

Serves the memory database FILE, or a space of a team memory on PostgreSQL, over the Model
Context Protocol on stdio.
  --db FILE|URL   memory database (created if missing; shared with the editor and other servers),
                  or a postgres:// URL of a team memory (password from ${PASSWORD_ENV} or PGPASSWORD)
  --space NAME    the team memory's space, one per repository or project (default "default")
  --addition P    addition policy for memory_record (default strict: records wait as pending
                  until approved in the Agent Memory sidebar); a team memory uses its space's
                  policy, set on the server
  --rerank        re-rank memory_search by question shape, program links and value columns
                  (the editor passes it while agentMemory.retrieval.rerank is on, its default;
                  on a team memory the space's records are read once connected, and searches
                  keep the fused order until that read is complete); it applies only with
                  --values-from (without, the fused order, said on stderr)
  --values-from DB.sqlite  the database the agent's programs query (the editor passes its agent
                  database): its values, read in the background, make --rerank apply and feed
                  memory_search's relevance floor
  --memory-budget-mb N  memory (MB) the caches of a memory file may hold (default ${DEFAULT_MEMORY_BUDGET_MB},
                  or ${MEMORY_BUDGET_ENV}; the editor passes agentMemory.memoryBudgetMB): vector
                  copies, keyword caches, SQLite's page cache and memory map
  --verbose       log more to stderr
On a team memory, memory_search searches the shared records by keywords; when the server is
unreachable every tool answers UNREACHABLE (nothing returned, nothing stored) and the next call
connects again.
A memory embedded through an embedding endpoint (agent-memory re-embed --model …) is queried
through the same endpoint; its API key comes from the environment variable
${EMBEDDING_API_KEY_ENV}. When the endpoint fails, memory_search answers by keywords.`;

const ArgsSchema = z.object({
  db: z.string({ message: '--db FILE is required' }).min(1, '--db FILE is required'),
  addition: AdditionPolicyNameSchema.optional(),
  space: z.string().optional(),
  rerank: z.boolean().default(false),
  'values-from': z.string().min(1, '--values-from takes the path of a SQLite database').optional(),
  'memory-budget-mb': z.coerce.number().optional(),
  verbose: z.boolean().default(false),
});

export async function run(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs(argv, { usage: USAGE, options: { db: { type: 'string' }, addition: { type: 'string' }, space: { type: 'string' }, rerank: { type: 'boolean' }, 'values-from': { type: 'string' }, 'memory-budget-mb': { type: 'string' }, verbose: { type: 'boolean' } } });
  if (parsed === HELP_SHOWN) return 0;
  const args = parseValues(ArgsSchema, parsed.values, USAGE);
  const logger = stderrLogger(args.verbose ? 'info' : 'warn');
  const budget = budgetFromCommandLine(args['memory-budget-mb']);
  const team = isPostgresUrl(args.db);
  if (team && args.addition) throw usageError("--addition does not apply to a team memory: the space's addition policy is set on the server (default strict).", USAGE);
  if (!team && args.space) throw usageError('--space applies to a team memory (--db postgres://…) only.', USAGE);
  // The data's values, read in a worker thread while the server starts (searches keep the fused order until then).
  const valuesFrom = args['values-from'];
  const domainValues = valuesFrom ? readDomainValuesOffThread(valuesFrom) : undefined;
  if (args.rerank && !domainValues) logger.warn(`[mcp] --rerank: ${RERANK_NEEDS_VALUES}`);
  domainValues?.then(
    (values) => logger.info(`[mcp] ${values.size} values of ${valuesFrom} read`),
    (error: unknown) => logger.warn(`[mcp] the values of ${valuesFrom} could not be read (${errorMessage(error)}); memory_search keeps the fused order and the floor the memory's words only`),
  );
  let memory: { tools: MemoryToolApi; close(): Promise<void> };
  if (team) {
    const shared = openTeamToolMemory({ url: args.db, space: args.space, logger, rerank: args.rerank, domainValues });
    // Connect now to report a problem early; an unreachable server does not stop the server (each call connects again).
    await shared.connect().catch((error: unknown) => {
      if (!isAgentMemoryError(error, 'UNREACHABLE')) throw error; // wrong password, old schema, bad sslmode: say so now
      logger.warn(`[mcp] ${error.message}`);
    });
    memory = shared;
  } else {
    memory = openToolMemory({ databasePath: args.db, addition: args.addition ?? 'strict', logger, embeddingApiKey: process.env[EMBEDDING_API_KEY_ENV] || undefined, rerank: args.rerank, memoryBudget: budget, domainValues });
  }
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
    logger.info(`[mcp] serving ${team ? describeConnection(args.db) : args.db} (${team ? `space ${args.space ?? 'default'}` : `addition ${args.addition ?? 'strict'}`}) on stdio`);
    await closed;
  } finally {
    process.removeListener('SIGINT', stop);
    process.removeListener('SIGTERM', stop);
    // A write is acknowledged only after its transaction committed; one still awaiting an embedding fails unacknowledged.
    await memory.close();
  }
  return 0;
}
