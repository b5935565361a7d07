/**
 * Strict comparison of a task's answer against the ground truth (EHRSQL style).
 *
 * Decisions (documented, tested in test/unit/policy/answers.test.ts):
 * - Answers are compared as **sets of rows**: row order and duplicate rows are
 *   ignored. EHRSQL gold queries mostly use `DISTINCT` and rarely an `ORDER BY`
 *   that matters, so an agent that forgets `DISTINCT` is not penalised.
 * - Shapes: `null`/`undefined` mean "no answer" (only equal to another no-answer).
 *   A scalar `x` equals `[[x]]`; a flat list `[a, b]` is read as single-column rows
 *   `[[a], [b]]` and, when the other side is exactly one row, also as that one row
 *   `[[a, b]]`. `[]` is the empty result and equals `[[]]`-free empty lists only.
 * - Values: numbers (and strings that are entirely a finite number, e.g. `'5'`,
 *   `' 12.50 '`) compare numerically with a relative tolerance (default 1e-6, plus
 *   an absolute 1e-9 for values near zero), so int vs float and `'5'` vs `5` match.
 *   Booleans compare as 1/0. Other strings compare case-insensitively after trimming
 *   and collapsing runs of whitespace. `null` equals only `null`. Nested objects are
 *   compared through their canonical JSON text.
 */
export interface AnswerCompareOptions {
  /** `set` (default): set-of-rows equality; `contains`: the paper's ground-truth-contained-in-answer (answerContains). */
  match?: AnswerMatch;
  /** Relative tolerance for numbers (default 1e-6). */
  relativeTolerance?: number;
  /** Absolute tolerance for numbers near zero (default 1e-9). */
  absoluteTolerance?: number;
}

import type { AnswerMatch } from './names';

export const DEFAULT_RELATIVE_TOLERANCE = 1e-6;
export const DEFAULT_ABSOLUTE_TOLERANCE = 1e-9;

type Cell = { kind: 'num'; value: number } | { kind: 'str'; value: string } | { kind: 'null' };
type Row = Cell[];

const NUMERIC = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

function toCell(value: unknown): Cell {
  if (value === null || value === undefined) return { kind: 'null' };
  if (typeof value === 'number') return Number.isFinite(value) ? { kind: 'num', value } : { kind: 'str', value: String(value).toLowerCase() };
  if (typeof value === 'bigint') return { kind: 'num', value: Number(value) };
  if (typeof value === 'boolean') return { kind: 'num', value: value ? 1 : 0 };
  if (typeof value === 'string') {
    const trimmed = value.trim();
    if (NUMERIC.test(trimmed)) return { kind: 'num', value: Number(trimmed) };
    return { kind: 'str', value: trimmed.replace(/\s+/g, ' ').toLowerCase() };
  }
  return { kind: 'str', value: JSON.stringify(value).toLowerCase() };
}

function cellsEqual(a: Cell, b: Cell, rtol: number, atol: number): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'null') return true;
  if (a.kind === 'str') return a.value === (b as { value: string }).value;
  const x = a.value;
  const y = (b as { value: number }).value;
  const diff = Math.abs(x - y);
  return diff <= atol || diff <= rtol * Math.max(Math.abs(x), Math.abs(y));
}

function rowsEqual(a: Row, b: Row, rtol: number, atol: number): boolean {
  return a.length === b.length && a.every((cell, i) => cellsEqual(cell, b[i], rtol, atol));
}

/** Possible row-set readings of an answer value; `null` when there is no answer. */
function readings(answer: unknown): Row[][] | null {
  if (answer === null || answer === undefined) return null;
  if (!Array.isArray(answer)) return [[[toCell(answer)]]];
  if (answer.length === 0) return [[]];
  if (answer.every((row) => Array.isArray(row))) return [(answer as unknown[][]).map((row) => row.map(toCell))];
  // A flat list (or a mix): single-column rows, or one row.
  const columnRows = answer.map((v) => (Array.isArray(v) ? v.map(toCell) : [toCell(v)]));
  const oneRow = answer.every((v) => !Array.isArray(v)) ? [[answer.map(toCell)]] : [];
  return [columnRows, ...oneRow];
}

