/**
 * Deletion evidence as sentences with their numbers, e.g.
 * "mean Φ 0.33 over 6 evaluated retrievals ≤ β 0.70". No vscode import.
 */
type Evidence = Record<string, number | string | null | undefined>;

const num = (v: unknown, digits = 2): string => (typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toFixed(digits)) : '–');
const times = (n: unknown): string => (n === 1 ? '1 time' : `${num(n)} times`);

/** The window of a periodic rule, clamped at task 0 (a window longer than the history starts at the beginning). */
export function windowText(e: Evidence): string {
  const end = typeof e.windowEnd === 'number' ? e.windowEnd : 0;
  const start = typeof e.windowStart === 'number' ? e.windowStart : end - Number(e.period ?? 0);
  if (start < 0) return `in all ${end} task(s) so far (shorter than the ${num(e.period)}-task period)`;
  return `in tasks ${start + 1}–${end} (the last ${num(e.period)})`;
}

function periodicSentence(e: Evidence): string {
  return `retrieved ${times(e.retrievalsInWindow ?? 0)} ${windowText(e)} ≤ α ${num(e.alpha)}`;
}

function historySentence(e: Evidence): string {
  const evaluated = e.evaluatedRetrievals ?? e.totalRetrievals;
  // The rule (core/policy/deletion/history.ts): retrieved at least n times and mean Φ ≤ β.
  return `mean Φ ${num(e.meanUtility)} over ${num(evaluated)} evaluated retrieval(s) ≤ β ${num(e.beta)} (judged once retrieved at least n = ${num(e.minRetrievals)} times)`;
}

function forgettingSentence(e: Evidence): string {
  return `retention R = exp(−${num(e.deltaTasks)}/(${num(e.timeScale)}·${num(e.lambda)})) = ${num(e.retention, 3)} < threshold ${num(e.threshold, 3)} (${num(e.deltaTasks)} tasks since last use, λ = 1 + ${num(Number(e.lambda) - 1)} retrievals)`;
}

function capacitySentence(e: Evidence): string {
  return `memory over capacity: ${num(e.activeBefore)} active > capacity ${num(e.capacity)}; this record ranks ${num(e.rank)} by least utility`;
}

/** One sentence per reason the rule gives (periodic+history gives two). */
export function evidenceSentences(rule: string, evidence: Evidence): string[] {
  const parts = rule.split('+');
  const out: string[] = [];
  for (const part of parts) {
    if (part === 'periodic') out.push(periodicSentence(evidence));
    else if (part === 'history') out.push(historySentence(evidence));
    else if (part === 'forgetting') out.push(forgettingSentence(evidence));
    else if (part === 'capacity') out.push(capacitySentence(evidence));
  }
  if (out.length === 0) out.push(`rule ${rule}`);
  return out;
}

/** The record's history in one clause: age, retrievals, last use. */
export function historyClause(e: Evidence): string {
  const last = typeof e.lastRetrievedTask === 'number' ? `last retrieved at task ${e.lastRetrievedTask}` : 'never retrieved';
  return `created at task ${num(e.createdTask)} (${num(e.ageTasks)} tasks ago), retrieved ${times(e.totalRetrievals ?? 0)}, ${last}`;
}

/** The whole evidence as one readable line: reasons first, then the record's history. */
export function evidenceText(rule: string, evidence: Evidence): string {
  const reasons = evidenceSentences(rule, evidence);
  const sentence = reasons.join('; and ');
  return `${sentence[0].toUpperCase()}${sentence.slice(1)}. ${historyClause(evidence)[0].toUpperCase()}${historyClause(evidence).slice(1)}.`;
}
