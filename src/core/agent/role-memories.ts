import { errorMessage } from '../errors';
import { Logger, nullLogger } from '../logger';
import type { ChatModel, TokenUsage } from './model/types';
import { emptyRoleMemory, renderRoleMemory, Role, RoleMemory, ROLES, updateRoleMemory } from './role-memory';
import type { RoleMemoryStore } from './role-memory-store';

/**
 * The coder's and the debugger's role memories (SPEC §7) as the agent loop uses
 * them: held in memory for synchronous rendering into prompts, updated by a
 * prompted call after each output of the role, and saved through a store.
 * An update the model gets wrong keeps the old memory (and is logged).
 *
 * @example
 * const roles = await RoleMemories.load(new InMemoryRoleMemoryStore(), logger);
 * loopDeps.roles = roles.forModel(model); // undefined when there is no model
 */
export class RoleMemories {
  private constructor(private readonly store: RoleMemoryStore, private readonly memories: Map<Role, RoleMemory>, private readonly logger: Logger) {}

  /** Loads both roles; an unreadable one starts empty (reset it to overwrite the file). */
  static async load(store: RoleMemoryStore, logger: Logger = nullLogger): Promise<RoleMemories> {
    const memories = new Map<Role, RoleMemory>();
    for (const role of ROLES) {
      try {
        memories.set(role, await store.load(role));
      } catch (error) {
        logger.warn(`[roles] role memory '${role}' could not be read (${errorMessage(error)}); starting empty — reset it to overwrite the file`);
        memories.set(role, emptyRoleMemory(role));
      }
    }
    return new RoleMemories(store, memories, logger);
  }

  get(role: Role): RoleMemory {
    return this.memories.get(role) ?? emptyRoleMemory(role);
  }

  /** The text injected into the role's context, or undefined while the memory is empty. */
  render(role: Role): string | undefined {
    return renderRoleMemory(this.get(role)) || undefined;
  }

  /** Updates the role's memory from its latest output; returns the tokens the call used. */
  async update(model: ChatModel, role: Role, task: string, output: string, signal?: AbortSignal): Promise<TokenUsage | undefined> {
    const result = await updateRoleMemory(model, role, this.get(role), { task, output }, { signal });
    if (result.updated) {
      this.memories.set(role, result.memory);
      await this.store.save(role, result.memory);
    } else if (result.error) {
      this.logger.warn(`[roles] ${role} memory not updated: ${result.error.message}`);
    }
    return result.usage;
  }

  reset(role: Role): void {
    this.memories.set(role, emptyRoleMemory(role));
    this.store.reset(role).catch((error: unknown) => this.logger.error(`[roles] resetting the ${role} memory failed: ${errorMessage(error)}`));
  }

  /** The loop's `roles` port for a model (none without a model: the reuse model has no roles). */
  forModel(model: ChatModel | null | undefined): { render(role: Role): string | undefined; update(role: Role, task: string, output: string, signal?: AbortSignal): Promise<TokenUsage | undefined> } | undefined {
    if (!model) return undefined;
    return { render: (role) => this.render(role), update: (role, task, output, signal) => this.update(model, role, task, output, signal) };
  }
}
