import type { Database } from '../database';
import type { MemoryStore } from '../store';
import { prepared } from './deletion-candidates';
import type { Trigger } from '../../types';

/**
 * The SQL of what the user reviews (schema v8): deletions proposed by an automatic
 * rule under `deletion.review = propose`, the records the user kept (exempt for a
 * while), and the revalidation state of each record's program against the data
 * (fingerprint, last result, stale). The store owns its SQL; src/core/policy and
 * src/core/revalidation build on these named queries. Writes that change what the
 * explorer shows fire one `review` change event after the commit.
 */

/** A deletion an automatic rule proposed, awaiting the user's confirm or keep. */
export interface ProposalRow {
  recordId: string;
  question: string;
  policy: string;
  rule: string;
  evidence: Record<string, number | string | null>;
  trigger: Trigger;
  taskIndex: number;
  proposedAt: string;
}

export interface NewProposal {
  recordId: string;
  policy: string;
  rule: string;
  evidence: Record<string, number | string | null>;
  trigger: Trigger;
  taskIndex: number;
}

/** How a program's re-run against the data ended. */
export const CHECK_STATES = ['unchanged', 'changed', 'failing'] as const;
export type CheckState = (typeof CHECK_STATES)[number];

/** A record whose program can be re-run (active, succeeded when recorded, a runner language). */
export interface RunnableRow {
  rid: number;
  id: string;
  code: string;
  language: 'python' | 'javascript';
  answer: string;
  fingerprint: string | null;
  stale: boolean;
}

export interface CheckWrite {
  rid: number;
  fingerprint: string;
  state: CheckState;
  stale: boolean;
  answer: string | null;
  error: string | null;
}

export interface CheckRow {
  recordId: string;
  fingerprint: string | null;
  state: CheckState | null;
  stale: boolean;
  error: string | null;
  checkedAt: string;
}

// The proposals drive both joins below and each record is looked up by rid: CROSS JOIN fixes
// that order. Left to itself SQLite scans the covering index of every record and looks each up
// among the (few) proposals: about 10 ms per task at 100k records, run after every task.
/** Open proposals on active records, oldest first. */
export const PROPOSALS_SQL = `SELECT r.id, r.question, p.policy, p.rule, p.evidence, p.trigger, p.task_index, p.proposed_at
  FROM deletion_proposals p CROSS JOIN records r ON r.rid = p.rid WHERE r.status = 'active' ORDER BY p.proposed_at, p.rid`;
/** Proposals whose record was retrieved after the task that proposed it. */
export const STALE_PROPOSALS_SQL = `SELECT r.id, p.policy, p.rule, p.task_index, r.last_retrieved_task
  FROM deletion_proposals p CROSS JOIN records r ON r.rid = p.rid
  WHERE r.last_retrieved_task IS NOT NULL AND r.last_retrieved_task > p.task_index`;

export function reviewQueries(store: MemoryStore): ReviewQueries {
  return new ReviewQueries(store);
}

export class ReviewQueries {
  private readonly db: Database;

  constructor(private readonly store: MemoryStore) {
    this.db = store.connectionForQueries();
  }

  // ------------------------------------------------------------ proposals

  /** Open proposals on records that are still active, oldest proposal first. */
  proposals(): ProposalRow[] {
    const rows = prepared(this.db, PROPOSALS_SQL).all() as { id: string; question: string; policy: string; rule: string; evidence: string; trigger: Trigger; task_index: number; proposed_at: string }[];
    return rows.map((r) => ({ recordId: r.id, question: r.question, policy: r.policy, rule: r.rule, evidence: JSON.parse(r.evidence) as ProposalRow['evidence'], trigger: r.trigger, taskIndex: r.task_index, proposedAt: r.proposed_at }));
  }

