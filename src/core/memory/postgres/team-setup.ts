/**
 * `team-setup`: run by an administrator as the schema owner role: applies the migrations,
 * grants the application role row access only, creates the HNSW index for the embedding
 * dimension in use, optionally records a space's shared embedder (the unfitted hashing
 * embedder of that dimension, team-embedder.ts), and refreshes the planner statistics
 * (docs/team-memory.md).
 */
import { Client } from 'pg';
import { poolConfig } from './connection';
import { applyMigrations, ensureDenseIndex } from './migrations';
import { setSharedEmbedder } from './team-embedder';
import { refreshSearchStatistics, StatisticsRefresh } from './team-maintenance';

export interface TeamSetupResult {
  from: number;
  to: number;
  denseIndexes: number[];
  /** The shared embedder recorded for `space` (with `space` and one dimension). */
  sharedEmbedder?: string;
  statistics: StatisticsRefresh;
}

export interface TeamSetupOptions {
  password?: string;
  appRole?: string;
  dimensions?: number[];
  /** Record the hashing embedder of `dimensions[0]` as this space's shared embedder. */
  space?: string;
  env?: NodeJS.ProcessEnv;
}

export async function setupTeamMemory(url: string, options: TeamSetupOptions = {}): Promise<TeamSetupResult> {
  const { config, connection } = poolConfig({ url, password: options.password, user: 'admin', client: 'team-setup', space: options.space }, options.env);
  const client = new Client({ ...config, statement_timeout: undefined });
  await client.connect();
  try {
    const { from, to } = await applyMigrations(client, { appRole: options.appRole });
    const dimensions = options.dimensions ?? [];
    // The space's embedder first: a dimension it refuses (EMBEDDER_MISMATCH) must not leave an index behind.
    const sharedEmbedder = options.space !== undefined && dimensions.length > 0 ? (await setSharedEmbedder(client, connection.space, dimensions[0])).id : undefined;
    for (const d of dimensions) await ensureDenseIndex(client, d);
    const statistics = await refreshSearchStatistics(client);
    return { from, to, denseIndexes: dimensions, ...(sharedEmbedder ? { sharedEmbedder } : {}), statistics };
  } finally {
    await client.end();
  }
}
