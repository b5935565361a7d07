/**
 * Identical records (same normalised question and code) are merged on addition into one
 * record with a count (`merged_count`), instead of showing up twice. The key is computed
 * here; rows without one (written before schema v5, or by import/seed) get theirs lazily
 * the first time an addition looks for a twin.
 */
import { createHash } from 'node:crypto';
import type { MemoryStore } from './sqlite/store';
import type { RecordStatus, Trigger } from './types';

/** Lower case, whitespace collapsed, trailing punctuation dropped: "How many  patients?" ≡ "how many patients". */
export function normaliseQuestion(question: string): string {
  return question.toLowerCase().replace(/\s+/g, ' ').trim().replace(/[\s?.!]+$/, '');
}

/** Code with trailing spaces and blank lines dropped (layout noise, not a different program). */
export function normaliseCode(code: string): string {
  return code
    .split('\n')
    .map((l) => l.replace(/\s+$/, ''))
    .filter((l) => l !== '')
    .join('\n');
}

export function dedupKey(question: string, code: string): string {
  return createHash('sha256').update(normaliseQuestion(question)).update('\u0000').update(normaliseCode(code)).digest('hex');
}

/** Fills the key of rows that have none (a no-op once every row has one). */
function backfillKeys(store: MemoryStore): void {
  const db = store.connectionForQueries();
  const rows = db.prepare('SELECT rid, question, code FROM records WHERE dedup_key IS NULL').all() as { rid: number; question: string; code: string }[];
  if (rows.length === 0) return;
  const set = db.prepare('UPDATE records SET dedup_key = ? WHERE rid = ?');
  db.transaction(() => {
    for (const r of rows) set.run(dedupKey(r.question, r.code), r.rid);
  })();
}

/** The active or pending record with the same normalised question and code, if any. */
export function findIdentical(store: MemoryStore, question: string, code: string): { id: string; status: RecordStatus; mergedCount: number } | undefined {
  backfillKeys(store);
  const row = store
    .connectionForQueries()
    .prepare("SELECT id, status, merged_count AS n FROM records WHERE dedup_key = ? AND status IN ('active', 'pending') ORDER BY rid LIMIT 1")
    .get(dedupKey(question, code)) as { id: string; status: RecordStatus; n: number } | undefined;
  return row ? { id: row.id, status: row.status, mergedCount: row.n } : undefined;
}

/** Counts one more identical addition on `id` (with an audit entry); returns the new count. */
export function mergeIdentical(store: MemoryStore, id: string, context: { trigger: Trigger; reason: string; taskIndex: number }): number {
  const now = new Date().toISOString();
  const db = store.connectionForQueries();
  return db.transaction(() => {
    db.prepare('UPDATE records SET merged_count = merged_count + 1, updated_at = ? WHERE id = ?').run(now, id);
    const n = (db.prepare('SELECT merged_count AS n FROM records WHERE id = ?').get(id) as { n: number }).n;
    store.writeAudit('add', id, context.trigger, `merged an identical addition (now ×${n}): ${context.reason}`, { merged: true, mergedCount: n, taskIndex: context.taskIndex });
    return n;
  })();
}