/** Above this many row pairs, rows are compared by a rounded key instead of pairwise. */
const PAIRWISE_LIMIT = 4_000_000;

function rowKey(row: Row): string {
  return JSON.stringify(row.map((c) => (c.kind === 'num' ? Number(c.value.toPrecision(9)) : c.kind === 'str' ? c.value : null)));
}

/** Every row of `a` has an equal row in `b` (set inclusion under tolerance). */
function included(a: Row[], b: Row[], rtol: number, atol: number): boolean {
  if (a.length * b.length > PAIRWISE_LIMIT) {
    // Large results: numbers rounded to 9 significant digits (≈ the default tolerance).
    const keys = new Set(b.map(rowKey));
    return a.every((row) => keys.has(rowKey(row)));
  }
  return a.every((row) => b.some((other) => rowsEqual(row, other, rtol, atol)));
}

/**
 * True when `actual` equals `expected` as a set of rows (see the module notes).
 *
 * @example
 * answersMatch([['PO']], 'po');            // true
 * answersMatch([[12.5]], [['12.50']]);     // true
 * answersMatch([['a'], ['b']], ['b', 'a']); // true
 */
export function answersMatch(expected: unknown, actual: unknown, options: AnswerCompareOptions = {}): boolean {
  const rtol = options.relativeTolerance ?? DEFAULT_RELATIVE_TOLERANCE;
  const atol = options.absoluteTolerance ?? DEFAULT_ABSOLUTE_TOLERANCE;
  const exp = readings(expected);
  const act = readings(actual);
  if (exp === null || act === null) return exp === null && act === null;
  for (const e of exp) {
    for (const a of act) {
      if (included(e, a, rtol, atol) && included(a, e, rtol, atol)) return true;
    }
  }
  return false;
}

/** A cell's text for containment: numbers in their shortest form (12.50 → 12.5), strings normalised as for equality. */
function cellText(cell: Cell): string {
  return cell.kind === 'num' ? String(cell.value) : cell.kind === 'str' ? cell.value : 'null';
}

function cellsOf(answer: unknown): Cell[] {
  if (!Array.isArray(answer)) return [toCell(answer)];
  return answer.flatMap((v) => (Array.isArray(v) ? v.map(toCell) : [toCell(v)]));
}

/**
 * The paper's strict evaluator (Appendix A.2: "string matching to check if the
 * ground-truth is contained in the generated answer"): true when every value of
 * `expected` occurs as text in `actual`'s values joined together. Values are
 * normalised as for `answersMatch` (numbers in shortest form, strings trimmed,
 * whitespace collapsed, lower case). No answer (null) contains nothing; an empty gold
 * answer is contained in any answer (the empty string is a substring of every text).
 *
 * @example
 * answerContains([[12.5]], [['a', '12.50']]); // true
 * answerContains([['po'], ['iv']], ['PO']);   // false
 */
export function answerContains(expected: unknown, actual: unknown): boolean {
  if (actual === null || actual === undefined) return false;
  if (expected === null || expected === undefined) return false;
  const text = cellsOf(actual).map(cellText).join(' | ');
  return cellsOf(expected).every((cell) => text.includes(cellText(cell)));
}

/**
 * The strict comparison the options name: `answersMatch` (set, default) or `answerContains`.
 *
 * @example
 * answersAgree([['po']], [['po'], ['iv']], { match: 'contains' }); // true
 */
export function answersAgree(expected: unknown, actual: unknown, options: AnswerCompareOptions = {}): boolean {
  return options.match === 'contains' ? answerContains(expected, actual) : answersMatch(expected, actual, options);
}
