/**
 * Expressions: @lezer/python syntax nodes -> Python-`ast`-like nodes (3.11 shapes).
 * lezer's tree is flatter than CPython's (argument lists, subscripts and
 * comprehension clauses are token sequences) and binds `not` too loosely;
 * both are rebuilt here.
 */
import { CTX, PyNode, PyUnsupported, PyValue, constant, nameNode, node, repr, strRepr } from './py-ast';
import { Src, SyntaxNode, kids, splitCommas, stringBody, textOf } from './py-lezer';

export type { Src, SyntaxNode } from './py-lezer';
export { kids, lezerTree, splitCommas, textOf } from './py-lezer';

const BIN_OPS: Record<string, string> = {
  '+': 'Add', '-': 'Sub', '*': 'Mult', '@': 'MatMult', '/': 'Div', '%': 'Mod', '//': 'FloorDiv', '**': 'Pow',
  '<<': 'LShift', '>>': 'RShift', '|': 'BitOr', '^': 'BitXor', '&': 'BitAnd',
};
const CMP_OPS: Record<string, string> = {
  '==': 'Eq', '!=': 'NotEq', '<>': 'NotEq', '<': 'Lt', '<=': 'LtE', '>': 'Gt', '>=': 'GtE',
};

/** Maps a binary operator spelling to its CPython node name. */
export function binOpName(op: string): string {
  const name = BIN_OPS[op];
  if (!name) throw new PyUnsupported(`operator ${op}`);
  return name;
}

/** An element of a comma list: `*x` becomes `Starred`. */
function element(s: Src, group: SyntaxNode[]): PyNode {
  if (group.length === 2 && group[0].name === '*') return node('Starred', [['value', expr(s, group[1])], ['ctx', CTX]]);
  if (group.length !== 1) throw new PyUnsupported('list element');
  return expr(s, group[0]);
}

/** `a, *b` -> Tuple; a single element without comma -> that element. */
export function exprList(s: Src, nodes: SyntaxNode[]): PyNode {
  const { groups, comma } = splitCommas(nodes);
  if (!comma && groups.length === 1) return element(s, groups[0]);
  return node('Tuple', [['elts', groups.map((g) => element(s, g))], ['ctx', CTX]]);
}

/** The first child that is an expression (skips keyword and punctuation tokens). */
export function firstExpr(s: Src, n: SyntaxNode): PyNode {
  for (const c of kids(n)) if (EXPR_NAMES.has(c.name)) return expr(s, c);
  throw new PyUnsupported(`no expression in ${n.name}`);
}

const EXPR_NAMES = new Set([
  'BinaryExpression', 'UnaryExpression', 'AwaitExpression', 'ParenthesizedExpression', 'TupleExpression',
  'ComprehensionExpression', 'ArrayExpression', 'ArrayComprehensionExpression', 'DictionaryExpression',
  'DictionaryComprehensionExpression', 'SetExpression', 'SetComprehensionExpression', 'CallExpression',
  'MemberExpression', 'VariableName', 'Number', 'String', 'FormatString', 'ContinuedString', 'Ellipsis', 'None',
  'Boolean', 'ConditionalExpression', 'LambdaExpression', 'NamedExpression', 'YieldExpression',
]);

export function isExprName(name: string): boolean {
  return EXPR_NAMES.has(name);
}

