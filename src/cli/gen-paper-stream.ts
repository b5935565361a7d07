#!/usr/bin/env node
/**
 * `npm run data:paper-stream [-- --seed 19 --target 4000 --cap 40]`
 *
 * Generates the paper-length EHR stream (issue 19) from the EHRSQL lines and
 * the demo database — templates × values, see src/core/data/stream-generator.ts —
 * and writes data/ehr/ehrsql-mimic3-paper-stream.jsonl and its data card
 * data/ehr/PAPER-STREAM-CARD.md. Seeded: re-running with the same options
 * rewrites the same bytes.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { z } from 'zod';
import { DEFAULT_NOW } from '../core/agent/runners/types';
import { toEhrSqlDialect } from '../core/agent/runners/sql-dialect';
import { STREAM_TASK_FILES } from '../core/bench/config';
import { ValuePools } from '../core/data/ehr-value-pools';
import { generateStream, SourceLineSchema } from '../core/data/stream-generator';
import { streamCard } from '../core/data/stream-card';
import { AgentMemoryError } from '../core/errors';
import { runMain } from './run-main';
import { HELP_SHOWN, parseBenchArgs } from './args';

const ROOT = path.resolve(__dirname, '..', '..');
const EHR = path.join(ROOT, 'data', 'ehr');
const PAPER_STREAM_FILE = STREAM_TASK_FILES.paper;
const USAGE = `Usage: npm run data:paper-stream -- [--seed 19] [--target 4000] [--cap 40] [--out DIR]

Generates the paper-length EHR stream from the EHRSQL lines and the demo database and writes
ehrsql-mimic3-paper-stream.jsonl and PAPER-STREAM-CARD.md to --out (default data/ehr). Seeded:
the same options rewrite the same bytes.`;

/** The options the committed file was made with (its card records them). */
export const PAPER_STREAM_DEFAULTS = { seed: 19, target: 4000, cap: 40 } as const;

const OptionsSchema = z.object({
  seed: z.coerce.number().int().min(0).default(PAPER_STREAM_DEFAULTS.seed),
  target: z.coerce.number().int().positive().default(PAPER_STREAM_DEFAULTS.target),
  cap: z.coerce.number().int().positive().default(PAPER_STREAM_DEFAULTS.cap),
  out: z.string().min(1).default(EHR),
});

async function main(argv: string[]): Promise<number> {
  const o = parseBenchArgs(argv, { usage: USAGE, valued: ['seed', 'target', 'cap', 'out'] }, OptionsSchema);
  if (o === HELP_SHOWN) return 0;
  const source = fs
    .readFileSync(path.join(EHR, 'ehrsql-mimic3-tasks.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l, i) => {
      const p = SourceLineSchema.safeParse(JSON.parse(l));
      if (!p.success) throw new AgentMemoryError('INVALID_INPUT', `ehrsql-mimic3-tasks.jsonl:${i + 1}: ${p.error.issues[0].path.join('.')}: ${p.error.issues[0].message}`);
      return p.data;
    });
  const db = new Database(path.join(EHR, 'mimic3-demo.sqlite'), { readonly: true, fileMustExist: true });
  try {
    const pools = new ValuePools(db);
    const results = new Map<string, unknown[][] | Error>();
    const run = (sql: string): unknown[][] => {
      let r = results.get(sql);
      if (r === undefined) {
        try {
          r = db.prepare(toEhrSqlDialect(sql, DEFAULT_NOW)).raw().all() as unknown[][];
        } catch (error) {
          r = error as Error;
        }
        results.set(sql, r);
      }
      if (r instanceof Error) throw r;
      return r;
    };
    const started = performance.now();
    const { lines, quotas } = generateStream(source, o, { pool: (c, patient) => pools.values(c, patient), run });
    fs.mkdirSync(o.out, { recursive: true });
    fs.writeFileSync(path.join(o.out, PAPER_STREAM_FILE), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const card = streamCard(lines, quotas, { ...o, command: `npm run data:paper-stream -- --seed ${o.seed} --target ${o.target} --cap ${o.cap}` });
    fs.writeFileSync(path.join(o.out, 'PAPER-STREAM-CARD.md'), card);
    const stream = lines.filter((l) => l.split === 'test').length;
    process.stderr.write(`data:paper-stream: ${stream} stream lines (test), ${lines.length - stream} memory-pool lines (valid) in ${((performance.now() - started) / 1000).toFixed(1)} s → ${path.join(o.out, PAPER_STREAM_FILE)}\n`);
    return 0;
  } finally {
    db.close();
  }
}

if (require.main === module) runMain('data:paper-stream', () => main(process.argv.slice(2)));
