/**
 * SIMULATION — realistic wrong programs for the simulated agent: mutations of
 * a gold SQL query, each the kind of mistake a code agent makes. A mutation
 * returns null when it does not apply to the query. The mutated query is run
 * for real, so it may fail, return a wrong answer, or (rarely, as with a real
 * agent) happen to return the right one.
 */

export const MUTATION_KINDS = ['wrong-column', 'dropped-filter', 'wrong-aggregate', 'shifted-time-window', 'wrong-join-key', 'off-by-one-limit', 'dropped-distinct'] as const;
/**
 * The mistakes the agent makes when none of MUTATION_KINDS changes a task's answer on the database
 * (a yes/no or count question often keeps its answer when a filter is dropped or a window shifted):
 * the question's value mapped to another value of its column, or a comparison inverted.
 */
export const FALLBACK_MUTATION_KINDS = ['wrong-value', 'inverted-comparison'] as const;
export type MutationKind = (typeof MUTATION_KINDS)[number] | (typeof FALLBACK_MUTATION_KINDS)[number];

/** Other values of a column (distinct, in a fixed order), for the wrong-value mutation; empty when unknown. */
export type ColumnValues = (table: string, column: string) => readonly (string | number)[];

/** Column names per table (lower-case), for the wrong-column mutation. */
export type Schema = ReadonlyMap<string, readonly string[]>;

/** Applies `fn` to the parts of `sql` outside single-quoted literals. */
function outsideLiterals(sql: string, fn: (part: string) => string): string {
  return sql
    .split(/('(?:[^']|'')*')/)
    .map((part, i) => (i % 2 === 1 ? part : fn(part)))
    .join('');
}

function replaceFirst(sql: string, pattern: RegExp, to: (m: RegExpExecArray) => string): string | null {
  const m = pattern.exec(sql);
  if (!m) return null;
  return sql.slice(0, m.index) + to(m) + sql.slice(m.index + m[0].length);
}

/** The projected `table.column` of the outermost select is replaced by another column of the same table. */
function wrongColumn(sql: string, schema: Schema, pick: number): string | null {
  const m = /^\s*select\s+(?:distinct\s+)?([a-z_0-9]+)\.([a-z_0-9]+)/i.exec(sql);
  if (!m) return null;
  const columns = (schema.get(m[1].toLowerCase()) ?? []).filter((c) => c !== m[2].toLowerCase() && c !== 'row_id');
  if (columns.length === 0) return null;
  const other = columns[pick % columns.length];
  const start = m.index + m[0].length - m[2].length;
  return sql.slice(0, start) + other + sql.slice(start + m[2].length);
}

/** One `and <condition>` of a where clause (a time or value filter) is left out. */
function droppedFilter(sql: string): string | null {
  return replaceFirst(sql, / and (?:(?:datetime|strftime)\([^()]*\)\s*(?:>=|<=|=|<|>|between)\s*(?:datetime\([^()]*\)|'[^']*')|[a-z_0-9]+\.[a-z_0-9]+ (?:is not null|is null|= '[^']*'|= [0-9.]+))/i, () => '');
}

const AGGREGATE_SWAP: Record<string, string> = { avg: 'max', max: 'min', min: 'max', sum: 'avg' };

