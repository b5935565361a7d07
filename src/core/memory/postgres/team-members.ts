/**
 * `team-grant`: the schema owner gives a role a level in one space (`agent`: search, record —
 * pending under strict —, feedback, read; `reviewer`: also approve, reject, restore, delete, purge,
 * set the policy, restore --replace, revalidate, re-embed), or takes it back. Writes `space_members`
 * (migration 5), which the row-level security policies and the owner's functions read, and grants
 * the role the application's table rights (the same for every level: the policies tell levels apart).
 * Idempotent. See docs/team-threat-model.md.
 */
import { Client } from 'pg';
import { z } from 'zod';
import { AgentMemoryError } from '../../errors';
import { poolConfig, SpaceSchema } from './connection';
import { applicationGrants } from './migration-roles';
import { assertSchemaCurrent, restrictConnect } from './migrations';

export const SPACE_LEVELS = ['agent', 'reviewer'] as const;
export type GrantLevel = (typeof SPACE_LEVELS)[number];

export const TeamGrantSchema = z.object({
  role: z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/, 'a role is a plain lower-case identifier (letters, digits, underscores)'),
  space: SpaceSchema,
  level: z.enum(SPACE_LEVELS),
  revoke: z.boolean().default(false),
});
export type TeamGrantInput = z.input<typeof TeamGrantSchema>;

export interface TeamGrantResult {
  role: string;
  space: string;
  /** The role's level in the space after the command (null: none). */
  level: GrantLevel | null;
  /** False when the membership already was as asked (idempotent). */
  changed: boolean;
}

export async function grantSpaceRole(url: string, input: TeamGrantInput, options: { password?: string; env?: NodeJS.ProcessEnv } = {}): Promise<TeamGrantResult> {
  const parsed = TeamGrantSchema.safeParse(input);
  if (!parsed.success) throw new AgentMemoryError('INVALID_INPUT', `team-grant: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}. Nothing was changed.`);
  const { role, space, level, revoke } = parsed.data;
  const { config } = poolConfig({ url, password: options.password, user: 'admin', client: 'team-grant' }, options.env);
  const client = new Client({ ...config, statement_timeout: undefined });
  await client.connect();
  try {
    await assertSchemaCurrent(client);
    const who = (await client.query<{ owner: boolean; me: string }>("SELECT pg_has_role(current_user, (SELECT relowner FROM pg_class WHERE oid = 'public.records'::regclass), 'MEMBER') AS owner, current_user AS me")).rows[0];
    if (!who.owner) throw new AgentMemoryError('FORBIDDEN', `team-grant is run by the schema owner; '${who.me}' is not. Give --url the owner's connection. Nothing was changed.`);
    if (!(await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role])).rowCount) {
      throw new AgentMemoryError('INVALID_INPUT', `No role '${role}' on this server: create it first (CREATE ROLE ${role} LOGIN PASSWORD '…'). Nothing was changed.`);
    }
    if (role === who.me) throw new AgentMemoryError('INVALID_INPUT', `'${role}' is the schema owner: it may do everything already; grant levels to the roles the clients log in as. Nothing was changed.`);
    await client.query('BEGIN');
    try {
      const before = (await client.query<{ level: GrantLevel }>('SELECT level FROM space_members WHERE space = $1 AND role = $2 FOR UPDATE', [space, role])).rows[0]?.level ?? null;
      let after: GrantLevel | null = before;
      if (revoke) {
        // Takes back exactly the level named: revoking 'reviewer' from an agent changes nothing.
        if (before === level) {
          await client.query('DELETE FROM space_members WHERE space = $1 AND role = $2', [space, role]);
          after = null;
        }
      } else {
        for (const sql of applicationGrants(role)) await client.query(sql);
        await restrictConnect(client, role);
        await client.query('INSERT INTO space_members (space, role, level) VALUES ($1, $2, $3) ON CONFLICT (space, role) DO UPDATE SET level = EXCLUDED.level, granted_at = now(), granted_by = session_user', [space, role, level]);
        after = level;
      }
      await client.query('COMMIT');
      return { role, space, level: after, changed: after !== before };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  } finally {
    await client.end();
  }
}
