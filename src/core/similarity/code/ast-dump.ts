/**
 * pycode_similar's pretty-printer (astor-style `_dump`, maxline 120, maxmerged 80,
 * four-space indentation), applied to a normalised {@link PyNode} tree.
 * The same printer is reused for the JavaScript trees.
 */
import { CTX, PyNode, PyValue, isNode } from './py-ast';

export const DUMP_MAX_LINE = 120;
export const DUMP_MAX_MERGED = 80;
const INDENTATION = '    ';

function inner(value: PyValue, name: string, indent: string): string {
  const level = indent + INDENTATION;
  const label = name ? name + '=' : '';
  let prefix: string;
  let suffix: string;
  let children: string[];
  if (Array.isArray(value)) {
    prefix = label + '[';
    suffix = ']';
    children = value.map((v) => inner(v, '', level));
  } else if (isNode(value)) {
    if (value.fields.length > 0) {
      prefix = label + value.type + '(';
      suffix = ')';
    } else {
      prefix = label + value.type;
      suffix = '';
    }
    children = [];
    for (const [field, v] of value.fields) if (v !== CTX && field !== 'ctx') children.push(inner(v, field, level));
  } else if (value === null) {
    return label + 'None';
  } else if (value === CTX) {
    return label;
  } else {
    return label + value.repr;
  }
  const oneline = prefix + children.join(', ') + suffix;
  if (oneline.length + indent.length < DUMP_MAX_LINE) return oneline;
  if (children.length > 0 && prefix.length + children[0].length < DUMP_MAX_MERGED) {
    prefix = prefix + (children.shift() as string) + ',';
  }
  const joined = children.join(',\n' + level).replace(/^\s+/, '');
  return prefix + '\n' + level + joined + suffix;
}

/**
 * Dumps a node and returns the lines the way `str.splitlines(True)` does
 * (every line but the last keeps its `\n`).
 *
 * @example
 * dumpLines(node('Pass')); // ['Pass']
 */
export function dumpLines(root: PyNode): string[] {
  const text = inner(root, '', '');
  const parts = text.split('\n');
  for (let i = 0; i < parts.length - 1; i++) parts[i] += '\n';
  return parts;
}
