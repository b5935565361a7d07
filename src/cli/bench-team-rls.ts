/**
 * What row-level security costs a team search, per login, one client at a time:
 * `npx tsx src/cli/bench-team-rls.ts [--records 20000] [--dimension 16] [--searches 300] [--migration-5-checks] [--statements] [--json]`.
 *
 * On its own throwaway PostgreSQL cluster it seeds --records records into one space (as bench:team does), then
 * searches it as the schema owner (no row-level security), as the single-trust application role (a reviewer of
 * every space), as an agent and as a reviewer of the space, each on one connection. For each it prints the server
 * CPU per search (user + system time of that connection's backend process, read from /proc: not disturbed by the
 * other processes of a busy machine as wall time is) and the wall time p50 / p95 seen by the client.
 * --migration-5-checks measures again with the membership functions as migration 5 wrote them (SQL functions,
 * planned at every statement), in the same cluster, then puts migration 6's back: before and after side by side.
 * --statements loads pg_stat_statements into the cluster (track = all, with planning) and prints, per login, what one
 * search costs statement by statement, as the server counts it: calls, execution and planning ms per search, and
 * whether the statement came from the client (a round trip) or ran inside a function.
 */
import * as fs from 'node:fs';
import { Client } from 'pg';
import { z } from 'zod';
import { AgentMemoryError } from '../core/errors';
import { MEMBERSHIP_MIGRATION_SQL } from '../core/memory/postgres/migration-membership';
import { ROLES_MIGRATION_SQL } from '../core/memory/postgres/migration-roles';
import { searchTeam } from '../core/memory/postgres/team-search';
import { setupTeamMemory } from '../core/memory/postgres/team-setup';
import { TeamMemoryStore } from '../core/memory/postgres/team-store';
import { writeTeam } from '../core/memory/postgres/transfer';
import { HELP_SHOWN, parseBenchArgs } from './args';
import { ownClusterEnv } from './bench-team';
import { onExitOrSignal } from './exit-cleanup';
import { runMain } from './run-main';
import { benchRecords, benchVector } from './team/bench-team-data';
import { createBenchRoles } from './team/bench-team-roles';
import { startThrowawayPostgres } from './team/throwaway-postgres';

const USAGE = `Usage: npx tsx src/cli/bench-team-rls.ts [--records 20000] [--dimension 16] [--searches 300] [--migration-5-checks] [--statements] [--json]

Server CPU and wall time per team search as the owner, the application role, an agent and a reviewer (one
connection each, on its own throwaway cluster). --migration-5-checks: also with migration 5's membership functions.
--statements: each statement's calls, execution and planning time per search (pg_stat_statements).`;
const ArgsSchema = z.object({
  records: z.coerce.number().int().min(1).max(1_000_000).default(20_000),
  dimension: z.coerce.number().int().min(2).max(2000).default(16),
  searches: z.coerce.number().int().min(10).max(100_000).default(300),
  'migration-5-checks': z.boolean().default(false),
  statements: z.boolean().default(false),
  json: z.boolean().default(false),
});

/** Migration 5's text of the two membership functions (CREATE OR REPLACE), taken from the migration itself. */
function migration5Checks(): string {
  const found = ROLES_MIGRATION_SQL.match(/CREATE FUNCTION agent_memory_level[\s\S]*?\n\$\$;\n[\s\S]*?CREATE FUNCTION agent_memory_spaces[\s\S]*?\n\$\$;\n/);
  if (!found) throw new AgentMemoryError('INVALID_STATE', 'migration 5 no longer holds agent_memory_level and agent_memory_spaces as this bench expects: update bench-team-rls.ts.');
  return found[0].replace(/CREATE FUNCTION/g, 'CREATE OR REPLACE FUNCTION');
}

/** User + system CPU time of a local process in ms (Linux /proc; clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] * 100) / 100;
};

/** One statement's share of a search, as pg_stat_statements counts it. */
interface StatementCost {
  /** Sent by the client (a round trip), or run inside a function. */
  toplevel: boolean;
  calls_per_search: number;
  exec_ms_per_search: number;
  plan_ms_per_search: number;
  statement: string;
}

interface Row {
  checks: 'migration 6' | 'migration 5';
  login: string;
  server_cpu_ms_per_search: number;
  wall_p50_ms: number;
  wall_p95_ms: number;
  /** Round trips per search: statements the client sent (--statements). */
  round_trips_per_search?: number;
  statements?: StatementCost[];
}

/** The settings that load pg_stat_statements and count nested statements and planning. */
const STATEMENT_SETTINGS = ['shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.track=all', 'pg_stat_statements.track_planning=on'];

/** What each statement cost per search since the last reset (the superuser's own statements left out). */
async function statementCosts(su: Client, searches: number): Promise<StatementCost[]> {
  const r = await su.query<{ toplevel: boolean; calls: string; exec: number; plan: number; q: string }>(
    `SELECT toplevel, calls, total_exec_time AS exec, total_plan_time AS plan, left(regexp_replace(query, '\\s+', ' ', 'g'), 120) AS q
       FROM pg_stat_statements WHERE userid <> (SELECT oid FROM pg_roles WHERE rolname = current_user) ORDER BY total_exec_time + total_plan_time DESC`,
  );
  const per = (x: number): number => Math.round((x / searches) * 1000) / 1000;
  return r.rows.map((x) => ({ toplevel: x.toplevel, calls_per_search: per(Number(x.calls)), exec_ms_per_search: per(x.exec), plan_ms_per_search: per(x.plan), statement: x.q }));
}

