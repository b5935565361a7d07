/**
 * Team-memory load benchmark:
 * `npm run bench:team -- [--url postgres://…] --clients 8 --rounds 500 [--records 100000] [--roles separate|single] [--reviewers 1] [--dimension 384] [--faults] [--rerank] [--json]`.
 *
 * Without --url it starts its own throwaway PostgreSQL 15 + pgvector cluster (and removes it
 * after); with --url the schema must already be set up (agent-memory team-setup, with
 * --dimension N) and the password is read from AGENT_MEMORY_PG_PASSWORD.
 * Roles (`--roles`, default separate, own cluster only): each client logs in as its own agent
 * role of the space and --reviewers reviewer processes (bench-team-reviewer.ts), each its own
 * reviewer role, approve what the agents record and run the sweep, all under row-level security;
 * afterwards the owner checks the strict gate (bench-team-roles.ts). `single`: every client logs in
 * as the one application role (a reviewer of every space) and approves its own previous record. It seeds --records
 * shared records into a fresh space (with its own cluster: as the schema owner, then it builds
 * the HNSW index and refreshes the planner statistics: `seed_ms`, `seed_index_ms`), then starts --clients real client processes
 * (bench-team-client.ts) that write, approve, search, feed back and sweep at once.
 * With --faults, PostgreSQL is restarted (immediate: crash and WAL recovery) halfway and one
 * client is SIGKILLed. Afterwards it counts in the database what the clients reported
 * acknowledged. Vectors are synthetic ones of the built-in embedder's dimension (--dimension,
 * default TEAM_DEFAULT_DIMENSION; the bench measures the server path, not an embedder). With --rerank every client re-ranks its searches (team-shapes.ts): it reads the
 * space before its first round (`shapes_load_p50_ms`) and catches up from change_log in each search.
 */
import { ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { LIBPQ_PASSWORD_ENV, PASSWORD_ENV } from '../core/memory/postgres/connection';
import { onExitOrSignal } from './exit-cleanup';
import { TeamMemoryStore } from '../core/memory/postgres/team-store';
import { setupTeamMemory } from '../core/memory/postgres/team-setup';
import { writeTeam } from '../core/memory/postgres/transfer';
import { HELP_SHOWN, parseBenchArgs } from './args';
import { AgentMemoryError } from '../core/errors';
import { DEFAULT_APP_ROLE } from '../core/memory/postgres/migrations';
import { TEAM_DEFAULT_DIMENSION } from '../core/memory/postgres/team-embedder';
import type { BenchReviewerInput } from './team/bench-team-reviewer';
import { checkRoleGate, createBenchRoles, ROLE_LAYOUTS } from './team/bench-team-roles';
import { runMain } from './run-main';
import type { BenchClientInput } from './team/bench-team-client';
import { benchRecords } from './team/bench-team-data';
import { startThrowawayPostgres, ThrowawayPostgres } from './team/throwaway-postgres';

const USAGE = `Usage: npm run bench:team -- [--url postgres://…] [--clients 8] [--rounds 500] [--records 1000] [--roles separate|single] [--reviewers 1] [--dimension ${TEAM_DEFAULT_DIMENSION}] [--faults] [--rerank] [--sweep-period-ms 2000] [--json]

Seeds --records shared records into a fresh team space and has --clients real client processes
write, search, feed back and (with --roles single) approve and sweep at once; prints latencies and
what was acknowledged vs found. --roles separate (the default): each client is its own agent role
of the space, and --reviewers reviewer processes, each its own reviewer role, approve what the
agents record and sweep; the agents' own approvals must be refused, and every agent record must
end active only through a reviewer's approval of it pending (or still pending). --dimension: of
the synthetic vectors (default the built-in embedder's). Without --url it runs on its own throwaway
PostgreSQL cluster, stopped and removed on exit, on an error and on Ctrl+C; with --url (--roles single
only) the password comes from AGENT_MEMORY_PG_PASSWORD.`;
const ArgsSchema = z.object({
  url: z.string().optional(),
  clients: z.coerce.number().int().min(1).max(32).default(8),
  rounds: z.coerce.number().int().min(1).max(100_000).default(500),
  records: z.coerce.number().int().min(0).max(1_000_000).default(1000),
  faults: z.boolean().default(false),
  rerank: z.boolean().default(false),
  roles: z.enum(ROLE_LAYOUTS).default('separate'),
  reviewers: z.coerce.number().int().min(1).max(8).default(1),
  dimension: z.coerce.number().int().min(2).max(2000).default(TEAM_DEFAULT_DIMENSION),
  'sweep-period-ms': z.coerce.number().int().min(100).default(2000),
  json: z.boolean().default(false),
});
const ROOT = path.resolve(__dirname, '..', '..');
/** tsx as a loader of this process, not its CLI: the CLI runs the script in a grandchild that a SIGKILL of the child would leave running. */
const TSX_LOADER = path.join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs');
const CLIENT = path.join(ROOT, 'src', 'cli', 'team', 'bench-team-client.ts');
const REVIEWER = path.join(ROOT, 'src', 'cli', 'team', 'bench-team-reviewer.ts');

const pct = (xs: number[], p: number): number | null => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] * 100) / 100;
};

