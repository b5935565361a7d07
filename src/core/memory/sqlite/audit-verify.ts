/** `audit --verify` on a SQLite memory: the audit in id order and its head, checked by audit-chain.ts. */
import type { Database } from 'better-sqlite3';
import { AuditChainRow, AuditVerification, verifyAuditChain } from '../audit-chain';

export function verifySqliteAudit(db: Database): AuditVerification {
  return db.transaction(() => {
    const rows = (db.prepare('SELECT id, at, operation, record_id, trigger, reason, evidence, prev_hash, hash FROM audit ORDER BY id').all() as Omit<AuditChainRow, 'space' | 'actor_user' | 'actor_client' | 'actor_role'>[])
      .map((r) => ({ ...r, space: '', actor_user: '', actor_client: '', actor_role: '' }));
    const head = db.prepare('SELECT last_id, last_hash, entries FROM audit_chain_head WHERE k = 1').get() as { last_id: number; last_hash: string; entries: number } | undefined;
    return verifyAuditChain(rows, head ? { lastId: head.last_id, lastHash: head.last_hash, entries: head.entries } : { lastId: 0, lastHash: '', entries: 0 });
  })();
}
