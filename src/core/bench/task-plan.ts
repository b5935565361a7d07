/**
 * Which tasks are streamed and which seed the initial memory: the stream is
 * the lines with the stream status (first `limit` of them); the initial memory
 * is `initialMemory` gold programs drawn with the seed from the OTHER lines.
 */
import { AgentMemoryError } from '../errors';
import { sampleWithoutReplacement } from '../random';
import { BenchTask, isStreamTask } from './task-file';

export interface TaskPlan {
  stream: BenchTask[];
  seeds: BenchTask[];
  /** Every task outside the stream (the seeds are drawn from it). */
  pool?: BenchTask[];
}

/**
 * @example
 * const { stream, seeds } = planTasks(readTaskFile('tasks.jsonl'), { initialMemory: 100, seed: 7 });
 */
export function planTasks(all: readonly BenchTask[], options: { initialMemory: number; seed: number; limit?: number; streamStatus?: string }): TaskPlan {
  const inStream = all.filter((t) => isStreamTask(t, options.streamStatus));
  const stream = options.limit !== undefined ? inStream.slice(0, options.limit) : inStream;
  if (stream.length === 0) {
    throw new AgentMemoryError('INVALID_INPUT', `No stream tasks: no line has answer_status '${options.streamStatus ?? 'nonempty'}' (or a non-empty answer). Check --tasks or --stream-status.`);
  }
  const streamLines = new Set(inStream.map((t) => t.line));
  const pool = all.filter((t) => !streamLines.has(t.line));
  if (pool.length < options.initialMemory) {
    throw new AgentMemoryError('INVALID_INPUT', `The initial memory needs ${options.initialMemory} tasks outside the stream but only ${pool.length} exist; lower --initial-memory.`);
  }
  return { stream, seeds: sampleWithoutReplacement(pool, options.initialMemory, options.seed), pool };
}
