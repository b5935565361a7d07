import type { RunLanguage } from '../runners/types';

const SHARED = `Functions (identical in JavaScript and Python):
- sql(query, params?) -> rows as a list of lists, e.g. [["po"], ["iv"]]. Read-only: one SELECT (or WITH ... SELECT) per call; writes, ATTACH, transactions and PRAGMA changes fail with SqlReadOnlyError. "?" placeholders take params. EHRSQL conventions apply: current_time, current_timestamp and 'now' mean NOW; in strftime formats %y means %Y (4-digit year) and %j means %J.
- loadTable(name) -> every row of a table as a list of objects/dicts {column: value}.
- filterRows(rows, column, op, value) -> the rows whose column matches. column is a name for object rows (case-insensitive) or a 0-based index for list rows. op: = != < <= > >= in 'not in' contains startswith 'is null' 'is not null'. Numbers and numeric strings compare as numbers, the rest as strings (dates 'YYYY-MM-DD HH:MM:SS' compare correctly as strings).
- getValues(rows, column) -> the column's values as a list.
- distinct(values) -> the values without duplicates, first occurrence order.
- now() -> NOW as 'YYYY-MM-DD HH:MM:SS'.
- datetime(value?, ...modifiers) -> SQLite datetime(value, modifiers...); value defaults to NOW, e.g. datetime(now(), 'start of year', '-1 year').
- datetimeAdd(value, amount, unit) -> value shifted by amount (negative = earlier) units: years, months, days, hours, minutes, seconds.
- startOf(value, unit) -> start of the 'year', 'month' or 'day' containing value.
- strftime(format, value?) -> SQLite strftime (e.g. '%Y', '%m').
- daysBetween(a, b) -> days from a to b (fractional; negative when b is earlier).
- calculate(expression) -> number. Safe arithmetic only: + - * / % ** ^ ( ), abs sqrt floor ceil exp log pow min max round(x, digits), pi, e.
Set the answer explicitly: assign it to the variable \`answer\` or call setAnswer(value); if both, setAnswer wins. A run that sets neither ends with outcome "no-answer". The answer must be JSON-like (numbers, strings, booleans, null, lists, objects); for a list of rows use what sql() returns, e.g. answer = sql("select ...").
print / console.log output is captured (capped); Python may write files only in its working directory, JavaScript has no file access; no processes, network, environment or other databases.`;

const JS = `Language: JavaScript (ES2023, QuickJS: no require, process, fetch or timers). The code runs inside an async function: toolbox calls return values directly (await is allowed but not needed), \`return\` ends it early.
Example:
const rows = sql("select distinct prescriptions.route from prescriptions where prescriptions.drug = 'danazol'");
answer = rows;
Example with helpers:
const start = startOf(datetimeAdd(now(), -1, 'years'), 'year');
const adm = filterRows(loadTable('admissions'), 'admittime', '>=', start);
answer = [[distinct(getValues(adm, 'subject_id')).length]];`;

const PY = `Language: Python 3. Snake-case aliases also exist (load_table, filter_rows, get_values, datetime_add, start_of, days_between, set_answer). The toolbox function \`datetime\` shadows the datetime module unless you import it under another name.
Example:
rows = sql("select distinct prescriptions.route from prescriptions where prescriptions.drug = 'danazol'")
answer = rows
Example with helpers:
start = startOf(datetimeAdd(now(), -1, 'years'), 'year')
adm = filterRows(loadTable('admissions'), 'admittime', '>=', start)
answer = [[len(distinct(getValues(adm, 'subject_id')))]]`;

/**
 * Prompt documentation of the toolbox for generated code in `language`
 * (the single place the toolbox is documented).
 *
 * @example
 * const system = `You write ${lang} code.\n${toolboxDocs(lang, { now: DEFAULT_NOW })}`;
 */
export function toolboxDocs(language: RunLanguage, options: { now?: string } = {}): string {
  const now = options.now ? `NOW is ${options.now}.` : 'NOW is the configured current date-time.';
  return `Toolbox available to your code (no imports needed). ${now}\n${SHARED}\n${language === 'python' ? PY : JS}\n`;
}
