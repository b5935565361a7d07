/**
 * The EHR demo data the editor needs (task file reader, the demo's initial
 * memory and its task stream): editor-side, never imports the bench.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { AgentMemoryError } from '../errors';
import { goldProgram } from './gold-program';
import type { NewRecordInput } from '../memory/types';
import { sampleWithoutReplacement } from '../random';

export const DEMO_TASKS_FILE = 'ehrsql-mimic3-tasks.jsonl';
export const DEMO_DATABASE_FILE = 'mimic3-demo.sqlite';
export const DEFAULT_SEED_COUNT = 100;
export const DEMO_SEED = 7;

const DemoTaskSchema = z.object({
  id: z.string(),
  question: z.string().min(1),
  template: z.string().optional(),
  gold_sql: z.string().min(1),
  answer: z.unknown(),
  answer_status: z.string(),
});
export type DemoTask = z.infer<typeof DemoTaskSchema>;

/** Reads the EHR demo task file, naming the line of any invalid entry. */
export function readDemoTasks(file: string): DemoTask[] {
  if (!fs.existsSync(file)) throw new AgentMemoryError('NOT_FOUND', `Demo task file not found: ${file}. Reinstall the extension or the CLI; on the CLI, --data names the folder that holds it (the bundled data/ehr by default).`);
  return fs.readFileSync(file, 'utf8').split('\n').flatMap((line, i) => {
    if (!line.trim()) return [];
    const parsed = DemoTaskSchema.safeParse(JSON.parse(line));
    if (!parsed.success) throw new AgentMemoryError('INVALID_INPUT', `${path.basename(file)}:${i + 1}: field '${parsed.error.issues[0].path.join('.')}': ${parsed.error.issues[0].message}`);
    return [parsed.data];
  });
}

/**
 * The demo's initial memory: gold programs of `count` EHR questions from the lines
 * that are NOT in the demo task stream (the `nonempty` questions), so the stream is
 * never answered from its own gold. Drawn with a fixed seed, round-robin over
 * question templates, templates of the stream first: the demo memory covers the
 * kinds of question the demo asks (40 of its 52 templates have such lines), the way
 * a user would prepare one. The benchmark (`npm run bench:paper`) instead draws its
 * initial memory uniformly at random, like the paper.
 */
export function demoSeedRecords(tasks: DemoTask[], count: number, language: 'python' | 'javascript', seed = DEMO_SEED): NewRecordInput[] {
  const pool = tasks.filter((t) => t.answer_status !== 'nonempty');
  const shuffled = sampleWithoutReplacement(pool, pool.length, seed);
  const streamTemplates = new Set(tasks.filter((t) => t.answer_status === 'nonempty').map((t) => t.template ?? ''));
  const byTemplate = new Map<string, DemoTask[]>();
  for (const t of shuffled) {
    const key = t.template ?? t.id;
    byTemplate.set(key, [...(byTemplate.get(key) ?? []), t]);
  }
  const order = [...byTemplate.keys()].sort((a, b) => Number(streamTemplates.has(b)) - Number(streamTemplates.has(a)));
  const picked: DemoTask[] = [];
  for (let round = 0; picked.length < count && order.some((k) => byTemplate.get(k)!.length > round); round++) {
    for (const key of order) {
      const t = byTemplate.get(key)![round];
      if (t && picked.length < count) picked.push(t);
    }
  }
  return picked.map((t) => ({
    question: t.question,
    execution: { code: goldProgram(t.gold_sql, language), language, answer: t.answer, outcome: 'success' as const },
    provenance: 'seed' as const,
    status: 'active' as const,
    metadata: { template: t.template ?? null, sourceId: t.id },
  }));
}

/** The demo task stream: the questions whose gold answer is non-empty. */
export function demoStream(tasks: DemoTask[]): { question: string; answer: unknown }[] {
  return tasks.filter((t) => t.answer_status === 'nonempty').map((t) => ({ question: t.question, answer: t.answer }));
}
