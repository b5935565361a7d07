/**
 * Whether a memory database path can be used as it stands, before anything opens or creates
 * it: a path under a file, or in a folder that does not exist, is refused with its cause
 * (the editor then keeps the database it had; nothing switches silently).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describeConnection, isPostgresUrl } from '../postgres/connection';

export type DatabasePathProblem =
  | { kind: 'under-a-file'; file: string; message: string }
  | { kind: 'missing-folder'; folder: string; message: string }
  | { kind: 'is-a-folder'; message: string }
  /** A postgres:// team memory URL: the editor opens SQLite files only so far. */
  | { kind: 'team-url'; message: string };

/**
 * The reason `file` cannot hold the memory database, or undefined when it can (its folder
 * exists; the file exists or will be created there).
 *
 * @example
 * databasePathProblem('/etc/hosts/memory.db') // { kind: 'under-a-file', file: '/etc/hosts', message: "…/etc/hosts is a file, not a folder…" }
 */
export function databasePathProblem(file: string): DatabasePathProblem | undefined {
  if (file === ':memory:') return undefined;
  if (isPostgresUrl(file)) {
    const withPassword = /^[^/]*\/\/[^/@]*:[^/@]*@/.test(file) || /[?&]password=/i.test(file);
    return {
      kind: 'team-url',
      message:
        `agentMemory.databasePath names a team memory (${describeConnection(file)}), but the editor opens SQLite memory files only so far. ` +
        "Serve the team memory to your agents with 'agent-memory mcp --db <url>' and keep a file here." +
        (withPassword ? ' Remove the password from the setting: it belongs in AGENT_MEMORY_PG_PASSWORD, never in a settings file.' : ''),
    };
  }
  const stat = statOf(file);
  if (stat?.isDirectory()) return { kind: 'is-a-folder', message: `${file} is a folder: agentMemory.databasePath must name a file, e.g. ${path.join(file, 'memory.sqlite')}.` };
  const folder = path.dirname(file);
  let existing = folder;
  while (!statOf(existing) && path.dirname(existing) !== existing) existing = path.dirname(existing);
  const ancestor = statOf(existing);
  if (ancestor && !ancestor.isDirectory()) {
    return { kind: 'under-a-file', file: existing, message: `The memory database path ${file} lies under ${existing}, which is a file, not a folder. Choose a path in a folder.` };
  }
  if (existing !== folder) return { kind: 'missing-folder', folder, message: `The folder of the memory database path ${file} does not exist (${folder}). Create the folder or choose another path.` };
  return undefined;
}

function statOf(p: string): fs.Stats | undefined {
  try {
    return fs.statSync(p);
  } catch {
    return undefined;
  }
}
