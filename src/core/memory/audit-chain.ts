/**
 * The audit's hash chain, the same on both backends: each entry carries the hash of the previous entry
 * of its space (`prev_hash`) and its own (`hash`, SHA-256 over its fields and `prev_hash`). PostgreSQL
 * computes it in the owner's audit trigger (migration 5, migration-roles.ts), SQLite in its audit trigger
 * through the function this module registers (schema v11). `verifyAuditChain` recomputes it: an entry
 * edited behind the application's back breaks its own hash, a deleted one the next entry's `prev_hash`
 * (or the head, for the last). Whoever can rewrite every later entry and the head (the database owner,
 * someone with the file) can forge a consistent chain: the chain shows tampering, it does not prevent it
 * (docs/team-threat-model.md).
 */
import { createHash } from 'node:crypto';

/** An audit entry's hashed fields (the PostgreSQL names; SQLite has no space or actors: ''). */
export interface AuditChainRow {
  id: number;
  space: string;
  at: string;
  operation: string;
  record_id: string | null;
  trigger: string;
  reason: string;
  evidence: string;
  actor_user: string;
  actor_client: string;
  actor_role: string;
  prev_hash: string;
  hash: string;
}

/** The field order (the PostgreSQL function hashes the same, migration-roles.ts). */
const FIELDS = ['id', 'space', 'at', 'operation', 'record_id', 'trigger', 'reason', 'evidence', 'actor_user', 'actor_client', 'actor_role', 'prev_hash'] as const;

/** SHA-256 (hex) of `byteLength:value` per field joined by `|` (a NULL record id is `-`). */
export function auditEntryHash(row: Omit<AuditChainRow, 'hash'>): string {
  const parts = FIELDS.map((f) => {
    const v = row[f];
    if (f === 'record_id' && v === null) return '-';
    const text = String(v);
    return `${Buffer.byteLength(text, 'utf8')}:${text}`;
  });
  return createHash('sha256').update(parts.join('|'), 'utf8').digest('hex');
}

export interface AuditChainHead {
  lastId: number;
  lastHash: string;
  entries: number;
}

export interface AuditVerification {
  ok: boolean;
  entries: number;
  /** The first entry whose hash or link does not hold (an edited entry, or the one after a deleted one; the head's last id when the last was deleted). */
  first_bad: number | null;
}

/** Checks `rows` (one space, in id order) against their hashes, their links and the head (when kept). */
export function verifyAuditChain(rows: readonly AuditChainRow[], head?: AuditChainHead): AuditVerification {
  let prev = '';
  for (const row of rows) {
    if (row.prev_hash !== prev || auditEntryHash(row) !== row.hash) return { ok: false, entries: rows.length, first_bad: Number(row.id) };
    prev = row.hash;
  }
  if (head && (head.lastHash !== prev || head.entries !== rows.length)) {
    // The chain holds up to its end but the head saw more: entries were deleted at the end.
    const last = rows.length > 0 ? Number(rows[rows.length - 1].id) : 0;
    return { ok: false, entries: rows.length, first_bad: head.lastId > last ? head.lastId : last };
  }
  return { ok: true, entries: rows.length, first_bad: null };
}
