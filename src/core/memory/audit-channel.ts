/**
 * The channel of a local memory's audit entry (editor, CLI, MCP server: types.ts AuditChannelSchema),
 * read back from the entry's evidence and said in words for the record's tooltip and the CLI.
 */
import { AuditChannelSchema, type AuditChannel, type AuditEntry, type AuditOperation } from './types';

/** The status changes a reviewer looks at: who approved, rejected, restored or deleted a record, and from where. */
const STATUS_CHANGES: ReadonlySet<AuditOperation> = new Set(['approve', 'unapprove', 'reject', 'delete', 'restore', 'purge']);

const CHANNEL_WORDS: Record<AuditChannel, string> = { editor: 'in the editor', cli: 'from the agent-memory CLI', mcp: 'through the MCP server' };

/** The channel an entry records; undefined for entries written before channels were recorded (or by a tool that did not say). */
export function auditChannel(entry: Pick<AuditEntry, 'evidence'>): AuditChannel | undefined {
  const parsed = AuditChannelSchema.safeParse(entry.evidence.channel);
  return parsed.success ? parsed.data : undefined;
}

/** The newest status change among `entries` (newest first, as the store returns them) in words, e.g. "approve (user) from the agent-memory CLI, 2026-11-27 23:30 UTC". */
export function lastStatusChangeText(entries: readonly AuditEntry[]): string | undefined {
  const entry = entries.find((e) => STATUS_CHANGES.has(e.operation));
  if (!entry) return undefined;
  const channel = auditChannel(entry);
  const where = channel ? ` ${CHANNEL_WORDS[channel]}` : '';
  return `${entry.operation} (${entry.trigger})${where}, ${entry.at.slice(0, 16).replace('T', ' ')} UTC`;
}
