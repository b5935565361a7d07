/**
 * Undo for the last approval, rejection, deletion or restore. Each is undone by its inverse
 * status change (the store keeps the audit trail of both). Purges cannot be undone.
 */
import type { AgentMemoryApp } from '../core/app/types';
import { AgentMemoryError } from '../core/errors';

export type UndoableOp = 'approve' | 'reject' | 'delete' | 'restore';

export interface UndoEntry {
  op: UndoableOp;
  ids: string[];
}

const PAST: Record<UndoableOp, string> = { approve: 'approval', reject: 'rejection', delete: 'deletion', restore: 'restore' };

/** What undoing `op` does, in words: `approval of 2 record(s)`. */
export function undoLabel(entry: UndoEntry): string {
  return `${PAST[entry.op]} of ${entry.ids.length} record(s)`;
}

/**
 * Applies the inverse change: approve → pending again and reject → pending again (each also
 * takes back the human verdict's Φ); delete → restored; restore →
 * deleted again, within the memory floor like any deletion. Returns the floor's message
 * when it kept some of the restored records active, else null.
 */
export function applyInverse(app: AgentMemoryApp, entry: UndoEntry): string | null {
  switch (entry.op) {
    case 'approve':
      // Also takes back the Φ the approval gave the task (the human verdict), in one transaction.
      app.unapprove(entry.ids);
      return null;
    case 'reject':
      // pending again, and the rejection's Φ taken back.
      app.unreject(entry.ids);
      return null;
    case 'delete':
      // restore returns each record to the status it had before.
      app.restore(entry.ids);
      return null;
    case 'restore':
      return app.deleteRecords(entry.ids, 'restore undone').message;
  }
}

/** One level of undo: the last undoable change. */
export class UndoHistory {
  private last: UndoEntry | undefined;

  record(entry: UndoEntry): void {
    if (entry.ids.length > 0) this.last = { op: entry.op, ids: [...entry.ids] };
  }

  get peek(): UndoEntry | undefined {
    return this.last;
  }

  /**
   * Undoes the last change; throws a clear error when there is none or it no longer applies.
   * `floorMessage`: the memory floor kept records the undo would have deleted (else null).
   */
  undo(app: AgentMemoryApp): UndoEntry & { floorMessage: string | null } {
    const entry = this.last;
    if (!entry) throw new AgentMemoryError('NOT_FOUND', 'Nothing to undo: approve, reject, delete or restore records first.');
    this.last = undefined;
    let floorMessage: string | null;
    try {
      floorMessage = applyInverse(app, entry);
    } catch (error) {
      if (error instanceof AgentMemoryError && (error.code === 'INVALID_STATE' || error.code === 'NOT_FOUND')) {
        throw new AgentMemoryError(error.code, `Cannot undo the ${undoLabel(entry)}: the records changed since (${error.message})`);
      }
      throw error;
    }
    return { ...entry, floorMessage };
  }
}
