/**
 * Files a record cites (path + SHA-256 of the content when it was recorded), checked
 * just in time: memory_search re-hashes each cited file of the records it returns and
 * flags a record whose file changed or vanished (as GitHub Copilot's memory checks its
 * citations before use). Paths are stored resolved (absolute); nothing is cached.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import type { CitationInput, CitationStatus } from './tool-schemas';

/** The citations as stored in a record's metadata (`metadata.citations`). */
const StoredCitations = z.array(z.object({ path: z.string(), sha256: z.string() }));
export type StoredCitation = z.infer<typeof StoredCitations>[number];

/** Citations as stored: paths resolved against `root`, hashes in lower case. */
export function resolveCitations(citations: readonly CitationInput[], root: string): StoredCitation[] {
  return citations.map((c) => ({ path: path.resolve(root, c.path), sha256: c.sha256.toLowerCase() }));
}

/** The stored citations of a record's metadata ([] when it has none or they are malformed). */
export function citationsOf(metadata: Record<string, unknown>): StoredCitation[] {
  const parsed = StoredCitations.safeParse(metadata.citations);
  return parsed.success ? parsed.data : [];
}

/** Each cited file now: unchanged, changed (other content) or missing (gone or unreadable). */
export function checkCitations(citations: readonly StoredCitation[]): { path: string; status: CitationStatus }[] {
  return citations.map((c) => ({ path: c.path, status: statusOf(c) }));
}

/** One sentence for a record whose cited files changed or vanished; undefined when all are as recorded. */
export function citationWarning(checked: readonly { path: string; status: CitationStatus }[]): string | undefined {
  const off = checked.filter((c) => c.status !== 'unchanged');
  if (off.length === 0) return undefined;
  const list = off.map((c) => `${c.path} (${c.status})`).join(', ');
  return `This record may be out of date: ${off.length === 1 ? 'a file it cites' : `${off.length} files it cites`} changed or vanished since it was recorded: ${list}. Check the code against the current files before reusing it.`;
}

function statusOf(c: StoredCitation): CitationStatus {
  let content: Buffer;
  try {
    content = fs.readFileSync(c.path);
  } catch {
    return 'missing';
  }
  return createHash('sha256').update(content).digest('hex') === c.sha256 ? 'unchanged' : 'changed';
}
