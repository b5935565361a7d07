#!/usr/bin/env node
/**
 * `npm run bench:adapt [-- --tasks FILE --db FILE --failures N]`
 *
 * The reuse model's adaptation accuracy (issue 19, item 5): every ordered pair of
 * same-template EHRSQL tasks (target answer non-empty), the reference's gold SQL
 * adapted to the target's question and run on the demo database. Prints the share
 * right (result = gold answer) and identical (SQL = gold SQL), a few failures, and
 * the JSON summary as the last line.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { z } from 'zod';
import { measureAdaptation } from '../core/agent/reuse/pair-accuracy';
import { DatabaseValueLookup } from '../core/agent/reuse/value-lookup';
import { DEFAULT_NOW } from '../core/agent/runners/types';
import { toEhrSqlDialect } from '../core/agent/runners/sql-dialect';
import { runMain } from './run-main';
import { HELP_SHOWN, parseBenchArgs } from './args';

const ROOT = path.resolve(__dirname, '..', '..');
const USAGE = `Usage: npm run bench:adapt -- [--tasks FILE] [--db FILE] [--failures N]

Measures the reuse model's adaptation: for every pair of same-template questions, adapts one's
gold SQL to the other and checks the result against the gold answer on the demo database.`;

const OptionsSchema = z.object({
  tasks: z.string().min(1).default(path.join(ROOT, 'data', 'ehr', 'ehrsql-mimic3-tasks.jsonl')),
  db: z.string().min(1).default(path.join(ROOT, 'data', 'ehr', 'mimic3-demo.sqlite')),
  failures: z.coerce.number().int().min(0).default(10),
});

const TaskSchema = z.object({ question: z.string(), template: z.string(), gold_sql: z.string(), answer: z.unknown(), answer_status: z.string() });

function main(argv: string[]): Promise<number> {
  const o = parseBenchArgs(argv, { usage: USAGE, valued: ['tasks', 'db', 'failures'] }, OptionsSchema);
  if (o === HELP_SHOWN) return Promise.resolve(0);
  const tasks = fs.readFileSync(o.tasks, 'utf8').split('\n').filter((l) => l.trim()).map((l) => TaskSchema.parse(JSON.parse(l)));
  const db = new BetterSqlite3(o.db, { readonly: true, fileMustExist: true });
  try {
    const m = measureAdaptation(tasks, (sql) => db.prepare(toEhrSqlDialect(sql, DEFAULT_NOW)).raw().all(), new DatabaseValueLookup(db));
    const pct = (n: number) => ((100 * n) / Math.max(1, m.pairs)).toFixed(1);
    for (const f of m.failures.slice(0, o.failures)) process.stderr.write(`[bench:adapt] wrong: '${f.from}' → '${f.to}'\n  adapted: ${f.adapted}\n  gold:    ${f.gold}\n`);
    process.stdout.write(`same-template pairs: ${m.pairs}; adapted right (result = gold answer): ${m.right} (${pct(m.right)} %); identical SQL: ${m.identical} (${pct(m.identical)} %)\n`);
    process.stdout.write(JSON.stringify({ pairs: m.pairs, right: m.right, right_pct: Number(pct(m.right)), identical: m.identical }) + '\n');
  } finally {
    db.close();
  }
  return Promise.resolve(0);
}

if (require.main === module) runMain('bench:adapt', () => main(process.argv.slice(2)));
