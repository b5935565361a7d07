/**
 * `team-setup`: run by an administrator as the schema owner role: applies the migrations,
 * grants the application role row access only, and creates the HNSW index for the
 * embedding dimension in use (docs/team-memory.md).
 */
import { Client } from 'pg';
import { poolConfig } from './connection';
import { applyMigrations, ensureDenseIndex } from './migrations';

export interface TeamSetupResult {
  from: number;
  to: number;
  denseIndexes: number[];
}

export async function setupTeamMemory(url: string, options: { password?: string; appRole?: string; dimensions?: number[]; env?: NodeJS.ProcessEnv } = {}): Promise<TeamSetupResult> {
  const { config } = poolConfig({ url, password: options.password, user: 'admin', client: 'team-setup' }, options.env);
  const client = new Client({ ...config, statement_timeout: undefined });
  await client.connect();
  try {
    const { from, to } = await applyMigrations(client, { appRole: options.appRole });
    for (const d of options.dimensions ?? []) await ensureDenseIndex(client, d);
    return { from, to, denseIndexes: options.dimensions ?? [] };
  } finally {
    await client.end();
  }
}
