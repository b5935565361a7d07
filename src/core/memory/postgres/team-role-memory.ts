/**
 * The coder's and the debugger's role memories (SPEC §7) on the team memory: one row per
 * (space, role) in `role_memories`, so every member's agent in a space learns from the same
 * lessons. Same contract as the file store (role-memory-store.ts): `load` returns an empty
 * memory when none was saved, `save` validates and redacts before writing (an invalid
 * memory is never stored), `reset` stores and returns an empty memory. A save is one
 * upsert; the last writer of a role wins (a role memory is rewritten whole by its model).
 *
 * @example
 * const roles = await RoleMemories.load(new TeamRoleMemoryStore(team), logger);
 */
import { AgentMemoryError } from '../../errors';
import { checkRole, validateRoleMemory, type RoleMemoryStore } from '../../agent/role-memory-store';
import { emptyRoleMemory, RoleMemorySchema, type Role, type RoleMemory } from '../../agent/role-memory';
import type { TeamMemoryStore } from './team-store';

export class TeamRoleMemoryStore implements RoleMemoryStore {
  constructor(private readonly team: TeamMemoryStore) {}

  async load(role: Role): Promise<RoleMemory> {
    const r = checkRole(role);
    const rows = await this.team.withClient(
      (c) => c.query<{ memory: string }>('SELECT memory FROM role_memories WHERE space = $1 AND role = $2', [this.team.space, r]),
      `read the ${r} memory`,
      { retryBroken: true },
    );
    const text = rows.rows[0]?.memory;
    if (text === undefined) return emptyRoleMemory(r);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw this.corrupt(r, `not JSON (${(error as Error).message})`);
    }
    const parsed = RoleMemorySchema.safeParse(value);
    if (!parsed.success) throw this.corrupt(r, parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; '));
    if (parsed.data.role !== r) throw this.corrupt(r, `it holds the ${parsed.data.role} memory`);
    return parsed.data;
  }

  async save(role: Role, memory: RoleMemory): Promise<void> {
    const valid = validateRoleMemory(role, memory, 'memory');
    await this.team.withClient(
      (c) =>
        c.query(
          'INSERT INTO role_memories (space, role, memory, updated_at) VALUES ($1, $2, $3, now()) ON CONFLICT (space, role) DO UPDATE SET memory = EXCLUDED.memory, updated_at = EXCLUDED.updated_at',
          [this.team.space, role, JSON.stringify(valid)],
        ),
      `save the ${role} memory`,
    );
  }

  async reset(role: Role): Promise<RoleMemory> {
    const empty = emptyRoleMemory(checkRole(role));
    await this.save(role, empty);
    return empty;
  }

  private corrupt(role: Role, why: string): AgentMemoryError {
    return new AgentMemoryError('INVALID_STATE', `The ${role} memory of space '${this.team.space}' in the team memory at ${this.team.where} is invalid (${why}). Reset the ${role} memory to start it afresh.`, {
      space: this.team.space,
    });
  }
}
