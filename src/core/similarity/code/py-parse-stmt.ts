/**
 * Statements: @lezer/python syntax tree -> Python-`ast`-like `Module` (3.11 shapes).
 */
import { CTX, PyNode, PyUnsupported, PyValue, nameNode, node, strRepr } from './py-ast';
import {
  Src, SyntaxNode, argumentsOf, lezerTree, binOpName, call, expr, exprList, firstExpr, isExprName, kids, splitCommas, textOf, yieldOf,
} from './py-parse-expr';

/**
 * Parses Python source into a `Module` node. Throws `PyUnsupported` when the
 * code does not parse or uses syntax this model leaves out (match, type aliases ...).
 *
 * @example
 * const mod = parsePython('answer = len(rows)\n'); // Module(body=[Assign(...)], type_ignores=[])
 */
export function parsePython(text: string): PyNode {
  const s: Src = { text };
  const top = lezerTree(text);
  return node('Module', [['body', statements(s, kids(top))], ['type_ignores', []]]);
}

function statements(s: Src, nodes: SyntaxNode[]): PyNode[] {
  const out: PyNode[] = [];
  for (const n of nodes) statement(s, n, out);
  return out;
}

function body(s: Src, n: SyntaxNode): PyNode[] {
  if (n.name !== 'Body') throw new PyUnsupported(`expected a block, got ${n.name}`);
  return statements(s, kids(n).slice(1));
}

function statement(s: Src, n: SyntaxNode, out: PyNode[]): void {
  const k = kids(n);
  switch (n.name) {
    case 'StatementGroup':
      for (const c of k) if (c.name !== ';') statement(s, c, out);
      return;
    case 'ExpressionStatement':
      out.push(node('Expr', [['value', exprList(s, k)]]));
      return;
    case 'AssignStatement':
      out.push(assign(s, k));
      return;
    case 'UpdateStatement': {
      const at = k.findIndex((c) => c.name === 'UpdateOp');
      const op = textOf(s, k[at]).slice(0, -1);
      out.push(node('AugAssign', [['target', exprList(s, k.slice(0, at))], ['op', node(binOpName(op))], ['value', valueOf(s, k.slice(at + 1))]]));
      return;
    }
    case 'DeleteStatement':
      out.push(node('Delete', [['targets', splitCommas(k.slice(1)).groups.map((g) => exprList(s, g))]]));
      return;
    case 'PassStatement':
      out.push(node('Pass'));
      return;
    case 'BreakStatement':
      out.push(node('Break'));
      return;
    case 'ContinueStatement':
      out.push(node('Continue'));
      return;
    case 'ReturnStatement':
      out.push(node('Return', [['value', k.length > 1 ? exprList(s, k.slice(1)) : null]]));
      return;
    case 'YieldStatement':
      out.push(node('Expr', [['value', yieldOf(s, k)]]));
      return;
    case 'RaiseStatement': {
      const from = k.findIndex((c) => c.name === 'from');
      const exc = k.length > 1 ? expr(s, k[1]) : null;
      out.push(node('Raise', [['exc', exc], ['cause', from >= 0 ? expr(s, k[from + 1]) : null]]));
      return;
    }
    case 'ImportStatement':
      out.push(node(k[0].name === 'from' ? 'ImportFrom' : 'Import'));
      return;
    case 'ScopeStatement':
      out.push(node(k[0].name === 'global' ? 'Global' : 'Nonlocal', [['names', k.slice(1).filter((c) => c.name === 'VariableName').map((c) => strRepr(textOf(s, c)))]]));
      return;
    case 'AssertStatement': {
      const { groups } = splitCommas(k.slice(1));
      out.push(node('Assert', [['test', expr(s, groups[0][0])], ['msg', groups[1] ? expr(s, groups[1][0]) : null]]));
      return;
    }
    case 'IfStatement':
      out.push(ifStatement(s, k));
      return;
    case 'WhileStatement': {
      const e = k.findIndex((c) => c.name === 'else');
      out.push(node('While', [['test', expr(s, k[1])], ['body', body(s, k[2])], ['orelse', e >= 0 ? body(s, k[e + 1]) : []]]));
      return;
    }
    case 'ForStatement':
      out.push(forStatement(s, k));
      return;
    case 'TryStatement':
      out.push(tryStatement(s, k));
      return;
    case 'WithStatement':
      out.push(withStatement(s, k));
      return;
    case 'FunctionDefinition':
      out.push(functionDef(s, k, []));
      return;
    case 'ClassDefinition':
      out.push(classDef(s, k, []));
      return;
    case 'DecoratedStatement': {
      const decorators = k.filter((c) => c.name === 'Decorator').map((d) => decorator(s, d));
      const def = k[k.length - 1];
      out.push(def.name === 'ClassDefinition' ? classDef(s, kids(def), decorators) : functionDef(s, kids(def), decorators));
      return;
    }
    default:
      throw new PyUnsupported(n.name);
  }
}

