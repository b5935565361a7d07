/**
 * A reviewer's status changes on the team memory (approve, reject, restore, delete, unapprove, purge): the
 * rows locked and changed through the owner's functions (migration 5), which refuse a caller that is not a
 * reviewer of the space; the same rules as the SQLite store (TransitionRules). Invalid states fail the batch.
 */
import type { PoolClient } from 'pg';
import { AgentMemoryError } from '../../errors';
import { TransitionRules } from '../sqlite/store';
import type { OperationContext } from '../sqlite/store-types';
import { MemoryRecord, RecordStatus, Trigger, TriggerSchema } from '../types';
import type { AuditRow } from './team-batch-writes';
import type { TeamMemoryStore, TransitionOperation } from './team-store';

/**
 * Several transitions (e.g. a reviewer's approvals, rejections and restores) in ONE
 * transaction, in order: all of them or none (the first id that is missing or in the
 * wrong state rolls back every step). Returns each step's records after the commit.
 */
export async function transitionTeamRecords(team: TeamMemoryStore, steps: readonly { ids: string[]; operation: TransitionOperation; reason?: string }[], context: OperationContext): Promise<MemoryRecord[][]> {
  const trigger = TriggerSchema.parse(context.trigger);
  const planned = steps.map((s) => ({ operation: s.operation, ids: [...new Set(s.ids)], reason: s.reason ?? context.reason })).filter((s) => s.ids.length > 0);
  if (planned.length > 0) {
    const now = new Date().toISOString();
    await team.transaction(async (c) => {
      for (const step of planned) await applyTransition(team, c, step.ids, step.operation, trigger, { ...context, reason: step.reason }, now);
    }, planned.map((s) => `${s.operation} records`).join(', '));
  }
  const out: MemoryRecord[][] = [];
  for (const s of steps) {
    const unique = [...new Set(s.ids)];
    out.push(s.operation === 'purge' || unique.length === 0 ? [] : await team.getMany(unique));
  }
  return out;
}

async function applyTransition(team: TeamMemoryStore, c: PoolClient, unique: string[], operation: TransitionOperation, trigger: Trigger, context: OperationContext, now: string): Promise<void> {
  // Locked FOR UPDATE by the server (rows in rid order, so two reviewers acting at once serialise); refused unless a reviewer.
  const rows = await c.query<{ rid: number; id: string; status: RecordStatus; status_before_delete: RecordStatus | null }>(
    'SELECT rid, id, status, status_before_delete FROM agent_memory_lock_records($1, $2::text[])',
    [team.space, unique],
  );
  const found = new Map(rows.rows.map((r) => [r.id, r]));
  for (const id of unique) {
    const row = found.get(id);
    if (!row) throw new AgentMemoryError('NOT_FOUND', `Cannot ${operation} '${id}': no such record in space '${team.space}'. Nothing was changed.`, { id });
    if (!TransitionRules[operation].includes(row.status)) {
      throw new AgentMemoryError('INVALID_STATE', `Cannot ${operation} '${id}': it is ${row.status} (${operation} applies to ${TransitionRules[operation].join(' or ')} records). Nothing was changed.`, { id, status: row.status });
    }
  }
  const audit: AuditRow[] = [];
  const purged: number[] = [];
  const changed: { rid: number; next: RecordStatus; before: RecordStatus | null }[] = [];
  for (const id of unique) {
    const row = found.get(id)!;
    const evidence = { from: row.status, ...(context.evidence?.[id] ?? {}) };
    if (operation === 'purge') {
      purged.push(row.rid);
      audit.push({ operation: 'purge', recordId: id, trigger, reason: context.reason ?? '', evidence });
      continue;
    }
    const next: RecordStatus = operation === 'approve' ? 'active' : operation === 'unapprove' ? 'pending' : operation === 'restore' ? (row.status_before_delete ?? 'active') : 'deleted';
    changed.push({ rid: row.rid, next, before: next === 'deleted' ? row.status : null });
    audit.push({ operation, recordId: id, trigger, reason: context.reason ?? '', evidence: { ...evidence, to: next } });
  }
  // The audit first, then one statement for every record of the step (the keyword statistics' triggers run once per
  // statement, migration 4), so the statistics' rows it locks are held until the commit only.
  await team.writeAuditRows(c, audit);
  if (purged.length > 0) await c.query('SELECT agent_memory_purge($1, $2::bigint[])', [team.space, purged]);
  if (changed.length > 0) {
    await c.query('SELECT agent_memory_set_status($1, $2::bigint[], $3::text[], $4::text[], $5)', [team.space, changed.map((x) => x.rid), changed.map((x) => x.next), changed.map((x) => x.before), now]);
  }
}
