import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { run } from '../../../src/cli/commands/bench';
import type { BenchMetrics } from '../../../src/core/bench/metrics';

const DATA = path.resolve(__dirname, '..', '..', '..', 'data', 'ehr');

/**
 * A small end-to-end run through the real CLI command, the real sandboxed
 * runner, the real store, retrieval and policies: 15 EHR tasks, 10 seeds.
 */
describe('bench: end-to-end on real EHR tasks', function () {
  this.timeout(60_000);
  let dir: string;
  let stdout: (typeof process.stdout)['write'];

  let tasksFile: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-e2e-'));
    stdout = process.stdout.write.bind(process.stdout);
    // Real EHR lines: the first 15 population-level tasks form the stream; 10 later
    // tasks of the same templates (relabelled so they are not streamed) are the seed pool.
    const lines = fs.readFileSync(path.join(DATA, 'ehrsql-mimic3-tasks.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const nonempty = lines.filter((l) => l.answer_status === 'nonempty');
    const stream = nonempty.slice(0, 15);
    const templates = new Set(stream.map((l) => l.template));
    const pool = nonempty.slice(15).filter((l) => templates.has(l.template)).slice(0, 10).map((l) => ({ ...l, answer_status: 'seed-pool' }));
    assert.equal(pool.length, 10);
    tasksFile = path.join(dir, 'tasks.jsonl');
    fs.writeFileSync(tasksFile, [...stream, ...pool].map((l) => JSON.stringify(l)).join('\n') + '\n');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function bench(name: string, extra: string[]): Promise<{ metrics: BenchMetrics; html: string; printed: string }> {
    const out = path.join(dir, name);
    let printed = '';
    process.stdout.write = ((chunk: string) => ((printed += chunk), true));
    let code: number;
    try {
      code = await run(['--tasks', tasksFile, '--db', path.join(DATA, 'mimic3-demo.sqlite'), '--limit', '15', '--initial-memory', '10', '--language', 'javascript', '--quiet', '--out', out, ...extra]);
    } finally {
      process.stdout.write = stdout;
    }
    assert.equal(code, 0);
    return { metrics: JSON.parse(fs.readFileSync(path.join(out, 'metrics.json'), 'utf8')) as BenchMetrics, html: fs.readFileSync(path.join(out, 'report.html'), 'utf8'), printed };
  }

  function assertConsistent(m: BenchMetrics): void {
    assert.equal(m.rows.length, 15);
    assert.equal(m.tasks, 15);
    const correct = m.rows.filter((r) => r.correct === 1).length;
    assert.equal(m.correct, correct);
    assert.equal(m.final_accuracy, Math.round((correct / 15) * 1e6) / 1e6);
    let running = 0;
    m.rows.forEach((r, i) => {
      running += r.correct;
      assert.equal(r.position, i + 1);
      assert.ok(Math.abs(m.accuracy_curve[i] - running / (i + 1)) < 1e-6);
      assert.equal(m.memory_size_curve[i], r.memorySize);
      assert.ok(r.overheadMs >= 0 && r.overheadMs >= r.loopOverheadMs);
    });
    assert.equal(m.memory_size_final, m.rows[14].memorySize);
    assert.equal(m.initial_memory_size, 10);
    // Memory size follows additions and deletions exactly.
    let size = 10;
    for (const r of m.rows) {
      size += (r.added ? 1 : 0) - r.deleted;
      assert.equal(r.memorySize, size, `task ${r.position}`);
    }
    const inputs = m.rows.map((r) => r.inputSimilarity).filter((x): x is number => x !== null);
    assert.ok(inputs.length > 0);
    assert.ok(Math.abs((m.mean_input_similarity ?? NaN) - inputs.reduce((s, x) => s + x, 0) / inputs.length) < 1e-6);
    assert.equal(m.prompt_tokens, 0, 'the reuse model uses no tokens');
    assert.ok(m.agent_overhead_ms_per_task > 0);
    assert.match(m.model, /reuse/);
  }

  it('strict addition adds exactly the correct tasks and writes consistent metrics and a report', async () => {
    const { metrics, html, printed } = await bench('strict', ['--addition', 'strict']);
    assertConsistent(metrics);
    for (const r of metrics.rows) assert.equal(r.added, r.correct === 1, `task ${r.position}: strict adds iff correct`);
    assert.ok(metrics.correct > 0, 'some tasks are solved by adapting seed programs');
    assert.match(printed, /accuracy \d+\.\d\d% \(\d+\/15\)/);
    assert.match(html, /<svg/);
    assert.doesNotMatch(html, /<script/i);
  });

  it('add-all adds every task; fixed never does', async () => {
    const all = (await bench('all', ['--addition', 'all'])).metrics;
    assertConsistent(all);
    assert.ok(all.rows.every((r) => r.added));
    assert.equal(all.memory_size_final, 25);
    const fixed = (await bench('fixed', ['--addition', 'fixed', '--order', 'shift'])).metrics;
    assertConsistent(fixed);
    assert.equal(fixed.memory_size_final, 10);
    assert.ok(fixed.rows.every((r) => r.group !== null));
    assert.deepEqual([...fixed.rows.map((r) => r.id)].sort(), [...all.rows.map((r) => r.id)].sort(), 'shift reorders the same tasks');
  });
});
