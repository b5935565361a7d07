import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { aggregateGrid, cellCurves, paperComparison } from '../../../src/core/bench/paper-aggregate';
import { CALIBRATION_TARGETS, cellKey, paperCells } from '../../../src/core/bench/paper-cells';
import type { CellSeedResult } from '../../../src/core/bench/paper-seed';
import { meanCi, tQuantile975 } from '../../../src/core/bench/stats';
import { planPaperStream, templateCoverage } from '../../../src/core/bench/stream-setup';
import { readTaskFile } from '../../../src/core/bench/task-file';
import { shiftOrder } from '../../../src/core/bench/kmeans';
import { HashingEmbedder } from '../../../src/core/similarity/hashing-embedder';
import { writeCalibrated } from '../../../src/cli/bench-calibrate';

const TASKS = path.resolve(__dirname, '..', '..', '..', 'data', 'ehr', 'ehrsql-mimic3-tasks.jsonl');

describe('bench: many-seed paper grid', () => {
  it('95 % CI of the mean uses Student t with n − 1 degrees of freedom', () => {
    const r = meanCi([10, 12, 14]);
    assert.equal(r.mean, 12);
    assert.equal(r.sd, 2);
    const half = (tQuantile975(2) * 2) / Math.sqrt(3);
    assert.ok(Math.abs(r.ci95[0] - (12 - half)) < 1e-9 && Math.abs(r.ci95[1] - (12 + half)) < 1e-9);
    assert.deepEqual(meanCi([5]).ci95, [5, 5]);
    assert.equal(tQuantile975(100), 1.96);
  });

  it('stream setup: test tasks shuffled by seed, initial memory from the valid lines of the stream templates; deterministic', () => {
    const all = readTaskFile(TASKS);
    const a = planPaperStream(all, { initialMemory: 100, seed: 4 });
    const b = planPaperStream(all, { initialMemory: 100, seed: 4 });
    const c = planPaperStream(all, { initialMemory: 100, seed: 5 });
    assert.deepEqual(a.stream.map((t) => t.id), b.stream.map((t) => t.id));
    assert.deepEqual(a.seeds.map((t) => t.id), b.seeds.map((t) => t.id));
    assert.notDeepEqual(a.stream.map((t) => t.id), c.stream.map((t) => t.id));
    assert.ok(a.stream.every((t) => t.split === 'test' && t.answerStatus === 'nonempty'));
    assert.deepEqual(new Set(a.stream.map((t) => t.id)), new Set(c.stream.map((t) => t.id)));
    const templates = new Set(a.stream.map((t) => t.template));
    assert.equal(a.seeds.length, 100);
    assert.ok(a.seeds.every((t) => t.split === 'valid' && templates.has(t.template)));
    assert.ok(templateCoverage(a) > a.stream.length / 2, `coverage ${templateCoverage(a)}`);
  });

  it('shift: the shuffled stream clustered into 3 groups, run group after group, same tasks as the no-shift baseline', () => {
    const plan = planPaperStream(readTaskFile(TASKS), { initialMemory: 100, seed: 2 });
    const embedder = new HashingEmbedder();
    const { order, groups } = shiftOrder(plan.stream.map((t) => embedder.embedSync(t.question)), 3, 2);
    assert.deepEqual([...order].sort((x, y) => x - y), plan.stream.map((_, i) => i));
    const seq = order.map((i) => groups[i]);
    assert.deepEqual(seq, [...seq].sort((x, y) => x - y), 'groups run one after another');
    assert.equal(new Set(seq).size, 3);
    for (let i = 1; i < order.length; i++) if (seq[i] === seq[i - 1]) assert.ok(order[i] > order[i - 1], 'shuffled order kept inside a group');
  });

  it('the grid JSON has the issue\'s shape: percent accuracies, CIs, memory_min over every point of every seed', () => {
    const cells = paperCells();
    // The paper's 4 × 4 (threshold `paper`) plus the relative-threshold cells beyond the paper.
    assert.equal(cells.filter((c) => c.variant === 'standard' && c.attribution === 'shown' && c.threshold === 'paper').length, 16);
    assert.deepEqual(cells.filter((c) => c.threshold === 'relative').map(cellKey), [
      'strict/history/standard/shown/relative',
      'strict/combined/standard/shown/relative',
      'strict/history/standard/top-output/relative',
      'strict/combined/standard/top-output/relative',
    ]);
    assert.equal(new Set(cells.map(cellKey)).size, cells.length, 'cell keys are unique');
    assert.ok(['error-free', 'shift', 'capacity'].every((v) => cells.some((c) => c.variant === v)));
    assert.ok(cells.some((c) => c.attribution === 'followed'));
    const results: CellSeedResult[] = cells.flatMap((cell, k) =>
      [1, 2, 3].map((seed) => ({ key: cellKey(cell), seed, tasks: 4, accuracy: 20 + seed + k, memoryFinal: 100 + seed, memoryMin: 90 - seed, accuracyCurve: [0, 50, 33.3, 25], memoryCurve: [100, 101, 99, 100 + seed], scatter: [[0.9, 0.8], [null, null], [0.2, 0.3], [0.5, 0.5]], groupStarts: [], durationMs: 1, cpuMs: 1, profile: { sandboxRunMs: 0, retrieveMs: 0, generateMs: 0, bookkeepingMs: 0, otherMs: 1 }, cacheHits: 0, cacheMisses: 0 })),
    );
    const json = aggregateGrid('simulated', 3, 1, cells, results, 'simulation');
    assert.deepEqual(Object.keys(json), ['agent', 'label', 'seeds', 'seed_base', 'tasks', 'cells']);
    const c0 = json.cells[0];
    assert.deepEqual(Object.keys(c0), ['addition', 'deletion', 'variant', 'attribution', 'threshold', 'guard', 'accuracy_mean', 'accuracy_ci95', 'memory_mean', 'memory_min', 'per_seed']);
    assert.equal(c0.accuracy_mean, 22);
    assert.deepEqual(c0.per_seed, [21, 22, 23]);
    assert.ok(c0.accuracy_ci95[0] < 22 && c0.accuracy_ci95[1] > 22);
    assert.equal(c0.memory_min, 87);
    assert.equal(c0.memory_mean, 102);
    JSON.parse(JSON.stringify(json));
    const curves = cellCurves(cells, results);
    assert.equal(curves[0].accuracy.mean.length, 4);
    assert.equal(curves[0].scatter.length, 3);
    const cmp = paperComparison(json, CALIBRATION_TARGETS);
    assert.equal(cmp.filter((r) => r.fitted).length, 2);
    assert.ok(cmp.length >= 8);
  });

  it('calibration rewrites only the CALIBRATED block', () => {
    const src = 'a\n// CALIBRATED-BEGIN (x)\nconst FITTED = {};\n// CALIBRATED-END\nb\n';
    const out = writeCalibrated(src, { competenceMean: 0.1, followMidpoint: 0.7, followTemperature: 0.05 }, 'cmd on 2026-11-24');
    assert.match(out, /^a\n\/\/ CALIBRATED-BEGIN[\s\S]*competenceMean: 0.1, followMidpoint: 0.7, followTemperature: 0.05[\s\S]*CALIBRATED-END\nb\n$/);
    assert.match(out, /cmd on 2026-11-24/);
  });
});
