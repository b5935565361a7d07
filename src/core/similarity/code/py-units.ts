/**
 * pycode_similar v1.4 normalisation of a Python tree and its comparison units
 * (module-level mode): each function definition is one unit, the module body
 * without function and class definitions is another.
 */
import { OPTIONAL_FIELDS, PyNode, PyValue, isNode } from './py-ast';
import { dumpLines } from './ast-dump';
import { SQL_LOOKING, sqlStructureLines } from './sql-structure';

/** Names of calls whose first string argument is SQL for the toolbox. */
export const SQL_CALL_NAMES: ReadonlySet<string> = new Set(['sql', 'SQLInterpreter']);

interface NormaliseContext {
  /** module collector: drop (class and function) definitions. */
  moduleLevel: boolean;
  /** collect SQL strings (structural mode); undefined in compat mode. */
  sql?: string[];
}

const COMPARE_MIRROR: Record<string, string> = { Gt: 'Lt', Lt: 'Gt', GtE: 'LtE', LtE: 'GtE', Eq: 'Eq' };

/** `_simple_nomalize`: single ==, <, >, <=, >= comparisons ordered by operand type name, operator mirrored. */
function canonicalCompare(n: PyNode): PyNode {
  const ops = n.fields[1][1] as PyNode[];
  const comparators = n.fields[2][1] as PyNode[];
  const left = n.fields[0][1] as PyNode;
  if (ops.length !== 1 || comparators.length !== 1) return n;
  const mirrored = COMPARE_MIRROR[ops[0].type];
  if (!mirrored || !(left.type > comparators[0].type)) return n;
  return { type: 'Compare', fields: [['left', comparators[0]], ['ops', [{ type: mirrored, fields: [] }]], ['comparators', [left]]] };
}

function callName(n: PyNode): string | undefined {
  const func = n.fields[0][1];
  if (!isNode(func)) return undefined;
  if (func.type === 'Name') return func.id;
  if (func.type === 'Attribute') {
    const attr = func.fields.find((f) => f[0] === 'attr')?.[1];
    return attr && isNode(attr) ? undefined : (attr as { repr: string } | undefined)?.repr.slice(1, -1);
  }
  return undefined;
}

/** Returns the normalised node, or undefined when the NodeTransformer would remove it. */
function normalise(n: PyNode, ctx: NormaliseContext): PyNode | undefined {
  switch (n.type) {
    case 'Constant':
      if (ctx.sql && n.text !== undefined && SQL_LOOKING.test(n.text)) ctx.sql.push(n.text);
      return undefined;
    case 'Import':
    case 'ImportFrom':
      return undefined;
    case 'FunctionDef':
    case 'ClassDef':
      if (ctx.moduleLevel) return undefined;
      if (n.type === 'FunctionDef') return generic({ type: n.type, fields: n.fields.filter((f) => f[0] !== 'name') }, ctx);
      return generic(n, ctx);
    case 'Expr': {
      const value = normalise(n.fields[0][1] as PyNode, ctx);
      return value ? { type: 'Expr', fields: [['value', value]] } : undefined;
    }
    case 'Name':
      return { type: 'Name', fields: [] };
    case 'Attribute':
      return generic({ type: 'Attribute', fields: [n.fields[0]] }, ctx);
    case 'Call': {
      const name = callName(n);
      const func = n.fields[0][1] as PyNode;
      if (func.type === 'Name' && name === 'print') return undefined;
      if (ctx.sql && name !== undefined && SQL_CALL_NAMES.has(name)) {
        const first = (n.fields[1][1] as PyNode[])[0];
        if (first && first.text !== undefined && !SQL_LOOKING.test(first.text)) ctx.sql.push(first.text);
      }
      return generic(n, ctx);
    }
    case 'JoinedStr':
      if (ctx.sql && n.text !== undefined && SQL_LOOKING.test(n.text)) ctx.sql.push(n.text);
      return generic(n, ctx);
    case 'Compare':
      return generic(canonicalCompare(n), ctx);
    default:
      return generic(n, ctx);
  }
}

function generic(n: PyNode, ctx: NormaliseContext): PyNode {
  const optional = OPTIONAL_FIELDS[n.type];
  const fields: [string, PyValue][] = [];
  for (const [name, value] of n.fields) {
    if (Array.isArray(value)) {
      const list: PyValue[] = [];
      for (const v of value) {
        if (isNode(v)) {
          const r = normalise(v, ctx);
          if (r) list.push(r);
        } else list.push(v);
      }
      fields.push([name, list]);
    } else if (isNode(value)) {
      const r = normalise(value, ctx);
      if (r) fields.push([name, r]);
      else if (optional && optional.includes(name)) fields.push([name, null]);
    } else fields.push([name, value]);
  }
  return { type: n.type, fields };
}

function collectFunctions(value: PyValue, out: PyNode[]): void {
  if (Array.isArray(value)) {
    for (const v of value) collectFunctions(v, out);
  } else if (isNode(value)) {
    if (value.type === 'FunctionDef') out.push(value);
    for (const [, v] of value.fields) collectFunctions(v, out);
  }
}

/**
 * The dump lines of every unit of a parsed module. With `withSql`, the SQL
 * strings of each unit are appended to it as structural token lines.
 *
 * @example
 * pythonUnits(parsePython(src), false); // [[ 'Module(\n', ... ]]
 */
export function pythonUnits(module: PyNode, withSql: boolean): string[][] {
  const defs: PyNode[] = [];
  collectFunctions(module, defs);
  const units: string[][] = [];
  const unit = (root: PyNode, moduleLevel: boolean): void => {
    const ctx: NormaliseContext = { moduleLevel, sql: withSql ? [] : undefined };
    const normalised = normalise(root, ctx) as PyNode;
    const lines = dumpLines(normalised);
    if (ctx.sql && ctx.sql.length > 0) {
      lines[lines.length - 1] += '\n';
      for (const q of ctx.sql) lines.push(...sqlStructureLines(q));
    }
    units.push(lines);
  };
  for (const d of defs) unit(d, false);
  unit(module, true);
  return units;
}
