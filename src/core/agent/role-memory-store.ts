import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { AgentMemoryError } from '../errors';
import { RedactionTally } from '../security/redact';
import { emptyRoleMemory, RoleMemorySchema, RoleSchema, type Role, type RoleMemory } from './role-memory';

/**
 * Where role memories live. `load` returns an empty memory when none was saved;
 * `save` validates before writing (an invalid memory is never stored);
 * `reset` stores and returns an empty memory.
 *
 * @example
 * ```ts
 * const store = new JsonFileRoleMemoryStore(path.join(storageDir, 'role-memories'));
 * const coder = await store.load('coder');
 * await store.reset('debugger');
 * ```
 */
export interface RoleMemoryStore {
  load(role: Role): Promise<RoleMemory>;
  save(role: Role, memory: RoleMemory): Promise<void>;
  reset(role: Role): Promise<RoleMemory>;
}

/** Keeps memories in the process (tests, benchmarks, one-off runs). */
export class InMemoryRoleMemoryStore implements RoleMemoryStore {
  private readonly memories = new Map<Role, RoleMemory>();

  async load(role: Role): Promise<RoleMemory> {
    const r = checkRole(role);
    return structuredClone(this.memories.get(r) ?? emptyRoleMemory(r));
  }

  async save(role: Role, memory: RoleMemory): Promise<void> {
    this.memories.set(checkRole(role), validateRoleMemory(role, memory, 'memory'));
  }

  async reset(role: Role): Promise<RoleMemory> {
    const empty = emptyRoleMemory(checkRole(role));
    this.memories.set(role, empty);
    return structuredClone(empty);
  }
}

/**
 * One JSON file per role (`<dir>/<role>.json`), written atomically: a temp file
 * in the same directory is written and fsynced, then renamed over the old one,
 * so a crash leaves either the old or the new memory, never a torn file.
 */
export class JsonFileRoleMemoryStore implements RoleMemoryStore {
  constructor(readonly directory: string) {}

  fileFor(role: Role): string {
    return path.join(this.directory, `${checkRole(role)}.json`);
  }

  async load(role: Role): Promise<RoleMemory> {
    const file = this.fileFor(role);
    let text: string;
    try {
      text = await fs.readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return emptyRoleMemory(role);
      throw new AgentMemoryError('INVALID_STATE', `Cannot read the ${role} memory at ${file}: ${(error as Error).message}`, undefined, { cause: error });
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw corrupt(role, file, `not JSON (${(error as Error).message})`);
    }
    const parsed = RoleMemorySchema.safeParse(value);
    if (!parsed.success) throw corrupt(role, file, parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; '));
    if (parsed.data.role !== role) throw corrupt(role, file, `it holds the ${parsed.data.role} memory`);
    return parsed.data;
  }

  async save(role: Role, memory: RoleMemory): Promise<void> {
    const valid = validateRoleMemory(role, memory, 'memory');
    await this.writeAtomically(this.fileFor(role), `${JSON.stringify(valid, null, 2)}\n`);
  }

  async reset(role: Role): Promise<RoleMemory> {
    const empty = emptyRoleMemory(checkRole(role));
    await this.save(role, empty);
    return empty;
  }

  private async writeAtomically(file: string, content: string): Promise<void> {
    await fs.mkdir(path.dirname(file), { recursive: true });
    const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      const handle = await fs.open(temp, 'w');
      try {
        await handle.writeFile(content, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await fs.rename(temp, file);
    } catch (error) {
      await fs.rm(temp, { force: true });
      throw new AgentMemoryError('INVALID_STATE', `Cannot write the role memory ${file}: ${(error as Error).message}. Check that the folder is writable.`, undefined, { cause: error });
    }
  }
}

/** `role` when it is one the agent has; INVALID_INPUT otherwise. */
export function checkRole(role: Role): Role {
  const parsed = RoleSchema.safeParse(role);
  if (!parsed.success) throw new AgentMemoryError('INVALID_INPUT', `Unknown role ${JSON.stringify(role)}: expected one of ${RoleSchema.options.join(', ')}.`);
  return parsed.data;
}

/** The memory as it may be stored: valid for `role`, its lessons redacted (every RoleMemoryStore saves through this). */
export function validateRoleMemory(role: Role, memory: RoleMemory, what: string): RoleMemory {
  checkRole(role);
  const parsed = RoleMemorySchema.safeParse(memory);
  if (!parsed.success) {
    throw new AgentMemoryError('INVALID_INPUT', `Refusing to save an invalid ${role} ${what}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
  }
  if (parsed.data.role !== role) throw new AgentMemoryError('INVALID_INPUT', `Refusing to save the ${parsed.data.role} memory as the ${role} memory.`);
  // Lessons are model-written from task text: a secret in a task must not be kept in a role memory.
  const tally = new RedactionTally();
  const { lessons, validPatterns, mistakesToAvoid } = parsed.data;
  return { ...parsed.data, lessons: lessons.map((t) => tally.text(t)), validPatterns: validPatterns.map((t) => tally.text(t)), mistakesToAvoid: mistakesToAvoid.map((t) => tally.text(t)) };
}

function corrupt(role: Role, file: string, why: string): AgentMemoryError {
  return new AgentMemoryError('INVALID_STATE', `The ${role} memory file ${file} is invalid (${why}). Reset the ${role} memory (or delete the file) to start it afresh.`, { file });
}