/** An aggregate function is replaced (avg → max, max → min, min → max, sum → avg, count(*) → count(distinct …)). */
function wrongAggregate(sql: string): string | null {
  const swapped = replaceFirst(sql, /\b(avg|max|min|sum)\(/i, (m) => `${AGGREGATE_SWAP[m[1].toLowerCase()]}(`);
  if (swapped) return swapped;
  return replaceFirst(sql, /\bcount\( distinct ([a-z_0-9]+)\.subject_id \)/i, (m) => `count( distinct ${m[1]}.hadm_id )`);
}

/** A relative or absolute time window is shifted by one unit ('-1 year' → '-2 year', '2105' → '2104'). */
function shiftedTimeWindow(sql: string): string | null {
  const relative = replaceFirst(sql, /'-(\d+) (year|month|day)'/i, (m) => `'-${Number(m[1]) + 1} ${m[2]}'`);
  if (relative) return relative;
  return replaceFirst(sql, /(strftime\('%y',[^()]*\)\s*(?:>=|<=|=|<|>)\s*)'(\d{4})'/i, (m) => `${m[1]}'${Number(m[2]) - 1}'`);
}

/** A join or semi-join links on the wrong key (hadm_id ↔ subject_id). */
function wrongJoinKey(sql: string): string | null {
  const join = replaceFirst(sql, /\bon ([a-z_0-9]+)\.hadm_id = ([a-z_0-9]+)\.hadm_id/i, (m) => `on ${m[1]}.subject_id = ${m[2]}.subject_id`);
  if (join) return join;
  return replaceFirst(sql, /([a-z_0-9]+)\.hadm_id in \( select ([a-z_0-9]+)\.hadm_id/i, (m) => `${m[1]}.subject_id in ( select ${m[2]}.subject_id`);
}

/** A top-N cut-off is off by one (`c1 <= 5` → `c1 <= 4`; `<= 1` → `<= 2`). */
function offByOneLimit(sql: string): string | null {
  return replaceFirst(sql, /\b(c\d+) <= (\d+)/i, (m) => `${m[1]} <= ${Number(m[2]) > 1 ? Number(m[2]) - 1 : Number(m[2]) + 1}`);
}

/** `count( distinct x )` becomes `count( x )` (double counting). */
function droppedDistinct(sql: string): string | null {
  return replaceFirst(sql, /\bcount\( distinct /i, () => 'count( ');
}

/** `table.column = <literal>`: a string literal or a number. */
const EQUALS_LITERAL = /\b([a-z_0-9]+)\.([a-z_0-9]+) = ('(?:[^']|'')*'|\d+(?:\.\d+)?(?![\d.]))/gi;

/** The first `table.column = literal` of a known column takes another value of that column (the question's value mapped to the wrong item). */
function wrongValue(sql: string, schema: Schema, pick: number, values: ColumnValues | undefined): string | null {
  if (!values) return null;
  for (const m of sql.matchAll(EQUALS_LITERAL)) {
    const table = m[1].toLowerCase();
    const column = m[2].toLowerCase();
    if (!(schema.get(table) ?? []).includes(column)) continue;
    const quoted = m[3].startsWith("'");
    const current = quoted ? m[3].slice(1, -1).replace(/''/g, "'") : m[3];
    const others = values(table, column).filter((v) => String(v) !== current);
    if (others.length === 0) continue;
    const other = others[pick % others.length];
    const literal = quoted ? `'${String(other).replace(/'/g, "''")}'` : String(other);
    const start = m.index + m[0].length - m[3].length;
    return sql.slice(0, start) + literal + sql.slice(start + m[3].length);
  }
  return null;
}

const INVERTED: Record<string, string> = { '>=': '<', '<=': '>', '>': '<=', '<': '>=' };

/** `sql` with the first match of `pattern` outside single-quoted literals replaced; null when there is none. */
function replaceFirstOutsideLiterals(sql: string, pattern: RegExp, to: (m: string) => string): string | null {
  let done = false;
  const out = outsideLiterals(sql, (part) =>
    done
      ? part
      : part.replace(pattern, (m) => {
          done = true;
          return to(m);
        }),
  );
  return done ? out : null;
}

/** The first comparison outside literals is inverted (`>=` → `<`, …); else `is not null` ↔ `is null`. */
function invertedComparison(sql: string): string | null {
  return (
    replaceFirstOutsideLiterals(sql, / (?:>=|<=|>|<) /, (m) => ` ${INVERTED[m.trim()]} `) ??
    replaceFirstOutsideLiterals(sql, /\bis (?:not )?null\b/i, (m) => (/not/i.test(m) ? 'is null' : 'is not null'))
  );
}

/**
 * The query mutated by `kind`, or null when the kind does not apply (or would not change it).
 *
 * @example
 * mutate("select count(*) from prescriptions where prescriptions.drug = 'x' and datetime(prescriptions.startdate) <= datetime(current_time,'-1 year')", 'shifted-time-window', schema, 0);
 * // … '-2 year' …
 */
export function mutate(sql: string, kind: MutationKind, schema: Schema, pick = 0, values?: ColumnValues): string | null {
  let out: string | null;
  switch (kind) {
    case 'wrong-column':
      out = wrongColumn(sql, schema, pick);
      break;
    case 'dropped-filter':
      out = droppedFilter(sql);
      break;
    case 'wrong-aggregate':
      out = wrongAggregate(sql);
      break;
    case 'shifted-time-window':
      out = shiftedTimeWindow(sql);
      break;
    case 'wrong-join-key':
      out = wrongJoinKey(sql);
      break;
    case 'off-by-one-limit':
      out = offByOneLimit(sql);
      break;
    case 'dropped-distinct':
      out = droppedDistinct(sql);
      break;
    case 'wrong-value':
      out = wrongValue(sql, schema, pick, values);
      break;
    case 'inverted-comparison':
      out = invertedComparison(sql);
      break;
  }
  return out !== null && out !== sql ? out : null;
}

/** The mutation kinds of `kinds` (default: the primary ones) that apply to `sql`. */
export function applicableMutations(sql: string, schema: Schema, kinds: readonly MutationKind[] = MUTATION_KINDS, values?: ColumnValues): MutationKind[] {
  return kinds.filter((k) => mutate(sql, k, schema, 0, values) !== null);
}

/**
 * A harmless surface rewrite of a query (same result): variant 0 upper-cases
 * the main keywords, variant 1 collapses the spaces inside parentheses,
 * variant 2 keeps the text (the program shape changes instead, see the generator).
 */
export function surfaceRewrite(sql: string, variant: number): string {
  switch (variant % 3) {
    case 0:
      return outsideLiterals(sql, (p) => p.replace(/\b(select|from|where|and|group by|order by|distinct|join|on|in|as)\b/gi, (w) => w.toUpperCase()));
    case 1:
      return outsideLiterals(sql, (p) => p.replace(/\(\s+/g, '(').replace(/\s+\)/g, ')'));
    default:
      return sql;
  }
}
