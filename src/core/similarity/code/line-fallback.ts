/**
 * Fallback for code that does not parse (or uses syntax the structural models
 * leave out): a token-level line diff. Every source line becomes its token
 * shape — keywords and operators kept, identifiers written as `id`, literals
 * and comments dropped, blank lines skipped — and the shapes are matched with
 * difflib's algorithm: score = matched reference lines / reference lines.
 */

const KEYWORDS = new Set(
  (
    'and as assert async await break case catch class const continue def default del delete do elif else except export ' +
    'extends false finally for from function global if import in instanceof is lambda let new none nonlocal not null ' +
    'of or pass raise return static switch this throw true try typeof undefined var void while with yield print console'
  ).split(' '),
);

const COMMON = String.raw`"(?:\\.|[^"\\\n])*"?|'(?:\\.|[^'\\\n])*'?|\d[\w.]*|[A-Za-z_$][\w$]*|\*\*=?|\/\/=?|[=!<>]=+|=>|&&|\|\||[-+*/%&|^<>]=|\S`;
const PY_TOKEN = new RegExp(String.raw`\s+|#[^\n]*|` + COMMON, 'gy');
const JS_TOKEN = new RegExp(String.raw`\s+|\/\/[^\n]*|\/\*.*?\*\/|` + '`(?:\\\\.|[^`\\\\])*`?|' + COMMON, 'gy');

/**
 * The token shapes of each non-blank line (`#` comments for Python, `//` and
 * one-line block comments for JavaScript).
 *
 * @example
 * lineShapes('x = 1\nif x > 0:\n  go(x)', 'python'); // ['id =', 'if id > :', 'id ( id )']
 */
export function lineShapes(src: string, language: 'python' | 'javascript'): string[] {
  const token = language === 'python' ? PY_TOKEN : JS_TOKEN;
  const out: string[] = [];
  for (const line of src.split(/\r?\n/)) {
    const parts: string[] = [];
    token.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = token.exec(line)) !== null) {
      const t = m[0];
      const c = t[0];
      if (/\s/.test(c)) continue;
      if (language === 'python' ? c === '#' : t.startsWith('//') || t.startsWith('/*')) continue;
      if (c === '"' || c === "'" || c === '`' || /\d/.test(c)) continue;
      if (/[A-Za-z_$]/.test(c)) parts.push(KEYWORDS.has(t.toLowerCase()) ? t : 'id');
      else parts.push(t);
    }
    if (parts.length > 0) out.push(parts.join(' '));
  }
  return out;
}
