import { strict as assert } from 'node:assert';
import { toRunResult } from '../../../src/core/agent/runners/run-result';
import type { Supervised } from '../../../src/core/agent/runners/supervisor';

const LIMITS = { timeoutMs: 2000, memoryMb: 256, outputBytes: 1 << 20 };
const ended = (patch: Partial<Supervised>): Supervised => ({ stdout: '', stderr: '', truncated: false, exitCode: null, exitSignal: null, durationMs: 2050, ...patch });

describe('run results: how a run ended, in the public words', () => {
  it('a CPU-time kill is a timeout, whether the signal is seen or the sandbox wrapper reports it as exit code 128 + SIGXCPU', () => {
    for (const s of [ended({ exitSignal: 'SIGXCPU' }), ended({ exitCode: 152 })]) {
      const r = toRunResult(s, LIMITS, 'python');
      assert.equal(r.outcome, 'timeout');
      assert.equal(r.killedBy, 'timeout');
      assert.match(r.error?.message ?? '', /CPU-time limit \(2000 ms\)/);
    }
  });

  it('another exit code without a result is a crash, with the code', () => {
    const r = toRunResult(ended({ exitCode: 3, stderr: 'boom' }), LIMITS, 'python');
    assert.equal(r.outcome, 'error');
    assert.match(r.error?.message ?? '', /exited with code 3 without a result: boom/);
  });
});
