/**
 * The paper's grid (Tables 1–2) on a task stream: addition fixed / all /
 * coarse / strict without deletion (Table 1), and coarse / strict × none /
 * periodic / history / combined (Table 2). Shared cells (coarse and strict
 * without deletion) run once.
 */
import type { AdditionPolicyName } from '../policy/addition';
import { ADDITION_POLICIES, PAPER_DELETION_SETTINGS } from '../policy/names';
import type { BenchDeletion } from './policy-adapter';

export interface GridCell {
  addition: AdditionPolicyName;
  deletion: BenchDeletion;
}

export interface GridRow extends GridCell {
  final_accuracy: number;
  memory_size_final: number;
  agent_overhead_ms_per_task: number;
  agent_overhead_ms_p95: number;
}

export const TABLE1: GridCell[] = ADDITION_POLICIES.map((addition) => ({ addition, deletion: 'none' }));
export const TABLE2: GridCell[] = (['coarse', 'strict'] as const).flatMap((addition) => PAPER_DELETION_SETTINGS.map((deletion) => ({ addition, deletion })));

/** The unique cells of both tables, in table order. */
export function paperGridCells(): GridCell[] {
  const seen = new Set<string>();
  return [...TABLE1, ...TABLE2].filter((c) => {
    const key = `${c.addition}/${c.deletion}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const ADDITION_NAMES: Record<AdditionPolicyName, string> = { fixed: 'Fixed', all: 'Add all', coarse: 'Coarse', strict: 'Strict' };
const DELETION_NAMES: Record<BenchDeletion, string> = { none: 'No del', periodic: 'Period', history: 'History', combined: 'Combined', forgetting: 'Forgetting' };

function find(rows: GridRow[], cell: GridCell): GridRow | undefined {
  return rows.find((r) => r.addition === cell.addition && r.deletion === cell.deletion);
}

function line(cols: string[], widths: number[]): string {
  return cols.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
}

/**
 * Both tables as plain text (accuracy in %, final memory size).
 *
 * @example
 * process.stdout.write(formatPaperTables(rows, 'period 29 …'));
 */
export function formatPaperTables(rows: GridRow[], footer: string): string {
  const acc = (r?: GridRow) => (r ? (r.final_accuracy * 100).toFixed(2) : 'n/a');
  const mem = (r?: GridRow) => (r ? String(r.memory_size_final) : 'n/a');
  const w1 = [10, 8, 9];
  const t1 = [
    'Table 1 — memory addition (no deletion)',
    line(['Strategy', 'ACC %', 'Mem size'], w1),
    ...TABLE1.map((c) => line([ADDITION_NAMES[c.addition], acc(find(rows, c)), mem(find(rows, c))], w1)),
  ];
  const w2 = [18, 8, 9];
  const t2 = ['Table 2 — memory deletion with selective addition', line(['Strategy', 'ACC %', 'Mem size'], w2)];
  for (const addition of ['coarse', 'strict'] as const) {
    t2.push(`${addition === 'coarse' ? 'Coarse' : 'Strict'} evaluator`);
    for (const c of TABLE2.filter((x) => x.addition === addition)) t2.push(line([`  ${DELETION_NAMES[c.deletion]}`, acc(find(rows, c)), mem(find(rows, c))], w2));
  }
  return `${t1.join('\n')}\n\n${t2.join('\n')}\n\n${footer}\n`;
}
