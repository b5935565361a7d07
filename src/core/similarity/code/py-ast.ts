/**
 * A small Python-`ast`-like tree (Python 3.11 node and field names) built from
 * the @lezer/python syntax tree. Only what the structural similarity needs.
 */

/** Python's `None` in a field. */
export type PyNone = null;

/** Marker for a `ctx` field: counted like CPython does but never printed. */
export const CTX = Symbol('ctx');

/** Field value: a node, a list, a Python `None`, a pre-rendered `repr` (identifier, int) or a ctx marker. */
export type PyValue = PyNode | PyValue[] | PyNone | PyRepr | typeof CTX;

/** A primitive already rendered the way Python's `repr` would render it (`'key'`, `-1`, `0`). */
export interface PyRepr {
  repr: string;
}

export interface PyNode {
  type: string;
  fields: [string, PyValue][];
  /** identifier of a `Name` (only used to recognise `print(...)`). */
  id?: string;
  /** text of a string constant or f-string (placeholders as `?`), for the SQL extension. */
  text?: string;
}

/** Fields that CPython 3.11 gives a class-level `None` default (shown as `None` once deleted). */
export const OPTIONAL_FIELDS: Readonly<Record<string, readonly string[]>> = {
  AnnAssign: ['value'],
  Assert: ['msg'],
  Assign: ['type_comment'],
  AsyncFor: ['type_comment'],
  AsyncFunctionDef: ['returns', 'type_comment'],
  AsyncWith: ['type_comment'],
  ExceptHandler: ['type', 'name'],
  For: ['type_comment'],
  FormattedValue: ['format_spec'],
  FunctionDef: ['returns', 'type_comment'],
  Raise: ['exc', 'cause'],
  Return: ['value'],
  Slice: ['lower', 'upper', 'step'],
  With: ['type_comment'],
  Yield: ['value'],
  arg: ['annotation', 'type_comment'],
  arguments: ['vararg', 'kwarg'],
  keyword: ['arg'],
  withitem: ['optional_vars'],
};

export function node(type: string, fields: [string, PyValue][] = []): PyNode {
  return { type, fields };
}

export function repr(text: string): PyRepr {
  return { repr: text };
}

/** Python `repr` of an identifier string (identifiers never need escaping). */
export function strRepr(s: string): PyRepr {
  return { repr: `'${s}'` };
}

export function isNode(v: PyValue): v is PyNode {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && 'type' in v;
}

export function constant(text?: string): PyNode {
  const c = node('Constant', [['value', repr('...')], ['kind', null]]);
  if (text !== undefined) c.text = text;
  return c;
}

export function nameNode(id: string): PyNode {
  return { type: 'Name', fields: [['id', strRepr(id)], ['ctx', CTX]], id };
}

/** Thrown by the converter for syntax it does not model; callers fall back to a line diff. */
export class PyUnsupported extends Error {
  constructor(what: string) {
    super(`unsupported Python syntax: ${what}`);
    this.name = 'PyUnsupported';
  }
}
