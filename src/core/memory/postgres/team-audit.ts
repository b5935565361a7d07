/**
 * `audit --verify` on a team space: reads the space's audit in id order (as the caller: row-level
 * security shows a member its spaces) with the chain's head, and recomputes the chain (audit-chain.ts).
 */
import { AuditChainRow, AuditVerification, verifyAuditChain } from '../audit-chain';
import type { TeamMemoryStore } from './team-store';

const PAGE = 10_000;

export async function verifyTeamAudit(team: TeamMemoryStore): Promise<AuditVerification> {
  return team.withClient(
    async (c) => {
      await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      try {
        const rows: AuditChainRow[] = [];
        for (let after = 0; ; ) {
          const page = await c.query<AuditChainRow>(
            `SELECT id, space, at, operation, record_id, trigger, reason, evidence, actor_user, actor_client, actor_role, prev_hash, hash
             FROM audit WHERE space = $1 AND id > $2 ORDER BY id LIMIT ${PAGE}`,
            [team.space, after],
          );
          rows.push(...page.rows);
          if (page.rows.length < PAGE) break;
          after = Number(page.rows[page.rows.length - 1].id);
        }
        const head = (await c.query<{ last_id: number; last_hash: string; entries: number }>('SELECT last_id, last_hash, entries FROM audit_chain_heads WHERE space = $1', [team.space])).rows[0];
        return verifyAuditChain(rows, head ? { lastId: Number(head.last_id), lastHash: head.last_hash, entries: Number(head.entries) } : { lastId: 0, lastHash: '', entries: 0 });
      } finally {
        await c.query('COMMIT').catch(() => undefined);
      }
    },
    'verify the audit chain',
    { retryBroken: true },
  );
}