async function main(argv: string[]): Promise<number> {
  const args = parseBenchArgs(argv, { usage: USAGE, flags: ['migration-5-checks', 'statements', 'json'], valued: ['records', 'dimension', 'searches'] }, ArgsSchema);
  if (args === HELP_SHOWN) return 0;
  const env = ownClusterEnv(process.env);
  const cluster = await startThrowawayPostgres(args.statements ? { settings: STATEMENT_SETTINGS } : {});
  const stop = onExitOrSignal(() => cluster.stop());
  try {
    const space = 'bench-rls';
    await setupTeamMemory(cluster.ownerUrl, { env });
    const seeder = await TeamMemoryStore.connect({ url: cluster.ownerUrl, space, user: 'bench', client: 'bench-seed', maxConnections: 1 }, { env });
    await writeTeam(seeder, benchRecords(args.records, args.dimension));
    await seeder.close();
    await setupTeamMemory(cluster.ownerUrl, { dimensions: [args.dimension], env });
    const roles = await createBenchRoles(cluster, space, 1, 1, env);
    const app = new URL(cluster.appUrl);
    const appPassword = decodeURIComponent(app.password);
    app.password = '';
    const logins = [
      { login: 'owner', url: cluster.ownerUrl, password: undefined as string | undefined },
      { login: 'application role', url: app.toString(), password: appPassword },
      { login: 'agent', url: roles.agents[0].url, password: roles.agents[0].password },
      { login: 'reviewer', url: roles.reviewers[0].url, password: roles.reviewers[0].password },
    ];
    const owner = new Client({ connectionString: cluster.ownerUrl });
    await owner.connect();
    const su = new Client({ connectionString: cluster.superuserUrl.replace('/postgres?', '/agent_memory?') });
    await su.connect();
    if (args.statements) await su.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    const rows: Row[] = [];
    try {
      for (const checks of args['migration-5-checks'] ? (['migration 6', 'migration 5'] as const) : (['migration 6'] as const)) {
        await owner.query(checks === 'migration 5' ? migration5Checks() : MEMBERSHIP_MIGRATION_SQL);
        for (const l of logins) {
          const team = await TeamMemoryStore.connect({ url: l.url, password: l.password, space, user: 'bench', client: 'bench-rls', maxConnections: 1 }, { env });
          try {
            const pid = await team.withClient(async (c) => (await c.query<{ p: number }>('SELECT pg_backend_pid() AS p')).rows[0].p, 'read the backend');
            const search = (i: number) => searchTeam(team, `question round ${i} admissions`, benchVector(i * 7, args.dimension), 4);
            for (let i = 0; i < 20; i++) await search(i); // warm: the session's plans and the cache
            const wall: number[] = [];
            if (args.statements) await su.query('SELECT pg_stat_statements_reset()');
            const cpu0 = cpuMs(pid);
            for (let i = 0; i < args.searches; i++) {
              const t = performance.now();
              await search(i);
              wall.push(performance.now() - t);
            }
            const row: Row = { checks, login: l.login, server_cpu_ms_per_search: Math.round(((cpuMs(pid) - cpu0) / args.searches) * 100) / 100, wall_p50_ms: pct(wall, 50), wall_p95_ms: pct(wall, 95) };
            if (args.statements) {
              row.statements = await statementCosts(su, args.searches);
              row.round_trips_per_search = Math.round(row.statements.filter((x) => x.toplevel).reduce((sum, x) => sum + x.calls_per_search, 0) * 100) / 100;
            }
            rows.push(row);
          } finally {
            await team.close();
          }
        }
      }
      await owner.query(MEMBERSHIP_MIGRATION_SQL);
    } finally {
      await owner.end();
      await su.end();
    }
    const report = { records: args.records, dimension: args.dimension, searches: args.searches, rows };
    const statementLines = (r: Row): string[] =>
      (r.statements ?? []).slice(0, 12).map((x) => `    ${x.toplevel ? 'client  ' : 'function'} ${String(x.calls_per_search).padStart(5)} calls, exec ${x.exec_ms_per_search.toFixed(3)} plan ${x.plan_ms_per_search.toFixed(3)} ms | ${x.statement}`);
    const text = rows.map((r) => [`${r.checks.padEnd(12)} ${r.login.padEnd(17)} server CPU ${r.server_cpu_ms_per_search} ms/search, wall p50 ${r.wall_p50_ms} p95 ${r.wall_p95_ms} ms${r.round_trips_per_search !== undefined ? `, ${r.round_trips_per_search} round trips` : ''}`, ...statementLines(r)].join('\n'));
    process.stdout.write(args.json ? JSON.stringify(report) + '\n' : text.join('\n') + '\n');
    return 0;
  } finally {
    stop();
  }
}

if (require.main === module) runMain('bench-team-rls', () => main(process.argv.slice(2)));