interface Tally {
  acked: Set<string>;
  failed: number;
  /** Failure messages (numbers masked) → count, to tell timeouts from conflicts in the report. */
  failures: Map<string, number>;
  incRetrieval: number;
  incPhi: number;
  searchMs: number[];
  shapesMs: number[];
  approvedAt: Map<string, number>;
  /** When the parent read each acknowledgement (for the review lag). */
  ackAt: Map<string, number>;
  /** Agents' own approvals (--roles separate): refused by the server, succeeded, or failed otherwise. */
  agentApprove: { refused: number; succeeded: number; other: number };
  seen: { id: string; at: number; client: number }[];
  sweeps: number;
  rssMb: number;
  done: number;
  crashes: string[];
}

/** The environment for the bench's own cluster: without the password variables (a password set for another server would replace the cluster's own). */
export function ownClusterEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const rest = { ...env };
  delete rest[PASSWORD_ENV];
  delete rest[LIBPQ_PASSWORD_ENV];
  return rest;
}

/** Starts a client (`script`: an agent client, or a reviewer whose stdin the parent closes when the agents are done). */
function startClient(script: string, i: number, input: BenchClientInput | BenchReviewerInput, password: string | undefined, env: NodeJS.ProcessEnv, tally: Tally): { child: ChildProcess; exited: Promise<void> } {
  const child = spawn(process.execPath, ['--import', pathToFileURL(TSX_LOADER).href, script, JSON.stringify(input)], { cwd: ROOT, env: { ...env, ...(password ? { [PASSWORD_ENV]: password } : {}) }, stdio: [script === REVIEWER ? 'pipe' : 'ignore', 'pipe', 'inherit'] });
  readline.createInterface({ input: child.stdout! }).on('line', (line) => {
    const e = JSON.parse(line) as { t: string; id?: string; at?: number; ms?: number; kind?: string; n?: number; mb?: number; message?: string; ok?: boolean; refused?: boolean };
    if (e.t === 'ack') {
      tally.acked.add(e.id!);
      tally.ackAt.set(e.id!, Date.now());
    } else if (e.t === 'agent-approve') {
      if (e.ok) tally.agentApprove.succeeded++;
      else if (e.refused) tally.agentApprove.refused++;
      else tally.agentApprove.other++;
    }
    else if (e.t === 'failed') {
      tally.failed++;
      const key = (e.message ?? '').replace(/\d+/g, 'N').slice(0, 200);
      tally.failures.set(key, (tally.failures.get(key) ?? 0) + 1);
    }
    else if (e.t === 'search') tally.searchMs.push(e.ms!);
    else if (e.t === 'shapes') tally.shapesMs.push(e.ms!);
    else if (e.t === 'inc') e.kind === 'phi' ? (tally.incPhi += e.n!) : (tally.incRetrieval += e.n!);
    else if (e.t === 'approved') tally.approvedAt.set(e.id!, e.at!);
    else if (e.t === 'seen') tally.seen.push({ id: e.id!, at: e.at!, client: i });
    else if (e.t === 'sweep') tally.sweeps++;
    else if (e.t === 'rss') tally.rssMb = Math.max(tally.rssMb, e.mb!);
    else if (e.t === 'done') tally.done++;
    else if (e.t === 'crash') tally.crashes.push(e.message!);
  });
  return { child, exited: new Promise((resolve) => child.on('exit', () => resolve())) };
}