  /** Stores proposals (one per record; a record already proposed keeps its first proposal); returns the ids newly proposed. */
  propose(items: readonly NewProposal[]): string[] {
    if (items.length === 0) return [];
    const now = new Date().toISOString();
    const added = this.store.atomically(() => {
      const out: string[] = [];
      for (const p of items) {
        const rid = this.store.ridOf(p.recordId);
        if (rid === undefined) continue;
        const info = prepared(this.db, 'INSERT OR IGNORE INTO deletion_proposals(rid, policy, rule, evidence, trigger, task_index, proposed_at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(rid, p.policy, p.rule, JSON.stringify(p.evidence), p.trigger, p.taskIndex, now);
        if (info.changes > 0) {
          out.push(p.recordId);
          this.store.writeAudit('propose', p.recordId, p.trigger, `${p.policy} deletion proposed at task ${p.taskIndex}; awaits your confirm or keep`, { policy: p.policy, rule: p.rule, taskIndex: p.taskIndex, ...p.evidence });
        }
      }
      return out;
    });
    if (added.length > 0) this.store.fireChange({ kind: 'review', ids: added });
    return added;
  }

  /** Proposals of these records, by id (records without one are absent). */
  proposalsOf(ids: readonly string[]): Map<string, ProposalRow> {
    const wanted = new Set(ids);
    return new Map(this.proposals().filter((p) => wanted.has(p.recordId)).map((p) => [p.recordId, p]));
  }

  /**
   * Withdraws the proposals whose evidence no longer holds: the record was retrieved after the
   * task that proposed it (its retrieval count, recency and utility have moved on; a rule that
   * still finds it proposes it again with new evidence). Each withdrawal is audited; returns the ids.
   * Runs after every task that retrieved something (the memory manager's afterTask).
   */
  withdrawStale(): string[] {
    const stale = prepared(this.db, STALE_PROPOSALS_SQL).all() as { id: string; policy: string; rule: string; task_index: number; last_retrieved_task: number }[];
    if (stale.length === 0) return [];
    const ids = stale.map((r) => r.id);
    this.store.atomically(() => {
      prepared(this.db, 'DELETE FROM deletion_proposals WHERE rid IN (SELECT rid FROM records WHERE id IN (SELECT value FROM json_each(?)))').run(JSON.stringify(ids));
      for (const r of stale) {
        this.store.writeAudit('withdraw', r.id, 'policy', `${r.policy} deletion proposed at task ${r.task_index} withdrawn: the record was retrieved at task ${r.last_retrieved_task}, after its evidence`, { policy: r.policy, rule: r.rule, proposedAt: r.task_index, retrievedAt: r.last_retrieved_task });
      }
    });
    this.store.fireChange({ kind: 'review', ids });
    return ids;
  }

  /** Drops the proposals of these records (after a confirm, or when the user deleted them another way). */
  dropProposals(ids: readonly string[]): void {
    if (ids.length === 0) return;
    prepared(this.db, 'DELETE FROM deletion_proposals WHERE rid IN (SELECT rid FROM records WHERE id IN (SELECT value FROM json_each(?)))').run(JSON.stringify(ids));
    this.store.fireChange({ kind: 'review', ids: [...ids] });
  }

  // ------------------------------------------------------------ exemptions

  /** Marks records kept until task `untilTask` (exclusive): no rule proposes or deletes them before. */
  exempt(ids: readonly string[], untilTask: number): void {
    const now = new Date().toISOString();
    for (const id of ids) {
      const rid = this.store.ridOf(id);
      if (rid !== undefined) prepared(this.db, 'INSERT OR REPLACE INTO deletion_exemptions(rid, until_task, kept_at) VALUES (?, ?, ?)').run(rid, untilTask, now);
    }
  }

  /** The ids among `ids` that are exempt at task `taskIndex`. */
  exemptAmong(ids: readonly string[], taskIndex: number): Set<string> {
    if (ids.length === 0) return new Set();
    const rows = prepared(this.db, 'SELECT r.id FROM deletion_exemptions e JOIN records r ON r.rid = e.rid WHERE e.until_task > ? AND r.id IN (SELECT value FROM json_each(?))').all(taskIndex, JSON.stringify(ids)) as { id: string }[];
    return new Set(rows.map((r) => r.id));
  }

  // ------------------------------------------------------------ revalidation

  /** Active records whose program can be re-run: recorded as a success, in a runner language. */
  runnable(): RunnableRow[] {
    const rows = prepared(
      this.db,
      `SELECT r.rid, r.id, r.code, r.language, COALESCE(c.answer, r.answer) AS answer, c.fingerprint, COALESCE(c.stale, 0) AS stale
       FROM records r LEFT JOIN record_checks c ON c.rid = r.rid
       WHERE r.status = 'active' AND r.outcome = 'success' AND r.language IN ('python', 'javascript') ORDER BY r.rid`,
    ).all() as (Omit<RunnableRow, 'stale'> & { stale: number })[];
    return rows.map((r) => ({ ...r, stale: r.stale === 1 }));
  }

  /** Writes re-run results (one transaction) and one audit entry per record whose staleness changed. */
  writeChecks(checks: readonly CheckWrite[]): void {
    if (checks.length === 0) return;
    const now = new Date().toISOString();
    const changed = this.store.atomically(() => {
      const out: string[] = [];
      for (const c of checks) {
        const before = prepared(this.db, 'SELECT stale FROM record_checks WHERE rid = ?').get(c.rid) as { stale: number } | undefined;
        prepared(this.db, 'INSERT OR REPLACE INTO record_checks(rid, fingerprint, state, stale, answer, error, checked_at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(c.rid, c.fingerprint, c.state, c.stale ? 1 : 0, c.answer, c.error, now);
        if ((before?.stale === 1) !== c.stale) {
          const id = this.store.idOf(c.rid);
          if (!id) continue;
          out.push(id);
          const reason = c.stale ? `marked stale: its program now fails on the data (${c.error ?? c.state})` : 'no longer stale: its program re-ran clean';
          this.store.writeAudit('revalidate', id, 'user', reason, { state: c.state, fingerprint: c.fingerprint, ...(c.error ? { error: c.error } : {}) });
        }
      }
      return out;
    });
    this.store.fireChange({ kind: 'review', ids: changed });
  }

  /** Records the data fingerprint a record's program just ran against (a fresh run: not stale). */
  setFingerprint(id: string, fingerprint: string): void {
    const rid = this.store.ridOf(id);
    if (rid === undefined) return;
    prepared(this.db, "INSERT OR REPLACE INTO record_checks(rid, fingerprint, state, stale, answer, error, checked_at) VALUES (?, ?, NULL, 0, NULL, NULL, ?)").run(rid, fingerprint, new Date().toISOString());
  }

  /** Clears the stale mark of these records (the user approved them again); audited. */
  clearStale(ids: readonly string[], trigger: Trigger = 'user'): string[] {
    const stale = this.staleIds();
    const cleared = ids.filter((id) => stale.has(id));
    if (cleared.length === 0) return [];
    this.store.atomically(() => {
      for (const id of cleared) {
        prepared(this.db, 'UPDATE record_checks SET stale = 0 WHERE rid = (SELECT rid FROM records WHERE id = ?)').run(id);
        this.store.writeAudit('revalidate', id, trigger, 'approved again: no longer stale', {});
      }
    });
    this.store.fireChange({ kind: 'review', ids: cleared });
    return cleared;
  }

  /** Ids of the stale records (their program fails on the current data). */
  staleIds(): Set<string> {
    const rows = prepared(this.db, 'SELECT r.id FROM record_checks c JOIN records r ON r.rid = c.rid WHERE c.stale = 1').all() as { id: string }[];
    return new Set(rows.map((r) => r.id));
  }

  /** The last check of a record (undefined: never checked). */
  checkOf(id: string): CheckRow | undefined {
    const row = prepared(this.db, 'SELECT c.fingerprint, c.state, c.stale, c.error, c.checked_at FROM record_checks c JOIN records r ON r.rid = c.rid WHERE r.id = ?').get(id) as
      | { fingerprint: string | null; state: CheckState | null; stale: number; error: string | null; checked_at: string }
      | undefined;
    return row ? { recordId: id, fingerprint: row.fingerprint, state: row.state, stale: row.stale === 1, error: row.error, checkedAt: row.checked_at } : undefined;
  }
}
