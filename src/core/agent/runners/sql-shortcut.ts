/**
 * The SQL-only shortcut (the bench, issue 19, and revalidation, issue 22): a program that is nothing
 * but one `sql()` call on a string literal — a gold program
 * (`answer = sql("…")`) or its two-line form (`query = "…"` then
 * `answer = sql(query)`), what the simulated agent and the reuse model write —
 * has the answer of that one query. The shortcut asks the same read-only SQL
 * service the sandbox's `sql()` asks (same dialect conversion, same row cap,
 * same time limit) and skips the sandbox spawn; the answer goes through the
 * same JSON round trip as the sandbox's answer. Anything else, and every
 * query that fails, runs in the real sandbox, so errors are always the
 * sandbox's own. test/unit/bench/sql-shortcut.test.ts checks the two agree.
 */
import * as path from 'node:path';
import { toEhrSqlDialect } from './sql-dialect';
import type { SqlReply } from './sql-service';
import { resolveRunRequest, type RunRequest, type RunResult } from './types';

/** The query of a program made of one `sql()` call on a string literal, else null. */
export function sqlOnlyQuery(code: string, language: 'python' | 'javascript'): string | null {
  const end = language === 'javascript' ? ';' : '';
  const literal = `("(?:[^"\\\\\\n]|\\\\.)*")`;
  const one = new RegExp(`^answer = sql\\(${literal}\\)${end}$`).exec(code);
  const two = new RegExp(`^${language === 'javascript' ? 'const ' : ''}query = ${literal}${end}\\nanswer = sql\\(query\\)${end}$`).exec(code);
  const m = one ?? two;
  if (!m) return null;
  let sql: unknown;
  try {
    sql = JSON.parse(m[1]);
  } catch {
    return null;
  }
  // Only literals whose JSON escapes mean the same in both languages (JSON.stringify's own output).
  if (typeof sql !== 'string' || sql.trim() === '' || JSON.stringify(sql) !== m[1]) return null;
  return sql;
}

/** Largest answer (JSON characters) the shortcut returns itself. */
export const MAX_SHORTCUT_ANSWER_CHARS = 4_000_000;

export interface SqlQueryService {
  query(owner: number, request: { t: 'sql'; query: string; params: unknown[]; shape: 'array' | 'object' }, timeoutMs?: number): Promise<SqlReply>;
}

export interface ShortcutStats {
  shortcut: number;
  sandbox: number;
}

/**
 * Wraps a runner's `run`: SQL-only programs on `databasePath` go to `service`.
 *
 * @example
 * const run = withSqlShortcut((r, s) => runner.run(r, s), new SqlService(db, logger), db);
 */
export function withSqlShortcut(inner: (request: RunRequest, signal?: AbortSignal) => Promise<RunResult>, service: SqlQueryService, databasePath: string, stats: ShortcutStats = { shortcut: 0, sandbox: 0 }) {
  let owner = 1_000_000;
  return async (request: RunRequest, signal?: AbortSignal): Promise<RunResult> => {
    const query = path.resolve(request.databasePath) === path.resolve(databasePath) && !signal?.aborted ? sqlOnlyQuery(request.code, request.language) : null;
    if (query !== null) {
      const req = resolveRunRequest(request);
      const started = performance.now();
      const reply = await service.query(owner++, { t: 'sql', query: toEhrSqlDialect(query, req.now), params: [], shape: 'array' }, req.limits.timeoutMs);
      const json = reply.ok ? JSON.stringify(reply.rows) : '';
      // A very large answer runs in the sandbox too (its memory limit decides, as for any program).
      if (reply.ok && json.length <= MAX_SHORTCUT_ANSWER_CHARS) {
        stats.shortcut++;
        return { outcome: 'success', answer: JSON.parse(json) as unknown, stdout: '', stderr: '', truncated: false, durationMs: Math.round(performance.now() - started) };
      }
    }
    stats.sandbox++;
    return inner(request, signal);
  };
}