/** Converts one expression node. */
export function expr(s: Src, n: SyntaxNode): PyNode {
  switch (n.name) {
    case 'VariableName':
      return nameNode(textOf(s, n));
    case 'String':
      return constant(stringBody(textOf(s, n)));
    case 'Number':
    case 'Ellipsis':
    case 'None':
    case 'Boolean':
      return constant();
    case 'FormatString': {
      const j = node('JoinedStr', [['values', formatValues(s, n)]]);
      j.text = formatText(s, n);
      return j;
    }
    case 'ContinuedString': {
      const parts = kids(n);
      const text = parts.map((p) => (p.name === 'FormatString' ? formatText(s, p) : stringBody(textOf(s, p)))).join('');
      if (!parts.some((p) => p.name === 'FormatString')) return constant(text);
      const j = node('JoinedStr', [['values', parts.flatMap((p) => (p.name === 'FormatString' ? formatValues(s, p) : []))]]);
      j.text = text;
      return j;
    }
    case 'ParenthesizedExpression': {
      const inner = kids(n).slice(1, -1);
      return element(s, inner);
    }
    case 'TupleExpression':
      return node('Tuple', [['elts', splitCommas(kids(n).slice(1, -1)).groups.map((g) => element(s, g))], ['ctx', CTX]]);
    case 'ArrayExpression':
      return node('List', [['elts', splitCommas(kids(n).slice(1, -1)).groups.map((g) => element(s, g))], ['ctx', CTX]]);
    case 'SetExpression':
      return node('Set', [['elts', splitCommas(kids(n).slice(1, -1)).groups.map((g) => element(s, g))]]);
    case 'DictionaryExpression':
      return dict(s, kids(n).slice(1, -1));
    case 'ComprehensionExpression':
    case 'ArrayComprehensionExpression':
    case 'SetComprehensionExpression':
    case 'DictionaryComprehensionExpression':
      return comprehension(s, n.name, kids(n).slice(1, -1));
    case 'BinaryExpression':
      return binary(s, n);
    case 'UnaryExpression':
      return unary(s, n);
    case 'AwaitExpression':
      return node('Await', [['value', expr(s, kids(n)[1])]]);
    case 'CallExpression': {
      const [fn, args] = kids(n);
      return call(s, expr(s, fn), kids(args).slice(1, -1));
    }
    case 'MemberExpression':
      return member(s, kids(n));
    case 'ConditionalExpression': {
      const k = kids(n); // body if test else orelse
      return node('IfExp', [['test', expr(s, k[2])], ['body', expr(s, k[0])], ['orelse', expr(s, k[4])]]);
    }
    case 'NamedExpression': {
      const k = kids(n);
      return node('NamedExpr', [['target', expr(s, k[0])], ['value', expr(s, k[2])]]);
    }
    case 'LambdaExpression': {
      const k = kids(n);
      const params = k.find((c) => c.name === 'ParamList');
      return node('Lambda', [['args', argumentsOf(s, params ? kids(params) : [])], ['body', expr(s, k[k.length - 1])]]);
    }
    case 'YieldExpression':
      return yieldOf(s, kids(n));
    default:
      throw new PyUnsupported(n.name);
  }
}

export function yieldOf(s: Src, k: SyntaxNode[]): PyNode {
  if (k[1]?.name === 'from') return node('YieldFrom', [['value', expr(s, k[2])]]);
  const rest = k.slice(1);
  return node('Yield', [['value', rest.length ? exprList(s, rest) : null]]);
}

/** An f-string's text with each replacement field written as `?`. */
function formatText(s: Src, n: SyntaxNode): string {
  let out = '';
  let pos = n.from;
  for (const r of kids(n)) {
    if (r.name !== 'FormatReplacement') continue;
    out += s.text.slice(pos, r.from) + '?';
    pos = r.to;
  }
  return stringBody(out + s.text.slice(pos, n.to));
}

function formatValues(s: Src, n: SyntaxNode): PyNode[] {
  return kids(n).filter((c) => c.name === 'FormatReplacement').map((r) => formattedValue(s, r));
}

function formattedValue(s: Src, r: SyntaxNode): PyNode {
  const k = kids(r);
  const body: SyntaxNode[] = [];
  let conversion = -1;
  let spec: PyValue = null;
  let selfDoc = false;
  for (const c of k.slice(1)) {
    if (c.name === 'FormatConversion') conversion = textOf(s, c).charCodeAt(1);
    else if (c.name === 'FormatSelfDoc') selfDoc = true;
    else if (c.name === 'FormatSpec') spec = node('JoinedStr', [['values', formatValues(s, c)]]);
    else if (c.name !== '}') body.push(c);
  }
  if (selfDoc && conversion === -1 && spec === null) conversion = 'r'.charCodeAt(0);
  return node('FormattedValue', [['value', exprList(s, body)], ['conversion', repr(String(conversion))], ['format_spec', spec]]);
}