async function main(argv: string[]): Promise<number> {
  const args = parseBenchArgs(argv, { usage: USAGE, flags: ['faults', 'rerank', 'json'], valued: ['url', 'clients', 'rounds', 'records', 'sweep-period-ms', 'roles', 'reviewers', 'dimension'] }, ArgsSchema);
  if (args === HELP_SHOWN) return 0;
  if (args.url && args.roles === 'separate') {
    throw new AgentMemoryError('INVALID_INPUT', 'bench:team --roles separate creates its own login roles, so it runs on its own cluster: leave --url out, or give --roles single to measure a server of yours as its one application role.');
  }
  const DIM = args.dimension;
  let cluster: ThrowawayPostgres | undefined;
  let password = process.env[PASSWORD_ENV];
  // With its own cluster, its passwords are in its URLs: one set in the environment for another server must not replace them.
  const env = args.url ? process.env : ownClusterEnv(process.env);
  let stopCluster: (() => void) | undefined;
  if (!args.url) {
    const own = await startThrowawayPostgres();
    cluster = own;
    // Stopped and removed however the bench ends: done, failed, or interrupted (SIGINT / SIGTERM).
    stopCluster = onExitOrSignal(() => own.stop());
  }
  const space = `bench-${Date.now()}`;
  try {
    let url = args.url ?? '';
    if (cluster) {
      // The schema now; the HNSW index after the seed (one index build instead of 100k graph inserts).
      await setupTeamMemory(cluster.ownerUrl, { env });
      const u = new URL(cluster.appUrl);
      password = decodeURIComponent(u.password);
      u.password = '';
      url = u.toString();
    }
    const admin = await TeamMemoryStore.connect({ url, password, space, user: 'bench', client: 'bench-main', maxConnections: 2 }, { env });
    // With its own cluster the bench seeds as the schema owner (the owner path: it may VACUUM / ANALYZE after the load).
    const seeder = cluster ? await TeamMemoryStore.connect({ url: cluster.ownerUrl, space, user: 'bench', client: 'bench-seed', maxConnections: 1 }, { env }) : admin;
    const t0 = Date.now();
    const seeded = await writeTeam(seeder, benchRecords(args.records, DIM));
    if (seeder !== admin) await seeder.close();
    const seedMs = Date.now() - t0;
    const t1 = Date.now();
    if (cluster) await setupTeamMemory(cluster.ownerUrl, { dimensions: [DIM], env });
    const indexMs = Date.now() - t1;
    // --roles separate: one login role per agent client and per reviewer, granted in the space by the owner.
    const roles = cluster && args.roles === 'separate' ? await createBenchRoles(cluster, space, args.clients, args.reviewers, env) : undefined;
    const tally: Tally = {
      acked: new Set(), failed: 0, failures: new Map(), incRetrieval: 0, incPhi: 0, searchMs: [], shapesMs: [], approvedAt: new Map(), ackAt: new Map(), agentApprove: { refused: 0, succeeded: 0, other: 0 },
      seen: [], sweeps: 0, rssMb: 0, done: 0, crashes: [],
    };
    const started = Date.now();
    const reviewers = (roles?.reviewers ?? []).map((r, j) =>
      startClient(REVIEWER, args.clients + j, { url: r.url, space, index: j, reviewers: args.reviewers, sweepPeriodMs: args['sweep-period-ms'] }, r.password, env, tally),
    );
    const clients = Array.from({ length: args.clients }, (_, i) => {
      const login = roles?.agents[i];
      return startClient(CLIENT, i, { url: login?.url ?? url, space, index: i, rounds: args.rounds, dimension: DIM, sweepPeriodMs: args['sweep-period-ms'], rerank: args.rerank, agent: login !== undefined }, login?.password ?? password, env, tally);
    });
    let killed = 0;
    if (args.faults) {
      // Halfway (by acknowledged writes): restart the server, then SIGKILL one client.
      const half = (args.clients * args.rounds) / 2;
      while (tally.acked.size < half && tally.done + tally.crashes.length < args.clients + reviewers.length) await new Promise((r) => setTimeout(r, 50));
      cluster?.restart('immediate');
      clients[args.clients - 1].child.kill('SIGKILL');
      killed = 1;
    }
    await Promise.all(clients.map((c) => c.exited));
    // The agents are done: each reviewer approves what is still pending, then exits.
    for (const r of reviewers) r.child.stdin?.end();
    await Promise.all(reviewers.map((r) => r.exited));
    const durationMs = Date.now() - started;
    const found = await admin.withClient(
      (c) => c.query<{ id: string }>("SELECT id FROM records WHERE space = $1 AND id LIKE 'bench-%'", [space]),
      'count the writes',
      { retryBroken: true },
    );
    const foundIds = new Set(found.rows.map((r) => r.id));
    const sums = await admin.withClient((c) => c.query<{ r: number; u: number }>('SELECT sum(retrieval_count)::bigint AS r, sum(utility_count)::bigint AS u FROM records WHERE space = $1', [space]), 'sum', { retryBroken: true });
    const sweeps = Number((await admin.getMeta('sweep_count')) ?? '0');
    await admin.close();
    const gate = roles && cluster ? await checkRoleGate(cluster.ownerUrl, space, roles, tally.acked) : undefined;
    const visibility: number[] = [];
    for (const s of tally.seen) {
      // Visibility to the other clients (a client that approves its own record knows the change at once).
      if (!roles && s.id.startsWith(`bench-${s.client}-`)) continue;
      const at = tally.approvedAt.get(s.id);
      if (at !== undefined) visibility.push(Math.max(0, s.at - at));
    }
    const lost = [...tally.acked].filter((id) => !foundIds.has(id)).length;
    const reviewLag = [...tally.approvedAt].flatMap(([id, at]) => (tally.ackAt.has(id) ? [Math.max(0, at - tally.ackAt.get(id)!)] : []));
    const report = {
      clients: args.clients, rounds: args.rounds, records: args.records, dimension: DIM, faults: args.faults, killed_clients: killed, seed_ms: seedMs, seed_index_ms: indexMs,
      statistics_refreshed: seeded.statistics.refreshed, duration_ms: durationMs,
      writes_acknowledged: tally.acked.size, writes_found: tally.acked.size - lost, writes_lost: lost, writes_failed_reported: tally.failed, failure_messages: Object.fromEntries(tally.failures),
      increments_sent: tally.incRetrieval + tally.incPhi, increments_found: Number(sums.rows[0].r) + Number(sums.rows[0].u),
      visibility_p50_ms: pct(visibility, 50), visibility_p99_ms: pct(visibility, 99), visibility_samples: visibility.length,
      rerank: args.rerank, search_p50_ms: pct(tally.searchMs, 50), search_p95_ms: pct(tally.searchMs, 95), search_p99_ms: pct(tally.searchMs, 99), searches: tally.searchMs.length,
      shapes_load_p50_ms: pct(tally.shapesMs, 50),
      client_rss_max_mb: Math.round(tally.rssMb), sweeps, sweep_period_ms: args['sweep-period-ms'], sweep_periods_elapsed: Math.ceil(durationMs / args['sweep-period-ms']),
      client_crashes: tally.crashes.length, measured_under_load: true,
      roles: args.roles,
      role_layout: roles
        ? { agents: roles.agents.map((a) => ({ role: a.role, level: 'agent', clients: 1 })), reviewers: roles.reviewers.map((r) => ({ role: r.role, level: 'reviewer', processes: 1 })) }
        : { application_role: { role: args.url ? new URL(args.url).username || 'from --url' : DEFAULT_APP_ROLE, level: 'reviewer of every space', clients: args.clients } },
      ...(gate
        ? {
            agent_approvals_refused: tally.agentApprove.refused, agent_approvals_succeeded: tally.agentApprove.succeeded, agent_approvals_failed_otherwise: tally.agentApprove.other,
            agent_records_approved_by_reviewer: gate.approved_by_reviewer, agent_records_left_pending: gate.left_pending, gate_violations: gate.gate_violations,
            agent_status_changes_in_audit: gate.agent_status_changes_in_audit, review_lag_p50_ms: pct(reviewLag, 50), review_lag_p99_ms: pct(reviewLag, 99),
          }
        : {}),
    };
    process.stdout.write(args.json ? JSON.stringify(report) + '\n' : Object.entries(report).map(([k, v]) => `${k.padEnd(24)} ${typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)}`).join('\n') + '\n');
    // The gate holds: no agent approval succeeded, none in the audit, every agent record pending until a reviewer approved it
    // (none left pending unless a fault interrupted the review).
    const gateHeld = !gate || (tally.agentApprove.succeeded === 0 && gate.agent_status_changes_in_audit === 0 && gate.gate_violations === 0 && (args.faults || gate.left_pending === 0));
    return lost === 0 && gateHeld && (args.faults || report.increments_found === report.increments_sent) ? 0 : 1;
  } finally {
    stopCluster?.();
  }
}

if (require.main === module) runMain('bench:team', () => main(process.argv.slice(2)));
