/**
 * Who takes a reported outcome, for the memory tools (both backends): the records of the
 * retrieval the client names in `used` (checked to be among that retrieval's results), else
 * the ones the task's recorded code follows (the memory manager's `followed` attribution), else
 * none: never every record a search returned. And what a search shows of a record's past:
 * its outcome and, when one exists, the verdict on the task that made it.
 *
 * A memory_search is exploratory until an outcome is reported for it: its task log names what
 * it returned (`counted: false`) but no retrieval row is written and no record's retrieval count
 * moves, so exploratory searches feed neither the periodic nor the history rule. The first
 * memory_record or memory_feedback on it writes the rows (countedLog).
 */
import { AgentMemoryError } from '../errors';
import { taskVerdict } from '../agent/task-verdict';
import type { TaskVerdict } from '../agent/task-evaluators';
import type { MemoryRecord } from '../memory/types';
import type { TaskRow } from '../memory/sqlite/task-log';
import type { TaskCredit } from '../policy/memory-manager-types';

/**
 * The `used` ids of a call, checked against what the retrieval returned (duplicates dropped);
 * undefined when the client did not name any. An id the retrieval did not return is INVALID_INPUT.
 */
export function checkUsed(used: readonly string[] | undefined, returned: readonly { recordId: string }[], retrievalId: string, tool: string): string[] | undefined {
  if (used === undefined) return undefined;
  const ids = new Set(returned.map((d) => d.recordId));
  const unknown = [...new Set(used)].filter((id) => !ids.has(id));
  if (unknown.length > 0) {
    const list = unknown.map((id) => `'${id}'`).join(', ');
    throw new AgentMemoryError('INVALID_INPUT', `Invalid arguments for ${tool} (used: ${list} ${unknown.length === 1 ? 'was' : 'were'} not among the results of memory_search ${retrievalId}; name only ids that search returned). Nothing was written.`, { unknown });
  }
  return [...new Set(used)];
}

/** `used` on a memory_record without a retrievalId: there is no retrieval to take it from. */
export function usedWithoutRetrieval(): AgentMemoryError {
  return new AgentMemoryError('INVALID_INPUT', 'Invalid arguments for memory_record (used: names records of a memory_search, so it needs that search\'s retrievalId). Nothing was written.');
}

/**
 * The credit of an outcome: the named records; else those the task's code follows; without code, none.
 * `code` is the code the task produced (memory_record's, or the one a memory_record stored on the retrieval).
 */
export function creditOf(used: readonly string[] | undefined, code: string | null): TaskCredit {
  if (used !== undefined) return { used };
  return code === null ? { used: [] } : 'followed';
}

/** What memory_feedback says about its credit when that is not simply "the records you named". */
export function feedbackNote(used: readonly string[] | undefined, code: string | null, returned: number, credited: number): string | undefined {
  if (used !== undefined) return undefined;
  if (code === null) {
    return returned === 0
      ? undefined
      : 'No record was credited: name the results you used with used, or record the task (memory_record with this retrievalId) so credit can follow its code. The outcome is kept on the retrieval.';
  }
  return credited === returned ? undefined : `Credited the ${credited} of ${returned} returned record(s) that the recorded code follows; name the results you used with used to credit others.`;
}

/** The log of a search task once an outcome arrived for it (its retrievals are then counted). */
export function countedLog(log: Record<string, unknown>): Record<string, unknown> {
  return { ...log, counted: true };
}

/** Whether the search behind a task log still waits for its retrievals to be counted (searches before exploratory ones existed were counted when they ran). */
export function awaitsCount(log: { counted?: boolean }): boolean {
  return log.counted === false;
}

/** The verdict on the task that made a record (tests, a human, the LLM judge), when one exists. */
export function recordVerdict(record: MemoryRecord, task: (index: number) => Pick<TaskRow, 'utility' | 'evaluator' | 'log' | 'recordId'> | undefined): TaskVerdict | undefined {
  const index = madeInTask(record);
  if (index === undefined) return undefined;
  const row = task(index);
  // The task that made this very record (an imported record's task index names another memory's task).
  if (!row || row.recordId !== record.id) return undefined;
  const verdict = taskVerdict(row);
  return verdict.kind === 'unknown' ? undefined : verdict;
}

/** The task that made an agent's record: its createdTask, else the task index its metadata names (the team memory's records). */
export function madeInTask(record: MemoryRecord): number | undefined {
  if (record.provenance !== 'agent') return undefined;
  if (record.createdTask > 0) return record.createdTask;
  const named = record.metadata.taskIndex;
  return typeof named === 'number' && Number.isSafeInteger(named) && named > 0 ? named : undefined;
}
