import * as os from 'node:os';
import type { Supervised } from './supervisor';
import type { RunLanguage, RunLimits, RunResult } from './types';

/** How a wrapper (bwrap, a shell) reports a child killed by SIGXCPU: 128 + the signal number. */
const EXIT_BY_SIGXCPU = 128 + (os.constants.signals.SIGXCPU ?? 24);

const V8_OOM = /heap out of memory|Reached heap limit|Fatal process out of memory|Array buffer allocation failed/i;

/** Maps what the supervisor saw to the public RunResult (limits first, then the child's own message). */
export function toRunResult(s: Supervised, limits: RunLimits, language: RunLanguage): RunResult {
  const base = { stdout: s.stdout, stderr: s.stderr, truncated: s.truncated, durationMs: Math.round(s.durationMs) };
  if (s.result) {
    const r = s.result;
    if (r.status === 'answer') return { ...base, outcome: 'success', answer: r.answer ?? null };
    if (r.status === 'no-answer') {
      return { ...base, outcome: 'no-answer', answer: null, error: { kind: 'NoAnswer', message: 'the code finished without setting an answer (assign `answer = ...` or call setAnswer(...))' } };
    }
    const error = r.error ?? { kind: 'Error', message: 'unknown error' };
    const memory = error.kind === 'MemoryError' || (error.kind === 'RangeError' && V8_OOM.test(error.message));
    return { ...base, outcome: 'error', answer: null, error, ...(memory ? { killedBy: 'memory' as const } : {}) };
  }
  switch (s.killedBy) {
    case 'timeout':
      return { ...base, outcome: 'timeout', answer: null, killedBy: 'timeout', error: { kind: 'Timeout', message: `the code was killed after ${limits.timeoutMs} ms (time limit)` } };
    case 'memory':
      return { ...base, outcome: 'error', answer: null, killedBy: 'memory', error: { kind: 'MemoryLimit', message: `the code was killed for using more than the ${limits.memoryMb} MiB memory limit` } };
    case 'output':
      return { ...base, outcome: 'error', answer: null, killedBy: 'output', error: { kind: 'OutputLimit', message: `the code was killed for printing more than ${limits.outputBytes} bytes; print less` } };
    case 'cancel':
      return { ...base, outcome: 'error', answer: null, killedBy: 'cancel', error: { kind: 'Cancelled', message: 'the run was cancelled' } };
    default:
      break;
  }
  if (V8_OOM.test(s.stderr)) {
    return { ...base, outcome: 'error', answer: null, killedBy: 'memory', error: { kind: 'MemoryLimit', message: `the code ran out of memory (limit ${limits.memoryMb} MiB)` } };
  }
  // Killed by its CPU-time limit: the signal itself, or (through the sandbox wrapper, which exits with 128 + the
  // signal of the process it ran) exit code 152. Under load the CPU limit can fire just before the wall-clock one.
  if (s.exitSignal === 'SIGXCPU' || s.exitCode === EXIT_BY_SIGXCPU) {
    return { ...base, outcome: 'timeout', answer: null, killedBy: 'timeout', error: { kind: 'Timeout', message: `the code used more than its CPU-time limit (${limits.timeoutMs} ms)` } };
  }
  const how = s.exitSignal ? `was killed by ${s.exitSignal}` : `exited with code ${s.exitCode}`;
  const detail = s.protocolError ? ` (${s.protocolError})` : '';
  const tail = s.stderr.trim().split('\n').slice(-5).join('\n');
  return {
    ...base,
    outcome: 'error',
    answer: null,
    ...(s.exitSignal ? { killedBy: 'signal' as const } : {}),
    error: { kind: 'Crashed', message: `the ${language} process ${how} without a result${detail}${tail ? `: ${tail}` : ''}` },
  };
}
