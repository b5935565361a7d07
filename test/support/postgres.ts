/**
 * The real PostgreSQL 15 + pgvector server for tests: one throwaway cluster per suite,
 * started in `before` and removed in `after`. No database mocks.
 *
 * @example
 * const pg = usePostgres();
 * it('…', async () => { const store = await PgMemoryStore.connect({ url: pg().appUrl, … }); });
 */
import { startThrowawayPostgres, ThrowawayPostgres } from '../../src/cli/team/throwaway-postgres';
import { setupTeamMemory } from '../../src/core/memory/postgres/team-setup';
import { TeamMemoryStore } from '../../src/core/memory/postgres/team-store';

export function usePostgres(): () => ThrowawayPostgres {
  let cluster: ThrowawayPostgres | undefined;
  before(async function () {
    this.timeout(120_000);
    cluster = await startThrowawayPostgres();
  });
  after(() => cluster?.stop());
  return () => {
    if (!cluster) throw new Error('the PostgreSQL cluster is not running (usePostgres() must be called in a describe block)');
    return cluster;
  };
}

/** The cluster's superuser on the team memory's database (agent_memory): for checks the app role may not make. */
export function superuserMemoryUrl(cluster: ThrowawayPostgres): string {
  return cluster.superuserUrl.replace('/postgres?', '/agent_memory?');
}

/**
 * The team memory set up on a throwaway cluster (`dimensions` get an HNSW index), and a `connect`
 * whose stores are closed after each test.
 *
 * @example
 * const { connect } = useTeamMemory([16]);
 * it('…', async () => { const team = await connect('my-space'); });
 */
export function useTeamMemory(dimensions: number[]): { pg: () => ThrowawayPostgres; connect: (space: string, options?: { url?: string; user?: string; client?: string }) => Promise<TeamMemoryStore> } {
  const pg = usePostgres();
  const open: TeamMemoryStore[] = [];
  before(async () => {
    await setupTeamMemory(pg().ownerUrl, { dimensions });
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });
  const connect = async (space: string, options: { url?: string; user?: string; client?: string } = {}): Promise<TeamMemoryStore> => {
    const store = await TeamMemoryStore.connect({ url: options.url ?? pg().ownerUrl, space, user: options.user ?? 'alice', client: options.client ?? 'test' });
    open.push(store);
    return store;
  };
  return { pg, connect };
}
