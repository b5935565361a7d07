/**
 * The paper-style stream setup (issue 9): the stream is the test tasks
 * (`split = test`, answer_status `nonempty`) shuffled by the seed; the initial
 * memory is `initialMemory` gold programs drawn by the seed from the training
 * lines (`split = valid`, any answer status) of the stream's own templates.
 * Same tasks and seed ⇒ same plan.
 */
import { AgentMemoryError } from '../errors';
import { sampleWithoutReplacement, seededRandom } from '../random';
import type { BenchTask } from './task-file';
import { isStreamTask } from './task-file';
import type { TaskPlan } from './task-plan';

export const STREAM_SPLIT = 'test';
export const MEMORY_SPLIT = 'valid';

/** A seeded Fisher–Yates shuffle (a new array). */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  const rand = seededRandom(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

export interface PaperStreamOptions {
  initialMemory: number;
  seed: number;
  /** Run only the first N tasks of the shuffled stream. */
  limit?: number;
  streamStatus?: string;
}

/**
 * @example
 * const plan = planPaperStream(readTaskFile('data/ehr/ehrsql-mimic3-tasks.jsonl'), { initialMemory: 100, seed: 7 });
 * plan.stream.length; // 216 test tasks, shuffled with seed 7
 */
export function planPaperStream(all: readonly BenchTask[], options: PaperStreamOptions): TaskPlan {
  const testTasks = all.filter((t) => t.split === STREAM_SPLIT && isStreamTask(t, options.streamStatus));
  if (testTasks.length === 0) {
    throw new AgentMemoryError('INVALID_INPUT', `No stream tasks: no line has split '${STREAM_SPLIT}' and answer_status '${options.streamStatus ?? 'nonempty'}'. Use the EHRSQL task file (data/ehr/ehrsql-mimic3-tasks.jsonl), whose lines carry a split.`);
  }
  // Shuffle with a derived seed so that the stream order and the memory draw are independent.
  const order = shuffled(testTasks, options.seed * 2 + 1);
  const stream = options.limit !== undefined ? order.slice(0, options.limit) : order;
  // The templates of the whole test stream: a --limit run starts from the same initial memory.
  const templates = new Set(order.map((t) => t.template).filter((t): t is string => t !== undefined));
  const pool = all.filter((t) => t.split === MEMORY_SPLIT && t.template !== undefined && templates.has(t.template));
  if (pool.length < options.initialMemory) {
    throw new AgentMemoryError('INVALID_INPUT', `The initial memory needs ${options.initialMemory} '${MEMORY_SPLIT}' lines of the stream's templates but only ${pool.length} exist; lower --initial-memory.`);
  }
  return { stream, seeds: sampleWithoutReplacement(pool, options.initialMemory, options.seed * 2), pool };
}

/** How many stream tasks have at least one initial-memory record of the same template. */
export function templateCoverage(plan: TaskPlan): number {
  const seeded = new Set(plan.seeds.map((t) => t.template));
  return plan.stream.filter((t) => t.template !== undefined && seeded.has(t.template)).length;
}