function valueOf(s: Src, toks: SyntaxNode[]): PyNode {
  if (toks.length === 1 && toks[0].name === 'YieldExpression') return expr(s, toks[0]);
  return exprList(s, toks);
}

function assign(s: Src, k: SyntaxNode[]): PyNode {
  const groups: SyntaxNode[][] = [[]];
  let annotation: SyntaxNode | undefined;
  for (const c of k) {
    if (c.name === 'AssignOp') groups.push([]);
    else if (c.name === 'TypeDef') annotation = c;
    else groups[groups.length - 1].push(c);
  }
  if (annotation) {
    const target = groups[0];
    const simple = target.length === 1 && target[0].name === 'VariableName' ? 1 : 0;
    return node('AnnAssign', [
      ['target', exprList(s, target)], ['annotation', firstExpr(s, annotation)],
      ['value', groups.length > 1 ? valueOf(s, groups[1]) : null], ['simple', { repr: String(simple) }],
    ]);
  }
  const value = groups.pop() as SyntaxNode[];
  return node('Assign', [['targets', groups.map((g) => exprList(s, g))], ['value', valueOf(s, value)], ['type_comment', null]]);
}

function ifStatement(s: Src, k: SyntaxNode[]): PyNode {
  // if test Body (elif test Body)* (else Body)?
  const clauses: { test: SyntaxNode; body: SyntaxNode }[] = [];
  let orelse: PyNode[] = [];
  for (let i = 0; i < k.length; i++) {
    if (k[i].name === 'if' || k[i].name === 'elif') {
      clauses.push({ test: k[i + 1], body: k[i + 2] });
      i += 2;
    } else if (k[i].name === 'else') {
      orelse = body(s, k[i + 1]);
      i += 1;
    }
  }
  for (let c = clauses.length - 1; c >= 0; c--) {
    orelse = [node('If', [['test', expr(s, clauses[c].test)], ['body', body(s, clauses[c].body)], ['orelse', orelse]])];
  }
  return orelse[0];
}

function forStatement(s: Src, k: SyntaxNode[]): PyNode {
  const isAsync = k[0].name === 'async';
  const forAt = k.findIndex((c) => c.name === 'for');
  const inAt = k.findIndex((c) => c.name === 'in');
  const bodyAt = k.findIndex((c) => c.name === 'Body');
  const e = k.findIndex((c) => c.name === 'else');
  return node(isAsync ? 'AsyncFor' : 'For', [
    ['target', exprList(s, k.slice(forAt + 1, inAt))], ['iter', exprList(s, k.slice(inAt + 1, bodyAt))],
    ['body', body(s, k[bodyAt])], ['orelse', e >= 0 ? body(s, k[e + 1]) : []], ['type_comment', null],
  ]);
}

