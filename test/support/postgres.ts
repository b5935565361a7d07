/**
 * The real PostgreSQL 15 + pgvector server for tests: one throwaway cluster per suite,
 * started in `before` and removed in `after`. No database mocks.
 *
 * @example
 * const pg = usePostgres();
 * it('…', async () => { const store = await PgMemoryStore.connect({ url: pg().appUrl, … }); });
 */
import { startThrowawayPostgres, ThrowawayPostgres } from '../../src/cli/team/throwaway-postgres';

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
