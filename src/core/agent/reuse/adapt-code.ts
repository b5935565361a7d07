import { diffQuestions, joinTokens } from './question-diff';
import { numericMentions, NumericMention } from './numeric-mentions';
import { questionAgeGroup, reshapeAgeFilter } from './age-filter';
import { addTimeFilter, questionTimeFilter, removeTimeFilters, swapTimeFilter, uniformTimeFilters } from './time-filter';

/** Finds which value of a database column a question mentions (value linking). */
export interface ValueLookup {
  /** `column` is `table.column`; returns the longest value of that column mentioned in `question`, or null. */
  findValue(column: string, question: string): string | null;
}

export interface Substitution {
  from: string;
  to: string;
  kind: 'value' | 'number' | 'decade' | 'relative' | 'time-filter' | 'aggregate';
}

export interface Adaptation {
  code: string;
  substitutions: Substitution[];
}

const SQL_LITERAL = /'((?:[^'\\]|'')+)'/g;
const COLUMN_BEFORE = /([a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*)\s*(?:=|!=|<>|like|in\s*\()\s*$/i;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function norm(s: string): string {
  return s.toLowerCase().replace(/\s+/g, ' ').trim();
}

/**
 * Adapts a remembered program to a new question by swapping the literal values
 * in which the two questions differ (the offline reuse model's core step).
 * String literals compared with a column are re-linked through `lookup` when
 * given, else through the word-level diff of the questions; numbers, decades
 * and relative periods are mapped positionally.
 *
 * @example
 * adaptCode({ question: 'how is danazol taken?', code: `answer = sql("select route from prescriptions where prescriptions.drug = 'danazol'")` },
 *           'how is naproxen taken?').code // → … drug = 'naproxen' …
 */
export function adaptCode(reference: { question: string; code: string }, newQuestion: string, lookup?: ValueLookup): Adaptation {
  const replacements: { pattern: RegExp; to: string; sub: Substitution }[] = [];
  const oldQ = norm(reference.question);
  const changes = diffQuestions(reference.question, newQuestion);
  const seen = new Set<string>();
  for (const m of reference.code.matchAll(SQL_LITERAL)) {
    const literal = m[1];
    const key = norm(literal);
    if (seen.has(key) || /^-?\d+(\.\d+)?$/.test(key) || /^-\d+ (year|month|day)$/.test(key)) continue;
    seen.add(key);
    // Every column the literal is compared with (a union may compare it with several): the first that links a value wins.
    const columns = [...reference.code.matchAll(new RegExp(`'${escapeRegExp(literal)}'`, 'g'))]
      .map((o) => COLUMN_BEFORE.exec(reference.code.slice(Math.max(0, (o.index ?? 0) - 80), o.index))?.[1])
      .filter((c): c is string => c !== undefined);
    let next: string | null = null;
    for (const column of lookup ? columns : []) {
      next = lookup!.findValue(column.toLowerCase(), newQuestion);
      if (next !== null) break;
    }
    if (next === null && oldQ.includes(key)) {
      const change = changes.find((c) => norm(joinTokens(c.from)) === key || norm(c.from.join(' ')) === key);
      if (change && change.to.length > 0) next = joinTokens(change.to).toLowerCase();
    }
    if (next !== null && norm(next) !== key) {
      replacements.push({ pattern: new RegExp(`'${escapeRegExp(literal)}'`, 'g'), to: `'${next.replace(/'/g, "''")}'`, sub: { from: literal, to: next, kind: 'value' } });
    }
  }
  // Time filters are swapped as whole fragments; their years and periods are then not remapped as numbers.
  const timed = uniformTimeFilters(reference.code) !== null && questionTimeFilter(newQuestion) !== null;
  const isTimeMention = (m: NumericMention) => timed && (m.kind === 'relative' || (m.kind === 'number' && m.value >= 2000 && m.value <= 2199));
  // Age groups ("20s", "60 or above") are reshaped as whole conditions; their numbers are not remapped.
  const aged = questionAgeGroup(reference.question) !== null && questionAgeGroup(newQuestion) !== null;
  const ageNumbers = (q: string) => new Set(aged ? [...q.matchAll(/\b(\d{1,3})\s*(?:or|and)\s+(?:above|older|over|more)\b|\b(\d)0s\b/gi)].map((m) => Number(m[1] ?? Number(m[2]) * 10)) : []);
  const oldAges = ageNumbers(reference.question);
  const newAges = ageNumbers(newQuestion);
  const isAgeMention = (m: NumericMention, ages: Set<number>) => (m.kind === 'decade' || m.kind === 'number') && ages.has(m.value);
  const keep = (list: NumericMention[], ages: Set<number> = new Set()) => list.filter((m) => !isTimeMention(m) && !isAgeMention(m, ages));
  replacements.push(...numericReplacements(keep(numericMentions(reference.question), oldAges), keep(numericMentions(newQuestion), newAges)));
  const aggregate = aggregateReplacement(reference.question, newQuestion, reference.code);
  if (aggregate) replacements.push(aggregate);
  let code = applyAll(reference.code, replacements);
  const substitutions = replacements.map((r) => r.sub);
  const swapped = timed ? swapTimeFilter(code, newQuestion) : null;
  if (swapped) {
    code = swapped.code;
    substitutions.push({ from: swapped.from, to: swapped.to, kind: 'time-filter' });
  }
  const age = aged ? reshapeAgeFilter(code, reference.question, newQuestion) : null;
  if (age) {
    code = age.code;
    substitutions.push({ from: age.from, to: age.to, kind: 'value' });
  }
  // The questions differ in whether they filter by time at all: add or remove the filter.
  const oldFilter = questionTimeFilter(reference.question);
  const newFilter = questionTimeFilter(newQuestion);
  if (!oldFilter && newFilter) {
    const added = addTimeFilter(code, newQuestion);
    if (added) {
      code = added.code;
      substitutions.push({ from: '', to: added.to, kind: 'time-filter' });
    }
  } else if (oldFilter && !newFilter) {
    const removed = removeTimeFilters(code);
    if (removed) {
      code = removed.code;
      substitutions.push({ from: removed.from, to: '', kind: 'time-filter' });
    }
  }
  return { code, substitutions };
}

const AGGREGATES: [RegExp, string][] = [
  [/\b(maximum|max|highest|largest|greatest|most expensive)\b/i, 'max'],
  [/\b(minimum|min|lowest|smallest|least expensive|cheapest)\b/i, 'min'],
  [/\b(average|mean|avg)\b/i, 'avg'],
];

function aggregateOf(question: string): string | null {
  const hits = AGGREGATES.filter(([re]) => re.test(question)).map(([, f]) => f);
  return hits.length === 1 ? hits[0] : null;
}

/** Swaps the outer aggregate function when the questions ask for different ones (maximum → minimum). */
function aggregateReplacement(oldQuestion: string, newQuestion: string, code: string): { pattern: RegExp; to: string; sub: Substitution } | null {
  const from = aggregateOf(oldQuestion);
  const to = aggregateOf(newQuestion);
  if (!from || !to || from === to) return null;
  const pattern = new RegExp(`\\b${from}\\(`, 'gi');
  if ((code.match(pattern) ?? []).length !== 1) return null;
  return { pattern, to: `${to}(`, sub: { from, to, kind: 'aggregate' } };
}

function numericReplacements(oldM: NumericMention[], newM: NumericMention[]): { pattern: RegExp; to: string; sub: Substitution }[] {
  const out: { pattern: RegExp; to: string; sub: Substitution }[] = [];
  for (const kind of ['number', 'decade', 'relative', 'duration'] as const) {
    const a = oldM.filter((m) => m.kind === kind);
    const b = newM.filter((m) => m.kind === kind);
    if (a.length !== b.length) continue;
    a.forEach((from, i) => {
      const to = b[i];
      if (from.value === to.value && from.unit === to.unit) return;
      if (kind === 'relative') {
        const unit = from.unit === 'week' ? 'day' : from.unit;
        const toUnit = to.unit === 'week' ? 'day' : to.unit;
        const fromV = from.unit === 'week' ? from.value * 7 : from.value;
        const toV = to.unit === 'week' ? to.value * 7 : to.value;
        out.push({ pattern: new RegExp(`'-${fromV} ${unit}'`, 'g'), to: `'-${toV} ${toUnit}'`, sub: { from: `-${fromV} ${unit}`, to: `-${toV} ${toUnit}`, kind } });
      } else if (kind === 'duration') {
        out.push({ pattern: new RegExp(`(?<![\\w.])${from.value}(\\s*\\*\\s*365)`, 'g'), to: `${to.value} * 365`, sub: { from: `${from.value} * 365`, to: `${to.value} * 365`, kind: 'number' } });
      } else if (kind === 'decade') {
        out.push({ pattern: new RegExp(`\\b${from.value}\\b`, 'g'), to: String(to.value), sub: { from: String(from.value), to: String(to.value), kind } });
        out.push({ pattern: new RegExp(`\\b${from.value + 9}\\b`, 'g'), to: String(to.value + 9), sub: { from: String(from.value + 9), to: String(to.value + 9), kind } });
      } else {
        // A count is never the N of a duration (`N * 365`).
        out.push({ pattern: new RegExp(`(?<![\\w.-])${escapeRegExp(String(from.value))}(?![\\w.])(?!\\s*\\*\\s*365)`, 'g'), to: String(to.value), sub: { from: String(from.value), to: String(to.value), kind } });
      }
    });
  }
  return out;
}

/** Applies all replacements in one pass so a replaced value is never replaced again. */
function applyAll(code: string, replacements: { pattern: RegExp; to: string }[]): string {
  if (replacements.length === 0) return code;
  const marks: { start: number; end: number; to: string }[] = [];
  for (const r of replacements) {
    for (const m of code.matchAll(r.pattern)) {
      const start = m.index ?? 0;
      const end = start + m[0].length;
      if (marks.some((k) => start < k.end && end > k.start)) continue;
      marks.push({ start, end, to: r.to });
    }
  }
  marks.sort((x, y) => x.start - y.start);
  let out = '';
  let pos = 0;
  for (const k of marks) {
    out += code.slice(pos, k.start) + k.to;
    pos = k.end;
  }
  return out + code.slice(pos);
}
