/**
 * The automatic deletion sweep of a team memory: once per team per sweep period, not once
 * per client. A sweep is one transaction that first takes a transaction-level advisory
 * lock for the space (`pg_try_advisory_xact_lock`): a client that does not get it skips,
 * because another is sweeping; under the lock, a sweep younger than the period (meta
 * `last_sweep_at`) also skips. It soft-deletes (restorable) the active records retrieved at
 * least `minRetrievals` times whose mean Φ is at most `maxMeanUtility`, oldest first,
 * never taking the active count below the memory floor.
 */
import { z } from 'zod';
import { lockSpaceAudit } from './team-batch-writes';
import type { TeamMemoryStore } from './team-store';

export const TEAM_SWEEP_TRIGGER = 'rule:team-sweep';

export const TeamSweepSchema = z.object({
  /** At most one sweep per team per this many milliseconds. */
  periodMs: z.number().int().min(0),
  /** The memory floor: active records a sweep never goes below. */
  minActiveRecords: z.number().int().min(0),
  minRetrievals: z.number().int().min(1),
  maxMeanUtility: z.number().min(0).max(1),
  /** Most records one sweep deletes. */
  limit: z.number().int().min(1).max(100_000).default(1000),
});
export type TeamSweepInput = z.input<typeof TeamSweepSchema>;

export type TeamSweepResult = { ran: true; deleted: string[]; floorKept: number } | { ran: false; reason: 'another client is sweeping' | 'swept within the period' | 'not a reviewer of the space' };

export async function sweepTeam(team: TeamMemoryStore, input: TeamSweepInput, now: Date = new Date()): Promise<TeamSweepResult> {
  const p = TeamSweepSchema.parse(input);
  // Deleting is a reviewer's (the server refuses an agent's status change): an agent's client skips the sweep.
  const level = await team.level();
  if (level !== 'reviewer' && level !== 'owner') return { ran: false, reason: 'not a reviewer of the space' };
  return team.transaction(async (c) => {
    const lock = await c.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS ok', [`${team.space}:sweep`]);
    if (!lock.rows[0].ok) return { ran: false, reason: 'another client is sweeping' } as const;
    await lockSpaceAudit(c, team.space);
    const last = await team.getMeta('last_sweep_at', c);
    if (last && now.getTime() - Date.parse(last) < p.periodMs) return { ran: false, reason: 'swept within the period' } as const;
    const active = (await c.query<{ n: number }>("SELECT count(*)::int AS n FROM records WHERE space = $1 AND status = 'active'", [team.space])).rows[0].n;
    const room = Math.max(0, active - p.minActiveRecords);
    const candidates = await c.query<{ rid: number; id: string; mean: number; retrieval_count: number }>(
      `SELECT rid, id, utility_sum / utility_count AS mean, retrieval_count FROM records
       WHERE space = $1 AND status = 'active' AND retrieval_count >= $2 AND utility_count > 0 AND utility_sum / utility_count <= $3
       ORDER BY created_task, rid LIMIT $4 FOR UPDATE`,
      [team.space, p.minRetrievals, p.maxMeanUtility, p.limit],
    );
    const chosen = candidates.rows.slice(0, room);
    const stamp = now.toISOString();
    // The audit, then one statement (the keyword statistics are updated once per statement).
    await team.writeAuditRows(c, chosen.map((r) => ({
      operation: 'delete', recordId: r.id, trigger: TEAM_SWEEP_TRIGGER, reason: `retrieved ${r.retrieval_count} times with mean utility ${r.mean.toFixed(3)} ≤ ${p.maxMeanUtility}`,
      evidence: { from: 'active', to: 'deleted', meanUtility: r.mean, retrievalCount: r.retrieval_count },
    })));
    if (chosen.length > 0) {
      await c.query("SELECT agent_memory_set_status($1, $2::bigint[], array_fill('deleted'::text, ARRAY[$3::int]), array_fill('active'::text, ARRAY[$3::int]), $4)", [team.space, chosen.map((r) => r.rid), chosen.length, stamp]);
    }
    const count = Number((await team.getMeta('sweep_count', c)) ?? '0') + 1;
    await team.setMeta('last_sweep_at', stamp, c);
    await team.setMeta('sweep_count', String(count), c);
    return { ran: true, deleted: chosen.map((r) => r.id), floorKept: candidates.rows.length - chosen.length } as const;
  }, 'run the deletion sweep');
}