function dict(s: Src, inner: SyntaxNode[]): PyNode {
  const keys: PyValue[] = [];
  const values: PyValue[] = [];
  for (const g of splitCommas(inner).groups) {
    if (g[0].name === '**') {
      keys.push(null);
      values.push(expr(s, g[1]));
    } else {
      keys.push(expr(s, g[0]));
      values.push(expr(s, g[2]));
    }
  }
  return node('Dict', [['keys', keys], ['values', values]]);
}

const COMP_TYPES: Record<string, string> = {
  ComprehensionExpression: 'GeneratorExp',
  ArrayComprehensionExpression: 'ListComp',
  SetComprehensionExpression: 'SetComp',
  DictionaryComprehensionExpression: 'DictComp',
};

/** `elt for t in it if c ...` (tokens between the brackets). */
function comprehension(s: Src, lezerName: string, inner: SyntaxNode[]): PyNode {
  const start = inner.findIndex((c) => c.name === 'for' || c.name === 'async');
  if (start < 0) throw new PyUnsupported('comprehension');
  const head = inner.slice(0, start);
  const generators = comprehensionClauses(s, inner.slice(start));
  const type = COMP_TYPES[lezerName];
  if (type === 'DictComp') {
    return node('DictComp', [['key', expr(s, head[0])], ['value', expr(s, head[2])], ['generators', generators]]);
  }
  return node(type, [['elt', element(s, head)], ['generators', generators]]);
}

/** Parses `[async] for targets in iter (if cond)*` repeated. */
export function comprehensionClauses(s: Src, toks: SyntaxNode[]): PyNode[] {
  const out: PyNode[] = [];
  let i = 0;
  while (i < toks.length) {
    let isAsync = 0;
    if (toks[i].name === 'async') {
      isAsync = 1;
      i++;
    }
    if (toks[i]?.name !== 'for') throw new PyUnsupported('comprehension clause');
    i++;
    const targets: SyntaxNode[] = [];
    while (i < toks.length && toks[i].name !== 'in') targets.push(toks[i++]);
    i++; // 'in'
    const iter = toks[i++];
    const ifs: PyNode[] = [];
    while (i < toks.length && toks[i].name === 'if') {
      ifs.push(expr(s, toks[i + 1]));
      i += 2;
    }
    out.push(node('comprehension', [['target', exprList(s, targets)], ['iter', expr(s, iter)], ['ifs', ifs], ['is_async', repr(String(isAsync))]]));
  }
  return out;
}

function isBoolOp(s: Src, n: SyntaxNode): boolean {
  if (n.name === 'UnaryExpression') return n.children[0]?.name === 'not';
  if (n.name !== 'BinaryExpression') return false;
  const op = n.children[1]?.name;
  return op === 'and' || op === 'or';
}

/** Flattens an unparenthesised and/or/not expression into operands and operators. */
function flattenBool(s: Src, n: SyntaxNode, out: (SyntaxNode | string)[]): void {
  if (!isBoolOp(s, n)) {
    out.push(n);
    return;
  }
  const k = kids(n);
  if (n.name === 'UnaryExpression') {
    out.push('not');
    flattenBool(s, k[1], out);
  } else {
    flattenBool(s, k[0], out);
    out.push(k[1].name);
    flattenBool(s, k[2], out);
  }
}

