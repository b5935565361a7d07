/**
 * Time filters ("in 2104", "until 2 years ago", "this year", "since 2103") as
 * they appear in questions, and the SQL fragments that implement them
 * (EHRSQL's conventions, relative to the database's configured "now").
 * The reuse model swaps one for the other when two questions differ in them.
 */
export type TimeFilter =
  | { kind: 'year'; op: '=' | '<=' | '>='; year: string }
  | { kind: 'calendar'; unit: 'year' | 'month'; ago: number }
  | { kind: 'relative'; op: '<=' | '>='; ago: number; unit: 'year' | 'month' | 'day' };

const NUM: Record<string, number> = { one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, a: 1, an: 1 };
const num = (s: string) => (/^\d+$/.test(s) ? Number(s) : NUM[s.toLowerCase()] ?? NaN);

/** The time filter a question states, if any. */
export function questionTimeFilter(question: string): TimeFilter | null {
  const q = question.toLowerCase();
  let m = /\b(since|after|from)\s+(\w+)\s+(year|month|day)s?\s+ago\b/.exec(q);
  if (m) return { kind: 'relative', op: '>=', ago: num(m[2]), unit: m[3] as 'year' };
  m = /\b(until|up to|before|till|by|prior to)\s+(\w+)\s+(year|month|day)s?\s+ago\b/.exec(q);
  if (m) return { kind: 'relative', op: '<=', ago: num(m[2]), unit: m[3] as 'year' };
  // "a year before", "in the year before", "a year before last": EHRSQL's gold SQL reads all of them as last calendar year.
  m = /\b(?:a|one|the)\s+(year|month)\s+before\b/.exec(q);
  if (m) return { kind: 'calendar', unit: m[1] as 'year', ago: 1 };
  m = /\b(this|current|last|previous|past|prior)\s+(year|month)\b/.exec(q);
  if (m && !/\b(since|until)\b/.test(q.slice(Math.max(0, m.index - 12), m.index))) {
    return { kind: 'calendar', unit: m[2] as 'year', ago: m[1] === 'this' || m[1] === 'current' ? 0 : 1 };
  }
  m = /\b(since|after|from|starting)\s+(?:the\s+year\s+|year\s+)?(21\d\d)\b/.exec(q);
  if (m) return { kind: 'year', op: '>=', year: m[2] };
  m = /\b(until|up to|upto|before|till|through|by|prior to)\s+(?:the\s+year\s+|year\s+)?(21\d\d)\b/.exec(q);
  if (m) return { kind: 'year', op: '<=', year: m[2] };
  m = /\b(21\d\d)\b/.exec(q);
  if (m) return { kind: 'year', op: '=', year: m[1] };
  return null;
}

const COL = "([a-z_][a-z0-9_]*\\.[a-z_][a-z0-9_]*)";
const PATTERNS: { re: RegExp; parse: (m: RegExpExecArray) => TimeFilter }[] = [
  { re: new RegExp(`strftime\\('%y',\\s*${COL}\\)\\s*(=|<=|>=)\\s*'(\\d{4})'`, 'g'), parse: (m) => ({ kind: 'year', op: m[2] as '=', year: m[3] }) },
  { re: new RegExp(`datetime\\(${COL},\\s*'start of (year|month)'\\)\\s*=\\s*datetime\\(current_time,\\s*'start of (?:year|month)',\\s*'-(\\d+) (?:year|month)'\\)`, 'g'), parse: (m) => ({ kind: 'calendar', unit: m[2] as 'year', ago: Number(m[3]) }) },
  { re: new RegExp(`datetime\\(${COL}\\)\\s*(<=|>=)\\s*datetime\\(current_time,\\s*'-(\\d+) (year|month|day)'\\)`, 'g'), parse: (m) => ({ kind: 'relative', op: m[2] as '<=', ago: Number(m[3]), unit: m[4] as 'year' }) },
];

export function renderTimeFilter(column: string, f: TimeFilter): string {
  switch (f.kind) {
    case 'year':
      return `strftime('%y',${column}) ${f.op} '${f.year}'`;
    case 'calendar':
      return `datetime(${column},'start of ${f.unit}') = datetime(current_time,'start of ${f.unit}','-${f.ago} ${f.unit}')`;
    case 'relative':
      return `datetime(${column}) ${f.op} datetime(current_time,'-${f.ago} ${f.unit}')`;
  }
}

/** Finds the time-filter fragments in code: their span, column and meaning. */
export function codeTimeFilters(code: string): { start: number; end: number; column: string; filter: TimeFilter }[] {
  const out: { start: number; end: number; column: string; filter: TimeFilter }[] = [];
  for (const p of PATTERNS) {
    p.re.lastIndex = 0;
    for (let m = p.re.exec(code); m; m = p.re.exec(code)) {
      out.push({ start: m.index, end: m.index + m[0].length, column: m[1], filter: p.parse(m) });
    }
  }
  return out.sort((a, b) => a.start - b.start);
}

/**
 * Rewrites the code's time filter to the one the new question states. Several
 * fragments are rewritten together when they all state the same filter (a
 * template that applies one period to two subqueries), each on its own column.
 * Returns null when there is nothing to do or it would be ambiguous.
 */