function tryStatement(s: Src, k: SyntaxNode[]): PyNode {
  let tryBody: PyNode[] = [];
  const handlers: PyNode[] = [];
  let orelse: PyNode[] = [];
  let finalbody: PyNode[] = [];
  let star = false;
  for (let i = 0; i < k.length; i++) {
    const t = k[i].name;
    if (t === 'try') tryBody = body(s, k[++i]);
    else if (t === 'else') orelse = body(s, k[++i]);
    else if (t === 'finally') finalbody = body(s, k[++i]);
    else if (t === 'except') {
      let j = i + 1;
      if (k[j].name === '*') {
        star = true;
        j++;
      }
      let type: PyValue = null;
      let name: PyValue = null;
      if (k[j].name !== 'Body') {
        type = expr(s, k[j++]);
        if (k[j].name === 'as' || k[j].name === ',') {
          name = strRepr(textOf(s, k[j + 1]));
          j += 2;
        }
      }
      handlers.push(node('ExceptHandler', [['type', type], ['name', name], ['body', body(s, k[j])]]));
      i = j;
    }
  }
  return node(star ? 'TryStar' : 'Try', [['body', tryBody], ['handlers', handlers], ['orelse', orelse], ['finalbody', finalbody]]);
}

function withStatement(s: Src, k: SyntaxNode[]): PyNode {
  const isAsync = k[0].name === 'async';
  const withAt = k.findIndex((c) => c.name === 'with');
  const bodyAt = k.findIndex((c) => c.name === 'Body');
  const items = splitCommas(k.slice(withAt + 1, bodyAt)).groups.map((g) => {
    const asAt = g.findIndex((c) => c.name === 'as');
    const ctxExpr = expr(s, g[0]);
    const vars: PyValue = asAt >= 0 ? expr(s, g[asAt + 1]) : null;
    return node('withitem', [['context_expr', ctxExpr], ['optional_vars', vars]]);
  });
  return node(isAsync ? 'AsyncWith' : 'With', [['items', items], ['body', body(s, k[bodyAt])], ['type_comment', null]]);
}

function decorator(s: Src, d: SyntaxNode): PyNode {
  const k = kids(d).slice(1);
  let target: PyNode | undefined;
  for (const c of k) {
    if (c.name === 'VariableName') {
      target = target ? node('Attribute', [['value', target], ['attr', strRepr(textOf(s, c))], ['ctx', CTX]]) : nameNode(textOf(s, c));
    } else if (c.name === 'ArgList' && target) target = call(s, target, kids(c).slice(1, -1));
  }
  if (!target) throw new PyUnsupported('decorator');
  return target;
}

function functionDef(s: Src, k: SyntaxNode[], decorators: PyNode[]): PyNode {
  if (k.some((c) => c.name === 'TypeParamList')) throw new PyUnsupported('type parameters');
  const isAsync = k[0].name === 'async';
  const name = k.find((c) => c.name === 'VariableName') as SyntaxNode;
  const params = k.find((c) => c.name === 'ParamList') as SyntaxNode;
  const returns = k.find((c) => c.name === 'TypeDef');
  const bodyNode = k.find((c) => c.name === 'Body') as SyntaxNode;
  let returnsValue: PyValue = null;
  if (returns) {
    const r = kids(returns).find((c) => isExprName(c.name));
    if (r) returnsValue = expr(s, r);
  }
  return node(isAsync ? 'AsyncFunctionDef' : 'FunctionDef', [
    ['name', strRepr(textOf(s, name))], ['args', argumentsOf(s, kids(params))], ['body', body(s, bodyNode)],
    ['decorator_list', decorators], ['returns', returnsValue], ['type_comment', null],
  ]);
}

function classDef(s: Src, k: SyntaxNode[], decorators: PyNode[]): PyNode {
  if (k.some((c) => c.name === 'TypeParamList')) throw new PyUnsupported('type parameters');
  const name = k.find((c) => c.name === 'VariableName') as SyntaxNode;
  const argList = k.find((c) => c.name === 'ArgList');
  const bases = argList ? call(s, nameNode('_'), kids(argList).slice(1, -1)) : undefined;
  const field = (n: string): PyValue => (bases ? (bases.fields.find((f) => f[0] === n)?.[1] ?? []) : []);
  return node('ClassDef', [
    ['name', strRepr(textOf(s, name))], ['bases', field('args')], ['keywords', field('keywords')],
    ['body', body(s, k.find((c) => c.name === 'Body') as SyntaxNode)], ['decorator_list', decorators],
  ]);
}