/** Re-parses a flattened boolean expression with Python's precedence (or < and < not). */
function boolExpr(s: Src, n: SyntaxNode): PyNode {
  const toks: (SyntaxNode | string)[] = [];
  flattenBool(s, n, toks);
  let i = 0;
  const parseNot = (): PyNode => {
    const t = toks[i++];
    if (t === 'not') return node('UnaryOp', [['op', node('Not')], ['operand', parseNot()]]);
    if (typeof t === 'string' || t === undefined) throw new PyUnsupported('boolean expression');
    return expr(s, t);
  };
  const parseLevel = (op: 'and' | 'or', sub: () => PyNode): PyNode => {
    const values = [sub()];
    while (toks[i] === op) {
      i++;
      values.push(sub());
    }
    return values.length === 1 ? values[0] : node('BoolOp', [['op', node(op === 'and' ? 'And' : 'Or')], ['values', values]]);
  };
  const result = parseLevel('or', () => parseLevel('and', parseNot));
  if (i !== toks.length) throw new PyUnsupported('boolean expression');
  return result;
}

function compareOp(s: Src, k: SyntaxNode[], from: number): { op: string; width: number } | undefined {
  const t = k[from];
  if (!t) return undefined;
  if (t.name === 'CompareOp') return { op: CMP_OPS[textOf(s, t)], width: 1 };
  if (t.name === 'in') return { op: 'In', width: 1 };
  if (t.name === 'not' && k[from + 1]?.name === 'in') return { op: 'NotIn', width: 2 };
  if (t.name === 'is') return k[from + 1]?.name === 'not' ? { op: 'IsNot', width: 2 } : { op: 'Is', width: 1 };
  return undefined;
}

function binary(s: Src, n: SyntaxNode): PyNode {
  if (isBoolOp(s, n)) return boolExpr(s, n);
  const k = kids(n);
  const cmp = compareOp(s, k, 1);
  if (cmp) {
    // Flatten an unparenthesised left-nested chain: a < b < c.
    const operands: SyntaxNode[] = [k[k.length - 1]];
    const ops: string[] = [cmp.op];
    let left = k[0];
    for (;;) {
      const lk = left.name === 'BinaryExpression' ? kids(left) : [];
      const lcmp = lk.length ? compareOp(s, lk, 1) : undefined;
      if (!lcmp) break;
      operands.unshift(lk[lk.length - 1]);
      ops.unshift(lcmp.op);
      left = lk[0];
    }
    return node('Compare', [['left', expr(s, left)], ['ops', ops.map((o) => node(o))], ['comparators', operands.map((o) => expr(s, o))]]);
  }
  return node('BinOp', [['left', expr(s, k[0])], ['op', node(binOpName(textOf(s, k[1])))], ['right', expr(s, k[2])]]);
}

function unary(s: Src, n: SyntaxNode): PyNode {
  if (isBoolOp(s, n)) return boolExpr(s, n);
  const k = kids(n);
  const op = textOf(s, k[0]);
  const name = op === '-' ? 'USub' : op === '+' ? 'UAdd' : op === '~' ? 'Invert' : undefined;
  if (!name) throw new PyUnsupported(`unary ${op}`);
  return node('UnaryOp', [['op', node(name)], ['operand', expr(s, k[1])]]);
}

/** Call arguments (tokens between the parentheses). */
export function call(s: Src, func: PyNode, inner: SyntaxNode[]): PyNode {
  const args: PyNode[] = [];
  const keywords: PyNode[] = [];
  for (const g of splitCommas(inner).groups) {
    if (g[0].name === '**') keywords.push(node('keyword', [['arg', null], ['value', expr(s, g[1])]]));
    else if (g[0].name === '*') args.push(node('Starred', [['value', expr(s, g[1])], ['ctx', CTX]]));
    else if (g.length >= 3 && g[1].name === 'AssignOp' && g[0].name === 'VariableName') {
      if (textOf(s, g[1]) === ':=') args.push(node('NamedExpr', [['target', expr(s, g[0])], ['value', expr(s, g[2])]]));
      else keywords.push(node('keyword', [['arg', strRepr(textOf(s, g[0]))], ['value', expr(s, g[2])]]));
    } else if (g.length > 1) {
      args.push(node('GeneratorExp', [['elt', expr(s, g[0])], ['generators', comprehensionClauses(s, g.slice(1))]]));
    } else args.push(expr(s, g[0]));
  }
  return node('Call', [['func', func], ['args', args], ['keywords', keywords]]);
}

