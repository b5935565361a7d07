import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { formatProfile, gridPeriod, parsePaperOptions as parseOrHelp, selectCells, type PaperOptions } from '../../../src/cli/bench-paper';
import { HELP_SHOWN } from '../../../src/cli/args';

/** The bench's options (these tests never ask for --help). */
function parsePaperOptions(argv: string[]): PaperOptions {
  const o = parseOrHelp(argv);
  assert.notEqual(o, HELP_SHOWN);
  return o as PaperOptions;
}
import { cellConfig, cellKey, paperCells } from '../../../src/core/bench/paper-cells';
import { PAPER_EHR_PERIOD, scaledPeriod, streamPeriod, STREAM_TASK_FILES } from '../../../src/core/bench/config';
import { formatComparison, PaperComparisonRow } from '../../../src/core/bench/paper-aggregate';
import { cellProfile } from '../../../src/core/bench/paper-seed';

describe('bench:paper --stream (issue 19)', () => {
  it('defaults to the human stream and selects the paper-length stream and its file with --stream paper', () => {
    const human = parsePaperOptions([]);
    assert.equal(human.stream, 'human');
    assert.equal(path.basename(human.tasks), STREAM_TASK_FILES.human);
    const paper = parsePaperOptions(['--stream', 'paper']);
    assert.equal(path.basename(paper.tasks), STREAM_TASK_FILES.paper);
    assert.equal(parsePaperOptions(['--stream', 'paper', '--tasks', '/x.jsonl']).tasks, '/x.jsonl');
    assert.throws(() => parsePaperOptions(['--stream', 'long']), /--stream/);
    assert.equal(human.rerank, false, 'the stream retrieves as the product: fused');
    assert.equal(parsePaperOptions(['--rerank', '--stream', 'paper']).rerank, true);
  });

  it('the periodic guard cells are opt-in: --guard adds them, --cells names them, the default grid stays as issue 19 fixed it', () => {
    const guard = ['strict/periodic/standard/shown/last-of-kind', 'strict/combined/standard/shown/last-of-kind', 'strict/combined/standard/shown/relative/last-of-kind'];
    assert.equal(selectCells(undefined).length, paperCells().length);
    assert.equal(paperCells().some((c) => c.guard !== 'none'), false);
    assert.deepEqual(selectCells(undefined, true).map(cellKey).slice(-3), guard);
    assert.deepEqual(selectCells(`strict/none/standard/shown,${guard[2]}`).map(cellKey), ['strict/none/standard/shown', guard[2]]);
    assert.throws(() => selectCells('strict/none/standard/shown/first-of-kind'), /last-of-kind/);
    assert.equal(parsePaperOptions(['--guard']).guard, true);
    assert.equal(parsePaperOptions([]).guard, false);
    const [cell] = selectCells(guard[2]);
    const config = cellConfig(cell, { seed: 1, language: 'python' });
    assert.equal(config.periodicGuard, 'last-of-kind');
    assert.equal(config.historyThreshold, 'relative');
    assert.equal(cellConfig(paperCells()[0], { seed: 1, language: 'python' }).periodicGuard, 'none');
  });

  it('runs the paper stream with the paper period 200 unscaled, the human stream with the scaled one', () => {
    assert.equal(gridPeriod({ stream: 'paper', period: undefined }), PAPER_EHR_PERIOD);
    assert.equal(gridPeriod({ stream: 'human', period: undefined }), undefined, 'each run scales it to its stream');
    assert.equal(gridPeriod({ stream: 'paper', period: 60 }), 60);
    assert.equal(streamPeriod('paper', 2840), 200);
    assert.equal(streamPeriod('human', 216), scaledPeriod(216));
    assert.equal(scaledPeriod(216), 19);
  });

  it('prints every paper cell with its error and whether the paper figure is inside the CI', () => {
    const rows: PaperComparisonRow[] = [
      { key: 'fixed/none/standard/shown', paper_accuracy: 16.89, paper_memory: 100, predicted_accuracy: 29.5, predicted_ci95: [28, 31], predicted_memory: 100, fitted: true },
      { key: 'strict/combined/standard/shown', paper_accuracy: 42.88, paper_memory: 248, predicted_accuracy: 40, predicted_ci95: [38, 44], predicted_memory: 120.5, fitted: false },
    ];
    const text = formatComparison(rows);
    assert.match(text, /fixed\/none\/standard\/shown \(fitted\)\s+16\.89\s+29\.50\s+\[28\.00, 31\.00\]\s+\+12\.61\s+no/);
    assert.match(text, /strict\/combined\/standard\/shown\s+42\.88\s+40\.00\s+\[38\.00, 44\.00\]\s+-2\.88\s+yes\s+248\s+120\.5/);
    assert.match(text, /mean absolute error over the 1 predicted \(not fitted\) cells: 2\.88 points/);
  });

  it('splits a cell\'s time into sandbox runs, retrieval, generation, bookkeeping and the rest', () => {
    const p = cellProfile([{ runMs: 10, retrieveMs: 5, generateMs: 3, bookkeepingMs: 2 }, { runMs: 10, retrieveMs: 5, generateMs: 3, bookkeepingMs: 2 }], 50);
    assert.deepEqual(p, { sandboxRunMs: 20, retrieveMs: 10, generateMs: 6, bookkeepingMs: 4, otherMs: 10 });
    assert.match(formatProfile([p, p], 12, 2), /sandbox runs 0\.0 s \(40 %\), retrieval 0\.0 s \(20 %\), generation \(agent\) 0\.0 s \(12 %\)/);
  });
});
