/**
 * Planner statistics after bulk loads. Right after a bulk insert PostgreSQL has no
 * statistics for the new rows until autovacuum analyzes the table (up to a minute or more),
 * and a GIN index may still hold a pending list; a plan chosen on no statistics can read
 * every row of a space. Only the table's owner (the schema owner role, as `team-setup`,
 * `migrate` and `bench:team` with their own cluster use) may VACUUM / ANALYZE: the
 * application role cannot, and then autovacuum does it later (docs/team-memory.md).
 */
import type { ClientBase } from 'pg';
import type { TeamMemoryStore } from './team-store';

export type StatisticsRefresh = { refreshed: true; ms: number } | { refreshed: false; reason: string };

/** True when the connected role owns `records` (or is a superuser), so it may VACUUM and ANALYZE it. */
export async function ownsRecords(c: ClientBase): Promise<boolean> {
  const r = await c.query<{ ok: boolean }>(
    `SELECT pg_has_role(current_user, c.relowner, 'USAGE') OR (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS ok
     FROM pg_class c WHERE c.oid = 'records'::regclass`,
  );
  return r.rows[0]?.ok === true;
}

/** VACUUM (flushes the GIN pending list) and ANALYZE the searched tables, when the role may. Not inside a transaction. */
export async function refreshSearchStatistics(c: ClientBase): Promise<StatisticsRefresh> {
  if (!(await ownsRecords(c))) {
    return { refreshed: false, reason: 'only the schema owner may ANALYZE; autovacuum refreshes the statistics later (or run team-setup as the owner)' };
  }
  const t0 = Date.now();
  await c.query("SET statement_timeout = '30min'");
  try {
    await c.query('VACUUM (ANALYZE) records');
    await c.query('ANALYZE term_stats');
  } finally {
    await c.query('RESET statement_timeout');
  }
  return { refreshed: true, ms: Date.now() - t0 };
}

/** refreshSearchStatistics on a team store's pool (after a bulk load by `writeTeam`). */
export async function refreshTeamStatistics(team: TeamMemoryStore): Promise<StatisticsRefresh> {
  const result = await team.withClient((c) => refreshSearchStatistics(c), 'refresh the planner statistics');
  if (!result.refreshed) team.log.warn(`[team] planner statistics not refreshed after the bulk load: ${result.reason}`);
  return result;
}
