/**
 * @lezer/python access: one cursor walk copies the syntax tree into plain
 * objects (comments dropped, syntax errors rejected), plus token helpers.
 */
import { parser } from '@lezer/python';
import { PyUnsupported } from './py-ast';

/** A plain copy of a lezer node (comments left out): cheaper to walk than lezer's SyntaxNode. */
export interface SyntaxNode {
  name: string;
  from: number;
  to: number;
  children: SyntaxNode[];
}

/**
 * Parses with lezer and copies the tree through one cursor walk.
 * Throws `PyUnsupported` when lezer had to recover from a syntax error.
 */
export function lezerTree(text: string): SyntaxNode {
  const cursor = parser.parse(text).cursor();
  const copy = (): SyntaxNode => {
    if (cursor.type.isError) throw new PyUnsupported('syntax error');
    const n: SyntaxNode = { name: cursor.name, from: cursor.from, to: cursor.to, children: [] };
    if (cursor.firstChild()) {
      do {
        if (cursor.name !== 'Comment') n.children.push(copy());
        else if (cursor.type.isError) throw new PyUnsupported('syntax error');
      } while (cursor.nextSibling());
      cursor.parent();
    }
    return n;
  };
  return copy();
}

/** Converter state: the source text (operators and identifiers are read from it). */
export interface Src {
  text: string;
}

export function kids(n: SyntaxNode): SyntaxNode[] {
  return n.children;
}

export function textOf(s: Src, n: SyntaxNode): string {
  return s.text.slice(n.from, n.to);
}

/** Splits a token sequence on top-level commas; `trailing` tells whether any comma was seen. */
export function splitCommas(nodes: SyntaxNode[]): { groups: SyntaxNode[][]; comma: boolean } {
  const groups: SyntaxNode[][] = [];
  let cur: SyntaxNode[] = [];
  let comma = false;
  for (const n of nodes) {
    if (n.name === ',') {
      comma = true;
      groups.push(cur);
      cur = [];
    } else cur.push(n);
  }
  if (cur.length > 0) groups.push(cur);
  return { groups, comma };
}

/** The body of a string literal without prefix and quotes (escapes left as written). */
export function stringBody(literal: string): string {
  const m = /^[a-zA-Z]*('''|"""|'|")/.exec(literal);
  if (!m) return literal;
  const q = m[1];
  const end = literal.endsWith(q) && literal.length >= m[0].length + q.length ? literal.length - q.length : literal.length;
  return literal.slice(m[0].length, end);
}

