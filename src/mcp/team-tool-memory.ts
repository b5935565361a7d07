/**
 * The memory a standalone tool server works on when `--db` is a `postgres://` URL: the
 * team memory (docs/team-memory.md). The connection is made on the first tool call and
 * made again after the server was unreachable, so an MCP server started while the team
 * server is down still starts and answers (with UNREACHABLE) until it is back.
 *
 * @example
 * const memory = openTeamToolMemory({ url: 'postgres://app@db/mem', space: 'my-repo', logger });
 * await memory.tools.search({ query: 'parse a CSV' }, { via: 'mcp', name: 'claude-code' });
 * await memory.close();
 */
import * as os from 'node:os';
import type { Logger } from '../core/logger';
import { TeamMemoryStore } from '../core/memory/postgres/team-store';
import { TeamMemoryTools } from '../core/memory/postgres/team-tools';
import { teamShapesFor } from '../core/memory/postgres/team-shapes';
import type { DomainValues } from '../core/memory/search/domain-values';
import type { MemoryToolApi } from '../core/tools/memory-tools';

export interface TeamToolMemoryOptions {
  url: string;
  space?: string;
  logger: Logger;
  /** How long one tool call retries an unreachable server before it answers UNREACHABLE. */
  retryMs?: number;
  env?: NodeJS.ProcessEnv;
  /** Re-rank memory_search (`mcp --rerank`): the space's records are read once connected, in the background. */
  rerank?: boolean;
  /** The values of the database the agent's programs query (`mcp --values-from`): the re-ranking applies only with them. */
  domainValues?: Promise<DomainValues>;
}

export interface TeamToolMemory {
  readonly tools: MemoryToolApi & { readonly status: TeamMemoryTools['status'] };
  /** Connects now (a rejection says why; tool calls connect again later). */
  connect(): Promise<TeamMemoryStore>;
  close(): Promise<void>;
}

/** Who acts, for the team's audit: the OS account and this machine. */
export function mcpActor(): { user: string; client: string } {
  return { user: os.userInfo().username || 'unknown', client: `mcp@${os.hostname()}` };
}

export function openTeamToolMemory(options: TeamToolMemoryOptions): TeamToolMemory {
  // A search waits for the values once (a failed read: none, the fused order; the caller logs why).
  const values = (): Promise<DomainValues | null> => options.domainValues?.catch(() => null) ?? Promise.resolve(null);
  let connecting: Promise<TeamMemoryStore> | undefined;
  let closed = false;
  const connect = (): Promise<TeamMemoryStore> => {
    if (closed) return Promise.reject(new Error('the team memory was closed'));
    connecting ??= TeamMemoryStore.connect(
      { url: options.url, space: options.space, ...mcpActor(), maxConnections: 4, retryMs: options.retryMs ?? 3000 },
      { logger: options.logger, env: options.env },
    ).then(
      (team) => {
        // Searches keep the fused order until this read is complete (team-shapes.ts); a failed read is tried again by a search.
        // Without the data's values the re-ranking does not apply (TeamShapes.applies): nothing is read.
        if (options.rerank) {
          values()
            .then((domainValues) => {
              const shapes = teamShapesFor(team, { logger: options.logger, domainValues });
              return shapes.applies ? shapes.load() : undefined;
            })
            .catch(() => undefined);
        }
        return team;
      },
      (error: unknown) => {
        connecting = undefined; // try again on the next call
        throw error;
      },
    );
    return connecting;
  };
  const tools = new TeamMemoryTools({ team: connect, logger: options.logger, rerank: () => options.rerank === true, domainValues: values });
  return {
    tools,
    connect,
    close: async () => {
      closed = true;
      const team = await connecting?.catch(() => undefined);
      await team?.close();
    },
  };
}
