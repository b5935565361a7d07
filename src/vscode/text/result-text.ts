/**
 * How a task result reads to a user: the execution outcome ("ran") kept apart from the
 * correctness verdict ("correct"), and which model produced the answer. No vscode import.
 */
import { countVerdicts, humanDecision, taskVerdict } from '../../core/agent/task-verdict';
import type { AgentTaskResult, ModelKind, TaskVerdict } from '../../core/app/types';
import type { TaskRow } from '../../core/memory/sqlite/task-log';
import type { RecordStatus } from '../../core/memory/types';

type Outcome = AgentTaskResult['outcome'];

const OUTCOME_TEXT: Record<Outcome, string> = { success: 'ran', error: 'error', timeout: 'timed out', 'no-answer': 'no answer' };

/** `ran`, `error`, `timed out`, `no answer`: what happened when the program was executed. */
export function outcomeText(outcome: Outcome): string {
  return OUTCOME_TEXT[outcome];
}

/** The outcome text of a task-log row's outcome column (a free string there), `–` when none. */
export function loggedOutcomeText(outcome: string | null): string {
  return outcome !== null && outcome in OUTCOME_TEXT ? OUTCOME_TEXT[outcome as Outcome] : outcome ?? '–';
}

/** Whether the answer is right, and who said so. */
export function verdictText(verdict: TaskVerdict): string {
  switch (verdict.kind) {
    case 'correct':
      return 'correct (gold answer)';
    case 'wrong':
      return 'wrong (gold answer)';
    case 'approved':
      return 'approved by you';
    case 'rejected':
      return 'rejected by you';
    case 'judged-correct':
      return 'judged correct (LLM judge)';
    case 'judged-wrong':
      return 'judged wrong (LLM judge)';
    case 'unknown':
      if (verdict.source === 'no-gold') return 'not checked: no gold answer on this database';
      return verdict.source === 'human' ? 'not checked yet (awaits your approval)' : 'not checked';
  }
}

/**
 * A task's verdict as it stands now, read from its task-log row (the one definition,
 * core/agent/task-verdict.ts) with the user's decision beside a gold verdict:
 * `correct (gold answer) · awaits your approval`, `wrong (gold answer) · approved by you`.
 * `recordStatus` is the status of the task's record now (pending → awaits approval).
 */
export function currentVerdictText(row: Pick<TaskRow, 'utility' | 'evaluator' | 'log'>, recordStatus: RecordStatus | null | undefined): string {
  const verdict = taskVerdict(row);
  const decision = humanDecision(row);
  if (recordStatus === 'pending') return verdict.kind === 'unknown' ? verdictText(verdict) : `${verdictText(verdict)} · awaits your approval`;
  if (verdict.kind === 'unknown') return verdict.source === 'human' ? 'not checked (no gold answer)' : verdictText(verdict);
  return decision && verdict.source !== 'human' ? `${verdictText(verdict)} · ${decision} by you` : verdictText(verdict);
}

/** The one-word mark of a gold or judge verdict for a narrow tree row (`correct`, `wrong`), or ''. */
export function verdictMark(verdict: TaskVerdict): string {
  if (verdict.source === 'gold') return verdict.kind === 'correct' ? 'correct' : 'wrong';
  if (verdict.source === 'judge') return verdict.kind === 'judged-correct' ? 'judged correct' : 'judged wrong';
  return '';
}

const MODEL_TEXT: Record<ModelKind, string> = { reuse: 'reuse model (offline, adapts a memory record)', llm: 'LLM', simulated: 'simulation' };

/** `reuse model (offline…)`, `LLM gpt-4o-mini`, `simulation`. */
export function modelText(kind: ModelKind, model: string): string {
  return kind === 'llm' ? `LLM ${model}` : MODEL_TEXT[kind];
}

/** Short model tag for a toast or a tree description: `reuse`, `LLM`, `simulation`. */
export function modelTag(kind: ModelKind): string {
  return kind === 'llm' ? 'LLM' : kind === 'reuse' ? 'reuse model' : 'simulation';
}

/**
 * The addition reason in words; where the gold answer stood in for the human under strict
 * addition, says so ("approved by gold answer").
 */
export function additionText(result: Pick<AgentTaskResult, 'addition' | 'verdict'>): string {
  const a = result.addition;
  const byGold = decidedByGold(result);
  if (byGold) return a.added ? 'added to memory: approved by gold answer (stands in for you in a stream)' : 'not added: rejected by gold answer (stands in for you in a stream)';
  if (a.added && a.status === 'pending') return 'added as pending: approve or reject it';
  return a.added ? `added to memory (${a.reason})` : `not added (${a.reason})`;
}

