/** General coding records (several languages) for the relevance tests: a new user's memory of the issue 35 kind. */
import type { Language } from '../../src/core/memory/types';

/** General coding experiences, as the new user recorded them through the MCP server. */
export const CODING: { question: string; code: string; language: Language }[] = [
  { question: 'fix the off-by-one in paginate() in src/utils/pager.ts', code: 'export function paginate<T>(items: T[], page: number, size: number): T[] {\n  return items.slice(page * size, (page + 1) * size);\n}', language: 'typescript' },
  { question: 'parse an ISO 8601 timestamp into a datetime', code: 'from datetime import datetime\nts = datetime.fromisoformat(text)', language: 'python' },
  { question: 'sort a list of dicts by a key', code: "rows.sort(key=lambda r: r['age'])", language: 'python' },
  { question: 'read a csv file and sum the second column in go', code: 'func sum(r *csv.Reader) int {\n  total := 0\n  for { rec, err := r.Read(); if err != nil { break }; total += atoi(rec[1]) }\n  return total\n}', language: 'go' },
  { question: 'retry an HTTP request with exponential backoff', code: 'async function retry(fn) { for (let i = 0; i < 5; i++) { try { return await fn(); } catch { await sleep(2 ** i * 100); } } }', language: 'javascript' },
  { question: 'count rows per day in the events table', code: 'SELECT date(created_at) AS day, count(*) FROM events GROUP BY 1', language: 'sql' },
];
