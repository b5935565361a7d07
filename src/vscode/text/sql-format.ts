/**
 * A small SQL layout for reading and diffing: one clause per line, sub-queries indented.
 * It only moves whitespace outside quoted text, so the SQL means the same. No vscode import.
 */

const CLAUSES = [
  'select', 'from', 'where', 'group by', 'order by', 'having', 'limit', 'offset',
  'union all', 'union', 'intersect', 'except',
  'left outer join', 'left join', 'right join', 'inner join', 'cross join', 'join', 'on',
];
const CLAUSE_RE = new RegExp(`^(${CLAUSES.map((c) => c.replace(' ', '\\s+')).join('|')})\\b`, 'i');

/**
 * @example
 * formatSql("select count(*) from patients where gender = 'm'")
 * // "select count(*)\nfrom patients\nwhere gender = 'm'"
 */
export function formatSql(sql: string, indent = '  '): string {
  const lines: string[] = [];
  let line = '';
  let depth = 0;
  const flush = () => {
    if (line.trim()) lines.push(line.replace(/\s+$/, ''));
    line = indent.repeat(depth);
  };
  let i = 0;
  const text = sql.trim().replace(/\s+/g, (ws, offset: number) => (insideQuote(sql.trim(), offset) ? ws : ' '));
  while (i < text.length) {
    const ch = text[i];
    if (ch === "'" || ch === '"' || ch === '`') {
      const end = closingQuote(text, i);
      line += text.slice(i, end + 1);
      i = end + 1;
      continue;
    }
    const prev = i === 0 ? ' ' : text[i - 1];
    if (/[\s(]/.test(prev)) {
      const m = CLAUSE_RE.exec(text.slice(i));
      if (m) {
        if (line.trim() && line.trim() !== '(') flush();
        else if (line.trim() === '(') {
          lines.push(line.replace(/\s+$/, ''));
          line = indent.repeat(depth);
        }
        line = line.trim() ? line : indent.repeat(depth);
        line += m[0].replace(/\s+/g, ' ');
        i += m[0].length;
        continue;
      }
    }
    if (ch === '(') depth++;
    if (ch === ')') depth = Math.max(0, depth - 1);
    if (ch === ' ' && line.trim() === '') {
      i++;
      continue;
    }
    line += ch;
    i++;
  }
  flush();
  return lines.join('\n');
}

function closingQuote(text: string, start: number): number {
  const q = text[start];
  for (let j = start + 1; j < text.length; j++) {
    if (text[j] === q) {
      if (text[j + 1] === q) j++;
      else return j;
    }
  }
  return text.length - 1;
}

function insideQuote(text: string, offset: number): boolean {
  let quote: string | null = null;
  for (let j = 0; j < offset; j++) {
    const ch = text[j];
    if (quote) {
      if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"' || ch === '`') quote = ch;
  }
  return quote !== null;
}

const STRING_LITERAL = /("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')/g;

/**
 * Program code with each one-line SQL string literal laid out one clause per line (a
 * triple-quoted string in Python, a template literal in JavaScript) and without leading
 * comment lines, for a diff that shows the real difference.
 */
export function readableCode(code: string, language: 'python' | 'javascript'): string {
  const body = stripHeaderComment(code, language);
  return body.replace(STRING_LITERAL, (literal) => {
    const sql = decodeLiteral(literal);
    if (sql === null || !/^\s*(select|with)\b/i.test(sql)) return literal;
    const formatted = formatSql(sql, '  ')
      .split('\n')
      .map((l) => `  ${l}`)
      .join('\n');
    if (language === 'python' && !formatted.includes('"""') && !formatted.includes('\\')) return `"""\n${formatted}\n"""`;
    if (language === 'javascript' && !/[`\\]|\$\{/.test(formatted)) return `\`\n${formatted}\n\``;
    return literal;
  });
}

function decodeLiteral(literal: string): string | null {
  if (literal.startsWith('"')) {
    try {
      return JSON.parse(literal) as string;
    } catch {
      return null;
    }
  }
  const inner = literal.slice(1, -1);
  return inner.includes('\\') ? null : inner;
}

/** Drops the leading comment/blank lines (a record document's header). */
export function stripHeaderComment(code: string, language: 'python' | 'javascript'): string {
  const marker = language === 'python' ? '#' : '//';
  const lines = code.split('\n');
  let i = 0;
  while (i < lines.length && (lines[i].trim() === '' || lines[i].trimStart().startsWith(marker))) i++;
  return lines.slice(i).join('\n');
}
