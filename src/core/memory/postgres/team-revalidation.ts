/**
 * Revalidation on a team space (`agent-memory revalidate --db postgres://…`): the same re-runs
 * as on a SQLite memory (../../revalidation/revalidate.ts), reading the space's runnable records
 * and writing their checks onto them (migration 3: `stale`, `check_*`). A stale record is skipped
 * by team retrieval (team-search.ts) until a later revalidation runs it clean. All checks of a run
 * are written in one transaction, with an audit entry per record whose staleness changed; the
 * change feed tells every client.
 */
import { lockSpaceAudit } from './team-batch-writes';
import type { CheckWrite, RunnableRow } from '../sqlite/queries/review';
import type { RevalidationSource } from '../../revalidation/revalidate';
import type { TeamMemoryStore } from './team-store';

export function teamRevalidationSource(team: TeamMemoryStore): RevalidationSource {
  return {
    async runnable(): Promise<RunnableRow[]> {
      const rows = await team.withClient(
        (c) =>
          c.query<{ rid: string; id: string; code: string; language: 'python' | 'javascript'; answer: string; fingerprint: string | null; stale: boolean }>(
            `SELECT rid, id, code, language, COALESCE(check_answer, answer) AS answer, check_fingerprint AS fingerprint, stale
             FROM records WHERE space = $1 AND status = 'active' AND outcome = 'success' AND language IN ('python', 'javascript') ORDER BY rid`,
            [team.space],
          ),
        'read the records to revalidate',
        { retryBroken: true },
      );
      return rows.rows.map((r) => ({ ...r, rid: Number(r.rid) }));
    },
    async writeChecks(checks: readonly CheckWrite[]): Promise<void> {
      if (checks.length === 0) return;
      await team.transaction(async (c) => {
        // A reviewer's (the server filters an agent's updates of the marks); the audit lock before any row lock.
        await team.requireLevel('reviewer', 'write the revalidation results', c);
        await lockSpaceAudit(c, team.space);
        for (const check of [...checks].sort((a, b) => a.rid - b.rid)) {
          const before = await c.query<{ id: string; stale: boolean }>('SELECT id, stale FROM records WHERE space = $1 AND rid = $2 FOR UPDATE', [team.space, check.rid]);
          const row = before.rows[0];
          if (!row) continue; // purged meanwhile
          await c.query(
            'UPDATE records SET stale = $3, check_state = $4, check_fingerprint = $5, check_answer = $6, check_error = $7, checked_at = now() WHERE space = $1 AND rid = $2',
            [team.space, check.rid, check.stale, check.state, check.fingerprint, check.answer, check.error],
          );
          if (row.stale !== check.stale) {
            const reason = check.stale ? `marked stale: its program now fails on the data (${check.error ?? check.state})` : 'no longer stale: its program re-ran clean';
            await team.writeAudit(c, 'revalidate', row.id, 'user', reason, { state: check.state, fingerprint: check.fingerprint, ...(check.error ? { error: check.error } : {}) });
          }
        }
      }, 'write the revalidation results');
    },
  };
}
