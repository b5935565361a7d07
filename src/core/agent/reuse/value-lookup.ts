import type { Database } from '../../memory/sqlite/database';
import type { ValueLookup } from './adapt-code';

const IDENT = /^[a-z_][a-z0-9_]*$/i;
export const MAX_VALUES_PER_COLUMN = 50_000;

/**
 * Value linking over a read-only database connection: finds the longest
 * distinct value of `table.column` that the question mentions (word-bounded,
 * case-insensitive). Column values are loaded once and cached.
 */
export class DatabaseValueLookup implements ValueLookup {
  private readonly cache = new Map<string, string[]>();

  constructor(private readonly db: Database) {}

  findValue(column: string, question: string): string | null {
    const values = this.values(column);
    if (values.length === 0) return null;
    const q = ` ${question.toLowerCase().replace(/[?!]+$/g, '').replace(/\s+/g, ' ')} `;
    let best: string | null = null;
    for (const v of values) {
      if (best !== null && v.length <= best.length) continue;
      const at = q.indexOf(v);
      if (at <= 0) continue;
      const before = q[at - 1];
      const after = q[at + v.length] ?? ' ';
      if (/[a-z0-9]/.test(before) || /[a-z0-9]/.test(after)) continue;
      best = v;
    }
    return best;
  }

  private values(column: string): string[] {
    const cached = this.cache.get(column);
    if (cached) return cached;
    const [table, col] = column.split('.');
    let values: string[] = [];
    if (table && col && IDENT.test(table) && IDENT.test(col)) {
      try {
        values = (this.db.prepare(`SELECT DISTINCT ${col} AS v FROM ${table} WHERE ${col} IS NOT NULL LIMIT ${MAX_VALUES_PER_COLUMN}`).all() as { v: unknown }[])
          .map((r) => String(r.v).toLowerCase())
          .filter((v) => v.length >= 2);
      } catch {
        values = []; // unknown table/column: no linking for it
      }
    }
    this.cache.set(column, values);
    return values;
  }
}
