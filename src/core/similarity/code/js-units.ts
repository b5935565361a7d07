/**
 * JavaScript / TypeScript structural units, the counterpart of the Python
 * measure: the acorn (ESTree) tree is normalised (identifiers and literals
 * dropped, `console.*` calls, imports and `require` declarations removed,
 * single comparisons in canonical operand order) and dumped with the same
 * printer; every function declaration is one unit, the program without its
 * function and class declarations is another.
 *
 * TypeScript is handled best-effort: when acorn rejects the source, simple
 * annotations (`: string`, `: Foo[]`, return types, `as T`, `interface` and
 * `type` declarations, `x!.y`) are stripped textually and parsing is retried.
 */
import * as acorn from 'acorn';
import { PyNode, PyValue, repr } from './py-ast';
import { dumpLines } from './ast-dump';
import { SQL_LOOKING, sqlStructureLines } from './sql-structure';

/** Calls (or template tags) whose first string argument is SQL for the toolbox. */
export const JS_SQL_CALL_NAMES: ReadonlySet<string> = new Set(['sql', 'SQLInterpreter']);

type EsNode = { type: string; [key: string]: unknown };

const SKIP_KEYS = new Set(['type', 'start', 'end', 'loc', 'range', 'raw', 'sourceType', 'name', 'regex', 'bigint', 'directive', 'shorthand']);
const COMPARE_MIRROR: Record<string, string> = { '==': '==', '===': '===', '<': '>', '>': '<', '<=': '>=', '>=': '<=' };

function isEs(v: unknown): v is EsNode {
  return typeof v === 'object' && v !== null && typeof (v as EsNode).type === 'string';
}

function calleeName(callee: unknown): string | undefined {
  if (!isEs(callee)) return undefined;
  if (callee.type === 'Identifier') return callee.name as string;
  if (callee.type === 'MemberExpression' && !callee.computed && isEs(callee.property)) return callee.property.name as string;
  return undefined;
}

function isConsoleCall(n: EsNode): boolean {
  if (n.type !== 'CallExpression') return false;
  const callee = n.callee;
  return isEs(callee) && callee.type === 'MemberExpression' && isEs(callee.object) && callee.object.type === 'Identifier' && callee.object.name === 'console';
}

function isRequireDeclaration(n: EsNode): boolean {
  if (n.type !== 'VariableDeclaration') return false;
  const decls = n.declarations as EsNode[];
  return decls.length > 0 && decls.every((d) => {
    let init = d.init;
    if (isEs(init) && init.type === 'AwaitExpression') init = init.argument;
    return isEs(init) && (init.type === 'ImportExpression' || (init.type === 'CallExpression' && calleeName(init.callee) === 'require'));
  });
}

function templateText(t: EsNode): string {
  return (t.quasis as EsNode[]).map((q) => ((q.value as { cooked?: string; raw: string }).cooked ?? (q.value as { raw: string }).raw)).join('?');
}

interface Ctx {
  programLevel: boolean;
  sql?: string[];
}

function normalise(n: EsNode, ctx: Ctx): PyNode | undefined {
  switch (n.type) {
    case 'Literal':
      if (ctx.sql && typeof n.value === 'string' && SQL_LOOKING.test(n.value)) ctx.sql.push(n.value);
      return undefined;
    case 'TemplateElement':
      return undefined;
    case 'TemplateLiteral':
      if (ctx.sql && SQL_LOOKING.test(templateText(n))) ctx.sql.push(templateText(n));
      break;
    case 'ImportDeclaration':
    case 'ExportAllDeclaration':
      return undefined;
    case 'ExportNamedDeclaration':
    case 'ExportDefaultDeclaration':
      return isEs(n.declaration) ? normalise(n.declaration, ctx) : undefined;
    case 'VariableDeclaration':
      if (isRequireDeclaration(n)) return undefined;
      return generic(n, ctx, ['kind']);
    case 'FunctionDeclaration':
    case 'ClassDeclaration':
      if (ctx.programLevel) return undefined;
      break;
    case 'ExpressionStatement': {
      const e = normalise(n.expression as EsNode, ctx);
      return e ? { type: 'ExpressionStatement', fields: [['expression', e]] } : undefined;
    }
    case 'CallExpression': {
      if (isConsoleCall(n)) return undefined;
      const first = (n.arguments as EsNode[])[0];
      if (ctx.sql && JS_SQL_CALL_NAMES.has(calleeName(n.callee) ?? '') && first) {
        const text = first.type === 'Literal' && typeof first.value === 'string' ? first.value : first.type === 'TemplateLiteral' ? templateText(first) : undefined;
        if (text !== undefined && !SQL_LOOKING.test(text)) ctx.sql.push(text);
      }
      break;
    }
    case 'TaggedTemplateExpression': {
      const quasi = n.quasi as EsNode;
      if (ctx.sql && JS_SQL_CALL_NAMES.has(calleeName(n.tag) ?? '') && !SQL_LOOKING.test(templateText(quasi))) ctx.sql.push(templateText(quasi));
      break;
    }
    case 'BinaryExpression': {
      const mirrored = COMPARE_MIRROR[n.operator as string];
      if (mirrored && isEs(n.left) && isEs(n.right) && n.left.type > n.right.type) {
        return generic({ ...n, left: n.right, right: n.left, operator: mirrored }, ctx);
      }
      break;
    }
    default:
      break;
  }
  return generic(n, ctx);
}

