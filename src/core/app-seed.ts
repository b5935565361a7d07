import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { AgentMemoryError } from './errors';
import { goldProgram } from './bench/gold-program';
import type { NewRecordInput } from './memory/types';
import { sampleWithoutReplacement } from './random';

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
  if (!fs.existsSync(file)) throw new AgentMemoryError('NOT_FOUND', `Demo task file not found: ${file}. Reinstall the extension or set agentMemory.agent.dataPath.`);
  return fs.readFileSync(file, 'utf8').split('\n').flatMap((line, i) => {
    if (!line.trim()) return [];
    const parsed = DemoTaskSchema.safeParse(JSON.parse(line));
    if (!parsed.success) throw new AgentMemoryError('INVALID_INPUT', `${path.basename(file)}:${i + 1}: field '${parsed.error.issues[0].path.join('.')}': ${parsed.error.issues[0].message}`);
    return [parsed.data];
  });
}

/**
 * The demo's initial memory: gold programs of `count` EHR questions drawn with a
 * fixed seed from the lines that are NOT in the agent's task stream (the
 * `nonempty` questions), so the stream is never answered from its own gold.
 */
export function demoSeedRecords(tasks: DemoTask[], count: number, language: 'python' | 'javascript', seed = DEMO_SEED): NewRecordInput[] {
  const pool = sampleWithoutReplacement(tasks.filter((t) => t.answer_status !== 'nonempty'), count, seed);
  return pool.map((t) => ({
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