function member(s: Src, k: SyntaxNode[]): PyNode {
  const value = expr(s, k[0]);
  if (k[1].name === '.') return node('Attribute', [['value', value], ['attr', strRepr(textOf(s, k[2]))], ['ctx', CTX]]);
  const inner = k.slice(2, -1);
  const { groups, comma } = splitCommas(inner);
  const items = groups.map((g) => sliceItem(s, g));
  const slice = !comma && items.length === 1 ? items[0] : node('Tuple', [['elts', items], ['ctx', CTX]]);
  return node('Subscript', [['value', value], ['slice', slice], ['ctx', CTX]]);
}

function sliceItem(s: Src, g: SyntaxNode[]): PyNode {
  if (!g.some((t) => t.name === ':')) return element(s, g);
  const parts: SyntaxNode[][] = [[]];
  for (const t of g) {
    if (t.name === ':') parts.push([]);
    else parts[parts.length - 1].push(t);
  }
  const part = (i: number): PyValue => (parts[i] && parts[i].length ? expr(s, parts[i][0]) : null);
  return node('Slice', [['lower', part(0)], ['upper', part(1)], ['step', part(2)]]);
}

function argNode(): PyNode {
  // Names and annotations are dropped by the normaliser; keep the 3.11 field layout.
  return node('arg', [['annotation', null], ['type_comment', null]]);
}

/** A `ParamList` (def or lambda) -> `arguments`. */
export function argumentsOf(s: Src, toks: SyntaxNode[]): PyNode {
  const inner = toks[0]?.name === '(' ? toks.slice(1, -1) : toks;
  const posonly: PyNode[] = [];
  const args: PyNode[] = [];
  const kwonly: PyNode[] = [];
  const kwDefaults: PyValue[] = [];
  const defaults: PyNode[] = [];
  let vararg: PyValue = null;
  let kwarg: PyValue = null;
  let star = false;
  // lezer keeps no node for the positional-only marker `/`: find it in the gap after a comma.
  const groups: (SyntaxNode[] | 'slash')[] = [[]];
  for (let i = 0; i < inner.length; i++) {
    const t = inner[i];
    if (t.name !== ',') {
      (groups[groups.length - 1] as SyntaxNode[]).push(t);
      continue;
    }
    const next = inner[i + 1] ?? toks[toks.length - 1];
    const gap = s.text.slice(t.to, next ? next.from : t.to).replace(/#[^\n]*/g, '');
    if (gap.includes('/')) groups.push('slash');
    groups.push([]);
  }
  for (const g of groups) {
    if (g === 'slash') {
      posonly.push(...args.splice(0));
      continue;
    }
    if (g.length === 0) continue;
    const first = g[0].name;
    if (first === '*') {
      star = true;
      if (g.length > 1) vararg = argNode();
      continue;
    }
    if (first === '**') {
      kwarg = argNode();
      continue;
    }
    const eq = g.findIndex((t) => t.name === 'AssignOp');
    const dflt = eq >= 0 ? expr(s, g[eq + 1]) : undefined;
    if (star) {
      kwonly.push(argNode());
      kwDefaults.push(dflt ?? null);
    } else {
      args.push(argNode());
      if (dflt) defaults.push(dflt);
    }
  }
  return node('arguments', [
    ['posonlyargs', posonly], ['args', args], ['vararg', vararg], ['kwonlyargs', kwonly],
    ['kw_defaults', kwDefaults], ['kwarg', kwarg], ['defaults', defaults],
  ]);
}
