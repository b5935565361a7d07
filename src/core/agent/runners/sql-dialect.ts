/**
 * Applies the EHRSQL conventions the toolbox's `sql()` follows (as EHRSQL's own
 * evaluation does before running gold SQL), so the same SQL means the same in
 * both runners and on any SQLite version:
 * - outside string literals, quoted identifiers and comments, the keywords
 *   `current_time` and `current_timestamp` become `'<now>'` and `current_date`
 *   becomes `'<now's date>'` (EHRSQL writes `datetime(current_time,'start of year')`
 *   meaning the current date-time);
 * - the string literal `'now'` (any case) becomes `'<now>'`;
 * - inside string literals, strftime's `%y` becomes `%Y` (4-digit year) and
 *   `%j` becomes `%J` (Julian day number), EHRSQL's post-processing.
 *
 * The Python bootstrap carries the same algorithm (keep them in step).
 *
 * @example
 * toEhrSqlDialect("select datetime(current_time,'-1 year')", '2105-12-31 23:59:00')
 * // "select datetime('2105-12-31 23:59:00','-1 year')"
 */
export function toEhrSqlDialect(sql: string, now: string): string {
  const nowLiteral = `'${now}'`;
  const dateLiteral = `'${now.slice(0, 10)}'`;
  let out = '';
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i];
    if (c === "'") {
      let j = i + 1;
      while (j < n) {
        if (sql[j] === "'") {
          if (sql[j + 1] === "'") j += 2;
          else break;
        } else j++;
      }
      const literal = sql.slice(i, j + 1);
      out += literal.toLowerCase() === "'now'" ? nowLiteral : literal.replace(/%y/g, '%Y').replace(/%j/g, '%J');
      i = j + 1;
    } else if (c === '"' || c === '`' || c === '[') {
      const close = c === '[' ? ']' : c;
      let j = sql.indexOf(close, i + 1);
      if (j < 0) j = n - 1;
      out += sql.slice(i, j + 1);
      i = j + 1;
    } else if (c === '-' && sql[i + 1] === '-') {
      let j = sql.indexOf('\n', i);
      if (j < 0) j = n;
      out += sql.slice(i, j);
      i = j;
    } else if (c === '/' && sql[i + 1] === '*') {
      let j = sql.indexOf('*/', i + 2);
      j = j < 0 ? n : j + 2;
      out += sql.slice(i, j);
      i = j;
    } else if (/[A-Za-z_]/.test(c)) {
      let j = i + 1;
      while (j < n && /[A-Za-z0-9_$]/.test(sql[j])) j++;
      const word = sql.slice(i, j);
      const lower = word.toLowerCase();
      if (lower === 'current_time' || lower === 'current_timestamp') out += nowLiteral;
      else if (lower === 'current_date') out += dateLiteral;
      else out += word;
      i = j;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}
