/**
 * SQL as structure: keywords, table/column identifiers and operators, with
 * literal values (strings, numbers, placeholders) removed. Used by the default
 * `structural` similarity so that programs whose logic lives in SQL strings
 * (`sql("select ...")`) are compared on that logic too.
 */

const SQL_KEYWORDS = new Set(
  (
    'select from where and or not in is null like between group by order having limit offset as on join inner left ' +
    'right outer full cross natural using distinct all union intersect except case when then else end asc desc ' +
    'count sum avg min max exists with insert into values update set delete create table view index drop alter ' +
    'cast coalesce ifnull nullif strftime date datetime julianday substr lower upper round abs length replace ' +
    'glob escape collate over partition rows range current_date current_time current_timestamp true false'
  ).split(' '),
);

/** Recognises a string constant that is most likely a SQL query. */
export const SQL_LOOKING = /^\s*\(?\s*(select|with)\b/i;

const TOKEN = /\s+|--[^\n]*|\/\*[\s\S]*?\*\/|'(?:[^']|'')*'?|"(?:[^"]|"")*"?|`[^`]*`?|\[[^\]]*\]?|\d+(?:\.\d*)?(?:e[+-]?\d+)?|\.\d+|[A-Za-z_][A-Za-z0-9_$]*|\?\d*|[:@$][A-Za-z_][A-Za-z0-9_]*|<>|!=|<=|>=|==|\|\||[=<>+\-*/%(),.;]|./gy;

/**
 * Tokenises SQL into structural tokens: `kw:select`, `id:patients`, `op:=`.
 * String and numeric literals, placeholders and comments are dropped.
 *
 * @example
 * sqlStructureTokens("SELECT COUNT(*) FROM admissions WHERE subject_id = 42");
 * // ['kw:select', 'kw:count', 'op:(', 'op:*', 'op:)', 'kw:from', 'id:admissions', 'kw:where', 'id:subject_id', 'op:=']
 */
export function sqlStructureTokens(sql: string): string[] {
  const out: string[] = [];
  TOKEN.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = TOKEN.exec(sql)) !== null) {
    const t = m[0];
    const c = t[0];
    if (/\s/.test(c) || t.startsWith('--') || t.startsWith('/*')) continue;
    if (c === "'" || /[0-9]/.test(c) || (c === '.' && t.length > 1) || c === '?' || ((c === ':' || c === '@' || c === '$') && t.length > 1)) continue;
    if (c === '"' || c === '`' || c === '[') {
      out.push('id:' + t.slice(1, t.length - 1).toLowerCase());
    } else if (/[A-Za-z_]/.test(c)) {
      const lower = t.toLowerCase();
      out.push((SQL_KEYWORDS.has(lower) ? 'kw:' : 'id:') + lower);
    } else {
      out.push('op:' + (t === '==' ? '=' : t === '<>' ? '!=' : t));
    }
  }
  return out;
}

/** The extra dump lines for one SQL string (one structural token a line). */
export function sqlStructureLines(sql: string): string[] {
  return sqlStructureTokens(sql).map((t) => `SQL ${t}\n`);
}
