/**
 * The correctness verdict of a task, from ONE source: the task log row. The task pipeline
 * (toasts, stream summary) and the dashboard both read it through `taskVerdict`, so they
 * always agree. The gold verdict (a gold answer checked the task) stands apart from the
 * human's approval: approving or rejecting a gold-checked record never turns its "wrong"
 * into "correct"; the approval is reported separately (`humanDecision`).
 */
import type { TaskRow } from '../memory/sqlite/task-log';
import type { TaskVerdict } from './task-evaluators';
import { loggedNoGold } from './gold-answer';

/** The correctness verdict an evaluation stands for (kept apart from the execution outcome). */
export function verdictOf(evaluation: { utility: number | null; evaluator: string | null }): TaskVerdict {
  if (evaluation.utility === null) return { kind: 'unknown', source: evaluation.evaluator === 'strict:human' ? 'human' : 'none' };
  const yes = evaluation.utility >= 0.5;
  switch (evaluation.evaluator) {
    case 'strict:ground-truth': return { kind: yes ? 'correct' : 'wrong', source: 'gold' };
    case 'strict:human': return { kind: yes ? 'approved' : 'rejected', source: 'human' };
    case 'coarse:judge': return { kind: yes ? 'judged-correct' : 'judged-wrong', source: 'judge' };
    default: return { kind: 'unknown', source: 'none' };
  }
}

type VerdictRow = Pick<TaskRow, 'utility' | 'evaluator' | 'log'>;

/** The gold answer's Φ the pipeline logged (`log.correct`), or null when no gold answer checked the task. */
function goldUtility(row: VerdictRow): number | null {
  const correct = row.log.correct;
  return typeof correct === 'number' ? correct : null;
}

/**
 * The task's verdict: the gold answer's when one checked it (whatever the human did later),
 * else the verdict behind its Φ (the human's, the LLM judge's), else unknown — `source:
 * 'human'` when the task's Φ waits for the user's approval, `source: 'no-gold'` when its gold
 * answer was empty, null or a lone 0 on this database (never correct, whoever approves it).
 *
 * @example
 * taskVerdict(tasks.get(7)!) // { kind: 'wrong', source: 'gold' }, also after the user approved the record
 */
export function taskVerdict(row: VerdictRow): TaskVerdict {
  // A gold answer that is empty, null or a lone 0 on this database checks nothing: whatever Φ says, the task is not checked.
  if (loggedNoGold(row.log) !== undefined) return { kind: 'unknown', source: 'no-gold' };
  const gold = goldUtility(row);
  if (gold !== null) return verdictOf({ utility: gold, evaluator: 'strict:ground-truth' });
  const logged = row.log.evaluation as { evaluator?: unknown } | undefined;
  const evaluator = row.evaluator ?? (typeof logged?.evaluator === 'string' ? logged.evaluator : null);
  return verdictOf({ utility: row.utility, evaluator });
}

/**
 * The user's approval or rejection of the task's record, or null: the task's Φ when it is the
 * human verdict, else the decision logged beside a gold Φ (`log.decision`, see
 * core/app/memory-policies.ts: a gold-checked task keeps the gold answer's Φ).
 */
export function humanDecision(row: Pick<TaskRow, 'utility' | 'evaluator' | 'log'>): 'approved' | 'rejected' | null {
  if (row.evaluator === 'strict:human' && row.utility !== null) return row.utility >= 0.5 ? 'approved' : 'rejected';
  const logged = row.log.decision;
  return logged === 'approved' || logged === 'rejected' ? logged : null;
}

/**
 * Whether the task waits for the user: its verdict waits for a human (or no gold answer could
 * check it) and its record is still pending. A task whose model call failed (no record) or whose record was merged into one the
 * user already decided does not wait for anything.
 */
export function awaitsApproval(row: VerdictRow & Pick<TaskRow, 'recordId'>, recordStatus: (id: string) => string | undefined): boolean {
  const v = taskVerdict(row);
  return v.kind === 'unknown' && (v.source === 'human' || v.source === 'no-gold') && row.recordId !== null && recordStatus(row.recordId) === 'pending';
}

/** How many verdicts of each kind (the stream summary and the dashboard count the same way). */
export interface VerdictCounts {
  /** Checked against a gold answer. */
  correct: number;
  wrong: number;
  /** The user's verdict (no gold answer). */
  approved: number;
  rejected: number;
  /** The LLM judge's opinion. */
  judgedCorrect: number;
  judgedWrong: number;
  /** Nobody checked (yet). */
  unchecked: number;
  /** Of the unchecked: the gold answer is empty, null or a lone 0 on this database (cannot check). */
  noGoldAnswer: number;
}

export function countVerdicts(verdicts: Iterable<TaskVerdict>): VerdictCounts {
  const c: VerdictCounts = { correct: 0, wrong: 0, approved: 0, rejected: 0, judgedCorrect: 0, judgedWrong: 0, unchecked: 0, noGoldAnswer: 0 };
  for (const v of verdicts) {
    switch (v.kind) {
      case 'correct': c.correct++; break;
      case 'wrong': c.wrong++; break;
      case 'approved': c.approved++; break;
      case 'rejected': c.rejected++; break;
      case 'judged-correct': c.judgedCorrect++; break;
      case 'judged-wrong': c.judgedWrong++; break;
      case 'unknown':
        c.unchecked++;
        if (v.source === 'no-gold') c.noGoldAnswer++;
        break;
    }
  }
  return c;
}

/** Whether a verdict says the answer is right (true), wrong (false), or nobody checked it (null). */
export function verdictIsCorrect(v: TaskVerdict): boolean | null {
  if (v.kind === 'unknown') return null;
  return v.kind === 'correct' || v.kind === 'approved' || v.kind === 'judged-correct';
}