/** True when strict addition took the gold answer's verdict in place of the human's. */
export function decidedByGold(result: Pick<AgentTaskResult, 'addition' | 'verdict'>): boolean {
  return result.verdict.source === 'gold' && result.addition.reason.includes('per strict:ground-truth');
}

/** `Task 5: ran · correct (gold answer) · answer [[47]] · reuse model`. */
export function resultSummary(result: AgentTaskResult, maxAnswer = 80): string {
  const answer = truncate(JSON.stringify(result.answer) ?? 'none', maxAnswer);
  const parts = [outcomeText(result.outcome), verdictText(result.verdict), `answer ${answer}`, modelTag(result.modelKind)];
  return `Task ${result.taskIndex}: ${parts.join(' · ')}`;
}

export interface StreamCounts {
  total: number;
  ran: number;
  errors: number;
  timeouts: number;
  noAnswer: number;
  correct: number;
  wrong: number;
  judgedCorrect: number;
  judgedWrong: number;
  unchecked: number;
  /** Of the unchecked: the gold answer was empty, null or a lone 0 on this database. */
  noGoldAnswer: number;
  /** New records left pending (one per record: a task merged into a pending record adds none). */
  pending: number;
  /** Tasks whose answer was identical to a stored record (its count grew; no new record). */
  merged: number;
  addedByGold: number;
}

export function streamCounts(results: readonly AgentTaskResult[]): StreamCounts {
  const n = (f: (r: AgentTaskResult) => boolean) => results.filter(f).length;
  const v = countVerdicts(results.map((r) => r.verdict));
  return {
    total: results.length,
    ran: n((r) => r.outcome === 'success'),
    errors: n((r) => r.outcome === 'error'),
    timeouts: n((r) => r.outcome === 'timeout'),
    noAnswer: n((r) => r.outcome === 'no-answer'),
    // Counted as the dashboard counts them (core/agent/task-verdict.ts).
    correct: v.correct,
    wrong: v.wrong,
    judgedCorrect: v.judgedCorrect,
    judgedWrong: v.judgedWrong,
    unchecked: v.unchecked,
    noGoldAnswer: v.noGoldAnswer,
    pending: n((r) => r.addition.status === 'pending' && r.addition.merged !== true),
    merged: n((r) => r.addition.merged === true),
    addedByGold: n((r) => r.addition.added && r.addition.merged !== true && decidedByGold(r)),
  };
}

/**
 * `30 ran · 21 correct · 9 wrong (checked against gold answers)`; with failures
 * `30 tasks: 27 ran, 2 errors, 1 timeout · …`; unchecked answers are named, pending records pointed at.
 */
export function streamSummary(results: readonly AgentTaskResult[]): string {
  const c = streamCounts(results);
  const failures = [plural(c.errors, 'error'), plural(c.timeouts, 'timeout'), c.noAnswer ? `${c.noAnswer} without an answer` : ''].filter(Boolean);
  const parts = [failures.length ? `${c.total} tasks: ${c.ran} ran, ${failures.join(', ')}` : `${c.total} ran`];
  if (c.correct + c.wrong > 0) parts.push(`${c.correct} correct · ${c.wrong} wrong (checked against gold answers)`);
  if (c.judgedCorrect + c.judgedWrong > 0) parts.push(`${c.judgedCorrect} judged correct · ${c.judgedWrong} judged wrong (LLM judge)`);
  if (c.unchecked > 0) parts.push(`${c.unchecked} not checked (${c.noGoldAnswer > 0 ? `${c.noGoldAnswer} without a gold answer on this database` : 'no gold answer'})`);
  let text = parts.join(' · ');
  if (c.pending > 0) text += `. ${c.pending} record(s) pending: approve or reject them in the explorer`;
  if (c.addedByGold > 0) text += `. ${c.addedByGold} added as approved by gold answer`;
  if (c.merged > 0) text += `. ${c.merged} merged into an identical record already in memory (its count grew, no new record)`;
  return text;
}

function plural(n: number, word: string): string {
  return n === 0 ? '' : `${n} ${word}${n === 1 ? '' : 's'}`;
}

export function truncate(text: string, n: number): string {
  return text.length > n ? `${text.slice(0, n - 1)}…` : text;
}

/** A count of times as every view writes it: `6×` (the multiplication sign, never `6x`). */
export function timesText(count: number): string {
  return `${count}×`;
}

/**
 * A retrieval's rank as people count: the first demonstration is 1 (the task log stores ranks
 * from 0; the result document lists the demonstrations as 1., 2., …: one convention on screen).
 */
export function rankText(rank: number): string {
  return String(rank + 1);
}