function value(v: unknown, ctx: Ctx): PyValue | undefined {
  if (Array.isArray(v)) {
    const list: PyValue[] = [];
    for (const item of v) {
      if (item === null) list.push(null);
      else if (isEs(item)) {
        const r = normalise(item, ctx);
        if (r) list.push(r);
      }
    }
    return list;
  }
  if (v === null || v === undefined) return null;
  if (isEs(v)) return normalise(v, ctx) ?? null;
  if (typeof v === 'boolean') return repr(v ? 'True' : 'False');
  if (typeof v === 'string') return repr(`'${v}'`);
  return undefined;
}

function generic(n: EsNode, ctx: Ctx, skip: readonly string[] = []): PyNode {
  const fields: [string, PyValue][] = [];
  for (const key of Object.keys(n)) {
    if (SKIP_KEYS.has(key) || skip.includes(key)) continue;
    const v = value(n[key], ctx);
    if (v !== undefined) fields.push([key, v]);
  }
  return { type: n.type, fields };
}

function collectFunctions(v: unknown, out: EsNode[]): void {
  if (Array.isArray(v)) {
    for (const item of v) collectFunctions(item, out);
  } else if (isEs(v)) {
    if (v.type === 'FunctionDeclaration') out.push(v);
    for (const key of Object.keys(v)) if (!SKIP_KEYS.has(key)) collectFunctions(v[key], out);
  }
}

const TS_TYPE = String.raw`(?:[A-Za-z_$][\w$.]*(?:<[^<>()=;]*(?:<[^<>()=;]*>[^<>()=;]*)*>)?(?:\[\])*|'[^']*'|"[^"]*")`;
const TS_UNION = `${TS_TYPE}(?:\\s*[|&]\\s*${TS_TYPE})*`;

/** Best-effort removal of simple TypeScript syntax so that acorn can parse the rest. */
export function stripTypeScript(src: string): string {
  let out = src
    .replace(/^\s*import\s+type\b[^;\n]*;?/gm, '')
    .replace(/^\s*(?:export\s+)?type\s+[A-Za-z_$][\w$]*(?:<[^>]*>)?\s*=[^;]*;/gm, '')
    .replace(/\b(?:public|private|protected|readonly)\s+(?=[A-Za-z_$])/g, '')
    .replace(/([\w$\])])!(?=[.[(;,)\]}\n])/g, '$1');
  // interface declarations (brace matched)
  for (let m = /^\s*(?:export\s+)?interface\s+[A-Za-z_$][\w$]*[^{]*\{/m.exec(out); m; m = /^\s*(?:export\s+)?interface\s+[A-Za-z_$][\w$]*[^{]*\{/m.exec(out)) {
    let depth = 0;
    let end = m.index + m[0].length - 1;
    for (; end < out.length; end++) {
      if (out[end] === '{') depth++;
      else if (out[end] === '}' && --depth === 0) break;
    }
    out = out.slice(0, m.index) + out.slice(end + 1);
  }
  return out
    .replace(new RegExp(String.raw`\)\s*:\s*(?:Promise<[^{]*>|${TS_UNION})(?=\s*(?:\{|=>))`, 'g'), ')')
    .replace(new RegExp(String.raw`([\w$\]}])\s*\??\s*:\s*${TS_UNION}(?=\s*[,)=;])`, 'g'), '$1')
    .replace(new RegExp(String.raw`\s+as\s+(?:const|${TS_UNION})`, 'g'), '')
    .replace(/\b(function\s*[\w$]*|[\w$]+)\s*<[A-Za-z_$][\w$,\s]*>\s*\(/g, '$1(');
}

const ACORN_OPTIONS: acorn.Options = {
  ecmaVersion: 'latest',
  sourceType: 'module',
  allowAwaitOutsideFunction: true,
  allowReturnOutsideFunction: true,
  allowHashBang: true,
};

/** Parses JavaScript (or simple TypeScript); throws acorn's SyntaxError when both attempts fail. */
export function parseJavaScript(src: string): EsNode {
  try {
    return acorn.parse(src, ACORN_OPTIONS) as unknown as EsNode;
  } catch (first) {
    const stripped = stripTypeScript(src);
    if (stripped === src) throw first;
    return acorn.parse(stripped, ACORN_OPTIONS) as unknown as EsNode;
  }
}

/**
 * Dump lines of every unit of a JavaScript program.
 *
 * @example
 * javascriptUnits(parseJavaScript('const n = rows.length;'), true);
 */
export function javascriptUnits(program: EsNode, withSql: boolean): string[][] {
  const defs: EsNode[] = [];
  collectFunctions(program, defs);
  const units: string[][] = [];
  const unit = (root: EsNode, programLevel: boolean): void => {
    const ctx: Ctx = { programLevel, sql: withSql ? [] : undefined };
    const base = root.type === 'FunctionDeclaration' ? { ...root, id: null } : root;
    const lines = dumpLines(generic(base, ctx));
    if (ctx.sql && ctx.sql.length > 0) {
      lines[lines.length - 1] += '\n';
      for (const q of ctx.sql) lines.push(...sqlStructureLines(q));
    }
    units.push(lines);
  };
  for (const d of defs) unit(d, false);
  unit(program, true);
  return units;
}