export function swapTimeFilter(code: string, newQuestion: string): { code: string; from: string; to: string } | null {
  const wanted = questionTimeFilter(newQuestion);
  const found = uniformTimeFilters(code);
  if (!wanted || found === null || Number.isNaN((wanted as { ago?: number }).ago ?? 0)) return null;
  let out = code;
  for (const f of [...found].reverse()) out = out.slice(0, f.start) + renderTimeFilter(f.column, wanted) + out.slice(f.end);
  if (out === code) return null;
  return { code: out, from: code.slice(found[0].start, found[0].end), to: renderTimeFilter(found[0].column, wanted) };
}

/** The code's time filters when there is at least one and they all state the same filter; else null. */
export function uniformTimeFilters(code: string): ReturnType<typeof codeTimeFilters> | null {
  const found = codeTimeFilters(code);
  if (found.length === 0) return null;
  const first = JSON.stringify(found[0].filter);
  return found.every((f) => JSON.stringify(f.filter) === first) ? found : null;
}

/**
 * The time column of each EHR table, in the order a filter is placed on them when
 * several occur in one program (event tables before admissions, as EHRSQL's gold SQL).
 */
const TIME_COLUMNS: [table: string, column: string][] = [
  ['prescriptions', 'startdate'],
  ['diagnoses_icd', 'charttime'],
  ['procedures_icd', 'charttime'],
  ['labevents', 'charttime'],
  ['chartevents', 'charttime'],
  ['microbiologyevents', 'charttime'],
  ['inputevents_cv', 'charttime'],
  ['outputevents', 'charttime'],
  ['cost', 'chargetime'],
  ['transfers', 'intime'],
  ['icustays', 'intime'],
  ['admissions', 'admittime'],
];

/** End of the clause that starts at `from` (before its group/order by, its closing parenthesis or the end), and whether it has a where. */
function clauseEnd(code: string, from: number): { end: number; hasWhere: boolean } {
  let depth = 0;
  let hasWhere = false;
  const re = /\(|\)|\bwhere\b|\bgroup by\b|\border by\b|\bunion\b|\bintersect\b|\bexcept\b|\blimit\b/gi;
  re.lastIndex = from;
  for (let m = re.exec(code); m; m = re.exec(code)) {
    const t = m[0].toLowerCase();
    if (t === '(') depth++;
    else if (t === ')') {
      if (depth === 0) return { end: m.index, hasWhere };
      depth--;
    } else if (depth === 0) {
      if (t === 'where') hasWhere = true;
      else return { end: m.index, hasWhere };
    }
  }
  return { end: code.length, hasWhere };
}

/**
 * Adds the new question's time filter to a program that has none: on the time column
 * of the first event table the program reads (TIME_COLUMNS order), at the end of that
 * table's where clause (` and …`), or as a new ` where …` right after the table.
 * Returns null when the question states no filter or no table with a time column occurs.
 *
 * @example
 * addTimeFilter("select count(*) from prescriptions where prescriptions.drug = 'x'", 'how many x in 2104?')?.code;
 * // → "select count(*) from prescriptions where prescriptions.drug = 'x' and strftime('%y',prescriptions.startdate) = '2104'"
 */
export function addTimeFilter(code: string, newQuestion: string): { code: string; to: string } | null {
  const wanted = questionTimeFilter(newQuestion);
  if (!wanted || Number.isNaN((wanted as { ago?: number }).ago ?? 0) || codeTimeFilters(code).length > 0) return null;
  for (const [table, column] of TIME_COLUMNS) {
    const m = new RegExp(`\\bfrom\\s+${table}\\b`, 'i').exec(code);
    if (!m) continue;
    const after = m.index + m[0].length;
    const fragment = renderTimeFilter(`${table}.${column}`, wanted);
    const { end, hasWhere } = clauseEnd(code, after);
    if (hasWhere) {
      const at = code.slice(0, end).trimEnd().length;
      return { code: `${code.slice(0, at)} and ${fragment}${code.slice(at)}`, to: fragment };
    }
    return { code: `${code.slice(0, after)} where ${fragment}${code.slice(after)}`, to: fragment };
  }
  return null;
}

/**
 * Removes every time filter from a program (the new question states none):
 * ` and F`, `F and ` after a where, or ` where F` when it was the only condition.
 *
 * @example
 * removeTimeFilters("select 1 from cost where cost.x = 1 and strftime('%y',cost.chargetime) = '2104'")?.code;
 * // → 'select 1 from cost where cost.x = 1'
 */
export function removeTimeFilters(code: string): { code: string; from: string } | null {
  const found = codeTimeFilters(code);
  if (found.length === 0) return null;
  let out = code;
  for (const f of [...found].reverse()) {
    const before = out.slice(0, f.start);
    const after = out.slice(f.end);
    const and = /\s+and\s+$/i.exec(before);
    const where = /\s+where\s+$/i.exec(before);
    if (and) out = before.slice(0, and.index) + after;
    else if (where && /^\s+and\s+/i.test(after)) out = before + after.replace(/^\s+and\s+/i, '');
    else if (where) out = before.slice(0, where.index) + after;
    else return null;
  }
  return { code: out, from: found.map((f) => code.slice(f.start, f.end)).join('; ') };
}
