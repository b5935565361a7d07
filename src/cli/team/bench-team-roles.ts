/**
 * `bench:team --roles separate`: the login roles its client processes run as, and the checks of
 * the strict gate read as the schema owner after the run.
 * - Each agent client logs in as its own role (`bench_agent_<i>`), granted `--as agent` in the
 *   bench's space (team-grant); each reviewer process as `bench_reviewer_<j>`, `--as reviewer`.
 * - `checkRoleGate`: every acknowledged agent record is either still pending with no approval, or
 *   active with exactly one approval by a reviewer role that found it pending (the evidence's
 *   `from`, read by the server's lock); no status change in the space's audit by an agent role.
 */
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { grantSpaceRole } from '../../core/memory/postgres/team-members';

export const ROLE_LAYOUTS = ['separate', 'single'] as const;
export type RoleLayout = (typeof ROLE_LAYOUTS)[number];

export interface BenchLogin {
  role: string;
  /** The URL without its password (the password goes to the client in AGENT_MEMORY_PG_PASSWORD). */
  url: string;
  password: string;
}

export interface BenchRoles {
  agents: BenchLogin[];
  reviewers: BenchLogin[];
}

/** Creates one login role per agent client and per reviewer (as the superuser) and grants their levels in `space` (as the owner). */
export async function createBenchRoles(urls: { superuserUrl: string; ownerUrl: string }, space: string, agents: number, reviewers: number, env: NodeJS.ProcessEnv): Promise<BenchRoles> {
  const make = (kind: 'agent' | 'reviewer', i: number): BenchLogin => {
    const u = new URL(urls.ownerUrl);
    u.username = `bench_${kind}_${i}`;
    u.password = '';
    return { role: u.username, url: u.toString(), password: randomBytes(18).toString('base64url') };
  };
  const roles: BenchRoles = { agents: Array.from({ length: agents }, (_, i) => make('agent', i)), reviewers: Array.from({ length: reviewers }, (_, j) => make('reviewer', j)) };
  const su = new Client({ connectionString: urls.superuserUrl });
  await su.connect();
  try {
    // base64url passwords hold no quote; role names are plain identifiers.
    for (const login of [...roles.agents, ...roles.reviewers]) await su.query(`CREATE ROLE ${login.role} LOGIN PASSWORD '${login.password}'`);
  } finally {
    await su.end();
  }
  for (const a of roles.agents) await grantSpaceRole(urls.ownerUrl, { role: a.role, space, level: 'agent' }, { env });
  for (const r of roles.reviewers) await grantSpaceRole(urls.ownerUrl, { role: r.role, space, level: 'reviewer' }, { env });
  return roles;
}

/** The status changes a reviewer may make (TransitionRules' operations). */
const STATUS_CHANGES = ['approve', 'unapprove', 'reject', 'delete', 'restore', 'purge'];

export interface RoleGateCheck {
  /** Acknowledged agent records active after exactly one approval by a reviewer role that found them pending. */
  approved_by_reviewer: number;
  /** Acknowledged agent records still pending, with no approval. */
  left_pending: number;
  /** Acknowledged agent records in any other state (active without a reviewer's approval of a pending record, deleted, missing…): must be 0. */
  gate_violations: number;
  /** Status changes in the space's audit whose server-side actor is an agent role: must be 0. */
  agent_status_changes_in_audit: number;
}

/** Reads the records and the audit of `space` as the owner (`ownerUrl`) and checks the strict gate for the `acked` agent records. */
export async function checkRoleGate(ownerUrl: string, space: string, roles: BenchRoles, acked: Iterable<string>): Promise<RoleGateCheck> {
  const c = new Client({ connectionString: ownerUrl });
  await c.connect();
  try {
    const ids = [...acked];
    const reviewers = roles.reviewers.map((r) => r.role);
    const rows = await c.query<{ id: string; status: string | null; approvals: number; good: number }>(
      `SELECT i.id, r.status,
         count(a.id) FILTER (WHERE a.operation = 'approve')::int AS approvals,
         count(a.id) FILTER (WHERE a.operation = 'approve' AND a.actor_role = ANY($3::text[]) AND a.evidence::jsonb ->> 'from' = 'pending')::int AS good
       FROM unnest($2::text[]) AS i(id)
       LEFT JOIN records r ON r.space = $1 AND r.id = i.id
       LEFT JOIN audit a ON a.space = $1 AND a.record_id = i.id
       GROUP BY i.id, r.status`,
      [space, ids, reviewers],
    );
    let approved = 0;
    let pending = 0;
    for (const r of rows.rows) {
      if (r.status === 'active' && r.approvals === 1 && r.good === 1) approved++;
      else if (r.status === 'pending' && r.approvals === 0) pending++;
    }
    const byAgents = await c.query<{ n: number }>('SELECT count(*)::int AS n FROM audit WHERE space = $1 AND operation = ANY($2::text[]) AND actor_role = ANY($3::text[])', [space, STATUS_CHANGES, roles.agents.map((a) => a.role)]);
    return { approved_by_reviewer: approved, left_pending: pending, gate_violations: ids.length - approved - pending, agent_status_changes_in_audit: byAgents.rows[0].n };
  } finally {
    await c.end();
  }
}
