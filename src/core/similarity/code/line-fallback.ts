/**
 * Fallback for code that does not parse (or uses syntax the structural models
 * leave out), and the measure for languages without a structural one (Go, Rust,
 * TypeScript, …, with a generic tokenizer): a token-level line diff. Every source line becomes its token
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

/** Keywords of other common languages (generic tokenizer): kept as themselves, like the ones above. */
const GENERIC_KEYWORDS = new Set(
  (
    'fn func fun impl struct enum trait match mut pub mod use crate where loop type interface package go defer chan map range ' +
    'select goto public private protected final abstract override virtual namespace using template typename int long short ' +
    'char float double bool boolean string unsigned signed sizeof end then elsif unless until begin rescue ensure module ' +
    'local function val var let when object data begin declare'
  ).split(' '),
);

const COMMON = String.raw`"(?:\\.|[^"\\\n])*"?|'(?:\\.|[^'\\\n])*'?|\d[\w.]*|[A-Za-z_$][\w$]*|\*\*=?|\/\/=?|[=!<>]=+|=>|&&|\|\||[-+*/%&|^<>]=|\S`;
const PY_TOKEN = new RegExp(String.raw`\s+|#[^\n]*|` + COMMON, 'gy');
const JS_TOKEN = new RegExp(String.raw`\s+|\/\/[^\n]*|\/\*.*?\*\/|` + '`(?:\\\\.|[^`\\\\])*`?|' + COMMON, 'gy');
/**
 * Any other language: `//` and one-line block comments anywhere, whole lines starting
 * with `#` or `--` (shell, Ruby, SQL, Lua comments), backtick strings.
 */
const GENERIC_TOKEN = new RegExp(String.raw`^\s*(?:#|--)[^\n]*|\s+|\/\/[^\n]*|\/\*.*?\*\/|` + '`(?:\\\\.|[^`\\\\])*`?|' + COMMON, 'gy');

/**
 * The token shapes of each non-blank line (`#` comments for Python, `//` and
 * one-line block comments for JavaScript; see GENERIC_TOKEN for any other language).
 *
 * @example
 * lineShapes('x = 1\nif x > 0:\n  go(x)', 'python'); // ['id =', 'if id > :', 'id ( id )']
 * lineShapes('func f() int {\n  return x + 1\n}', 'go'); // ['func id ( ) int {', 'return id +', '}']
 */
export function lineShapes(src: string, language: string): string[] {
  const kind = language === 'python' || language === 'javascript' ? language : 'generic';
  const token = kind === 'python' ? PY_TOKEN : kind === 'javascript' ? JS_TOKEN : GENERIC_TOKEN;
  const out: string[] = [];
  for (const line of src.split(/\r?\n/)) {
    const parts: string[] = [];
    token.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = token.exec(line)) !== null) {
      const t = m[0];
      const c = t[0];
      if (/\s/.test(c)) continue;
      if (isComment(kind, t)) continue;
      if (c === '"' || c === "'" || c === '`' || /\d/.test(c)) continue;
      if (/[A-Za-z_$]/.test(c)) parts.push(KEYWORDS.has(t.toLowerCase()) || (kind === 'generic' && GENERIC_KEYWORDS.has(t)) ? t : 'id');
      else parts.push(t);
    }
    if (parts.length > 0) out.push(parts.join(' '));
  }
  return out;
}

function isComment(kind: 'python' | 'javascript' | 'generic', t: string): boolean {
  if (kind === 'python') return t[0] === '#';
  if (t.startsWith('//') || t.startsWith('/*')) return true;
  return kind === 'generic' && /^\s*(?:#|--)/.test(t);
}
