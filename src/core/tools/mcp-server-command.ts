/**
 * How the editor starts the bundled MCP server (`dist/cli.js mcp`) as a child process: on
 * the personal memory file (`--db FILE --addition P`) or on a space of the team memory
 * (`--db postgres://… --space NAME`). The team password goes into the child's environment
 * (AGENT_MEMORY_PG_PASSWORD) and never into its arguments, which other users of the machine
 * can read (`ps`), nor into the definition the editor may cache (see mcp-provider.ts).
 */
import * as path from 'node:path';
import { PASSWORD_ENV } from '../memory/postgres/connection';

export interface McpServerCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/**
 * `--values-from FILE`: the database the agent's programs query (the editor's agent database), whose values
 * the server's search gets as the editor's own does: the re-ranking applies only with them and the relevance
 * floor reads them (issue 35). None: no database, the fused order.
 */
function valuesArgs(valuesFrom: string | undefined): string[] {
  return valuesFrom ? ['--values-from', valuesFrom] : [];
}

/**
 * The child on a memory file; `execPath` is the editor's own Node (Electron's, run as Node); `memoryBudgetMB`:
 * agentMemory.memoryBudgetMB (none: the server's default); `valuesFrom`: the agent's database (see valuesArgs).
 */
export function mcpServerCommand(extensionPath: string, databasePath: string, addition: string, execPath = process.execPath, rerank = false, memoryBudgetMB?: number, valuesFrom?: string): McpServerCommand {
  const budget = memoryBudgetMB === undefined ? [] : ['--memory-budget-mb', String(memoryBudgetMB)];
  const args = [path.join(extensionPath, 'dist', 'cli.js'), 'mcp', '--db', databasePath, '--addition', addition, ...(rerank ? ['--rerank'] : []), ...budget, ...valuesArgs(valuesFrom)];
  return { command: execPath, args, env: { ELECTRON_RUN_AS_NODE: '1' } };
}

/** The child on the team memory: the URL (never with a password) and the space in argv; `valuesFrom` as above. */
export function mcpTeamServerCommand(extensionPath: string, team: { url: string; space: string }, execPath = process.execPath, rerank = false, valuesFrom?: string): McpServerCommand {
  return { command: execPath, args: [path.join(extensionPath, 'dist', 'cli.js'), 'mcp', '--db', team.url, '--space', team.space, ...(rerank ? ['--rerank'] : []), ...valuesArgs(valuesFrom)], env: { ELECTRON_RUN_AS_NODE: '1' } };
}

/** The environment of the team child once it is about to start: the password added (empty when none is stored). */
export function withTeamPassword(env: Record<string, string>, password: string | undefined): Record<string, string> {
  return password ? { ...env, [PASSWORD_ENV]: password } : { ...env };
}
