import * as fs from 'node:fs';
import { z } from 'zod';
import { AgentMemoryError } from '../errors';
import { seededRandom } from '../random';
import type { NewRecordInput } from '../memory/types';

/**
 * Realistic synthetic memory records for benchmarks: EHRSQL questions whose
 * slot values (drug, lab, diagnosis names, ids, numbers) are swapped for values
 * of the same slot seen elsewhere in the data, in the question and the SQL alike.
 *
 * @example
 * const gen = SyntheticRecords.fromFile('data/ehr/ehrsql-mimic3-tasks.jsonl', 42);
 * const inputs = gen.records(1000);   // NewRecordInput[]
 * const q = gen.question();           // a fresh question text
 */
const TaskSchema = z.object({
  question: z.string(),
  template: z.string(),
  values: z.record(z.string(), z.unknown()).default({}),
  gold_sql: z.string().default(''),
});
type Task = z.infer<typeof TaskSchema>;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export class SyntheticRecords {
  private readonly pools = new Map<string, string[]>();
  private readonly random: () => number;
  private serial = 0;

  constructor(private readonly tasks: Task[], seed: number) {
    if (tasks.length === 0) throw new AgentMemoryError('INVALID_INPUT', 'No tasks to generate records from.');
    this.random = seededRandom(seed);
    for (const t of tasks) {
      for (const [key, value] of Object.entries(t.values)) {
        if (typeof value !== 'string' && typeof value !== 'number') continue;
        const pool = this.pools.get(key) ?? [];
        pool.push(String(value));
        this.pools.set(key, pool);
      }
    }
  }

  /** Reads an EHRSQL task file (JSONL with question, template, values, gold_sql). */
  static fromFile(file: string, seed: number): SyntheticRecords {
    if (!fs.existsSync(file)) throw new AgentMemoryError('NOT_FOUND', `Task file ${file} not found; run from the repository root or pass --tasks.`);
    const tasks = fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => TaskSchema.parse(JSON.parse(l)));
    return new SyntheticRecords(tasks, seed);
  }

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)];
  }

  /** One varied task: question and SQL with fresh slot values. */
  variant(): { question: string; sql: string; template: string } {
    const task = this.pick(this.tasks);
    let question = task.question;
    let sql = task.gold_sql;
    for (const [key, value] of Object.entries(task.values)) {
      if (typeof value !== 'string' && typeof value !== 'number') continue;
      const pool = this.pools.get(key);
      if (!pool || String(value).length === 0) continue;
      const next = this.pick(pool);
      const pattern = new RegExp(escapeRegExp(String(value)), 'gi');
      question = question.replace(pattern, next);
      sql = sql.replace(pattern, next);
    }
    return { question, sql, template: task.template };
  }

  question(): string {
    return this.variant().question;
  }

  /** `n` active record inputs with unique ids. */
  records(n: number): NewRecordInput[] {
    const out: NewRecordInput[] = [];
    for (let i = 0; i < n; i++) {
      const v = this.variant();
      const id = `syn-${++this.serial}`;
      out.push({
        id,
        question: v.question,
        execution: { code: `answer = sql(${JSON.stringify(v.sql)})`, language: 'python', outcome: 'success', answer: null },
        status: 'active',
        provenance: 'seed',
        createdTask: this.serial,
        metadata: { template: v.template },
      });
    }
    return out;
  }
}
