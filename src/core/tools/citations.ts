/**
 * Files a record cites (path + SHA-256 of the content when it was recorded), checked
 * just in time: memory_search re-hashes each cited file of the records it returns and
 * flags a record whose file changed or vanished (as GitHub Copilot's memory checks its
 * citations before use). Paths are stored resolved (absolute) and must lie inside the workspace;
 * only regular files inside it are ever read. Nothing is cached.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { AgentMemoryError } from '../errors';
import { redactText } from '../security/redact';
import type { CitationInput, CitationStatus } from './tool-schemas';

/** The citations as stored in a record's metadata (`metadata.citations`). */
const StoredCitations = z.array(z.object({ path: z.string(), sha256: z.string() }));
export type StoredCitation = z.infer<typeof StoredCitations>[number];

/** Largest cited file that is read and hashed (a search re-hashes the citations of every record it returns). */
export const MAX_CITED_FILE_BYTES = 4 * 1024 * 1024;

/**
 * Citations as stored: paths resolved against `root`, hashes in lower case. A path outside `root`
 * (the workspace, or the memory server's working directory) is refused: a record may only point
 * at the files of the work it came from, never at the rest of the machine.
 */
export function resolveCitations(citations: readonly CitationInput[], root: string): StoredCitation[] {
  return citations.map((c, i) => {
    // Redacted before the path is normalised (which would turn a URL's // into / and hide its credentials).
    const resolved = path.resolve(root, redactText(c.path));
    if (!isInside(resolved, path.resolve(root))) {
      throw new AgentMemoryError('INVALID_INPUT', `citations.${i}.path: ${c.path} is outside the workspace (${root}); cite files inside it. Nothing was written.`, { index: i });
    }
    return { path: resolved, sha256: c.sha256.toLowerCase() };
  });
}

/** The stored citations of a record's metadata ([] when it has none or they are malformed). */
export function citationsOf(metadata: Record<string, unknown>): StoredCitation[] {
  const parsed = StoredCitations.safeParse(metadata.citations);
  return parsed.success ? parsed.data : [];
}

/**
 * Each cited file now: unchanged, changed (other content), missing (gone), or unchecked (not a
 * regular file of at most MAX_CITED_FILE_BYTES inside `root`, symbolic links followed: a pipe, a
 * device, a huge file or a path elsewhere on the machine is never read, so a record cannot make a
 * search block or probe files outside the workspace).
 */
export function checkCitations(citations: readonly StoredCitation[], root: string): { path: string; status: CitationStatus }[] {
  const realRoot = realpathOr(path.resolve(root));
  return citations.map((c) => ({ path: c.path, status: statusOf(c, realRoot) }));
}

/** One sentence for a record whose cited files changed, vanished or could not be checked; undefined when all are as recorded. */
export function citationWarning(checked: readonly { path: string; status: CitationStatus }[]): string | undefined {
  const off = checked.filter((c) => c.status !== 'unchanged');
  if (off.length === 0) return undefined;
  const list = off.map((c) => `${c.path} (${c.status})`).join(', ');
  return `This record may be out of date: ${off.length === 1 ? 'a file it cites' : `${off.length} files it cites`} changed, vanished or could not be checked since it was recorded: ${list}. Check the code against the current files before reusing it.`;
}

function statusOf(c: StoredCitation, realRoot: string): CitationStatus {
  let real: string;
  try {
    real = fs.realpathSync(c.path);
  } catch {
    return 'missing';
  }
  if (!isInside(real, realRoot)) return 'unchecked';
  let fd: number;
  try {
    // Non-blocking: a path swapped for a pipe after the check above cannot stall the search.
    fd = fs.openSync(real, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch {
    return 'missing';
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile() || stat.size > MAX_CITED_FILE_BYTES) return 'unchecked';
    const content = Buffer.alloc(stat.size);
    let read = 0;
    while (read < stat.size) {
      const n = fs.readSync(fd, content, read, stat.size - read, read);
      if (n === 0) break;
      read += n;
    }
    return createHash('sha256').update(content.subarray(0, read)).digest('hex') === c.sha256 ? 'unchanged' : 'changed';
  } catch {
    return 'missing';
  } finally {
    fs.closeSync(fd);
  }
}

function isInside(file: string, root: string): boolean {
  const rel = path.relative(root, file);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

function realpathOr(dir: string): string {
  try {
    return fs.realpathSync(dir);
  } catch {
    return dir;
  }
}
