/**
 * The dashboard's chart options (the webview's pure part, src/vscode/dashboard/webview/chart-options.js):
 * tooltips say "task 3", the scatter keeps a point at 1.0 whole (not clipped, padding around the plot)
 * and its axis titles are short enough for the chart's height.
 */
import { strict as assert } from 'node:assert';
import { dataRange, options, round, SCATTER_POINT_RADIUS, scatterDataset, scatterOptions, sizeChartOptions } from '../../../src/vscode/dashboard/webview/chart-options.js';

const THEME = { fg: '#ccc', grid: '#333' };

describe('dashboard chart options', () => {
  it('a task chart tooltip titles the point "task 3", not "3"; a category chart keeps its label', () => {
    const task = options(THEME, 'task', 'active records');
    assert.equal(task.plugins.tooltip.callbacks.title([{ label: '3', parsed: { x: 3, y: 10 } }]), 'task 3');
    const bins = options(THEME, 'mean utility Φ', 'records', { xCategory: true });
    assert.equal(bins.plugins.tooltip.callbacks.title([{ label: '0.2–0.4', parsed: { x: 1, y: 2 } }]), '0.2–0.4');
    assert.equal(task.plugins.tooltip.callbacks.label({ dataset: { label: 'size' }, parsed: { y: 4 } }), 'size: 4');
    assert.equal(options(THEME, 'task', 'accuracy', { percent: true }).plugins.tooltip.callbacks.label({ dataset: { label: 'acc' }, parsed: { y: 0.5 } }), 'acc: 50 %');
    assert.equal(round(0.333333), '0.33');
  });

  it('the similarity scatter: axes 0–1, points at 1.0 drawn whole (no clip, padding larger than a point), short axis titles', () => {
    const o = scatterOptions(options(THEME, 'input similarity (question)', 'output similarity (code)', { yMax: 1, xFraction: true }));
    assert.deepEqual([o.scales.x.min, o.scales.x.max, o.scales.y.min, o.scales.y.max], [0, 1, 0, 1]);
    assert.ok(o.layout.padding.top > SCATTER_POINT_RADIUS && o.layout.padding.right > SCATTER_POINT_RADIUS, JSON.stringify(o.layout));
    const d = scatterDataset([{ taskIndex: 7, input: 1, output: 1 }], '#b180d7');
    assert.equal(d.clip, false, 'a point on the edge is not clipped');
    assert.deepEqual(d.data, [{ x: 1, y: 1, task: 7 }]);
    for (const title of [o.scales.x.title.text, o.scales.y.title.text]) assert.ok(title.length <= 30, `"${title}" fits the 200 px chart height`);
  });

  it('the memory-size chart scales its y axis to the data: 100 → 104 records spans about 99–105, not 0–104', () => {
    const o = sizeChartOptions(THEME, [100, 101, 103, 104, 102]);
    assert.equal(o.scales.y.beginAtZero, false);
    assert.deepEqual([o.scales.y.min, o.scales.y.max], [99, 105]);
    // A change of 4 records fills most of the plot's height (it was 4 % of it from 0).
    assert.ok((104 - 100) / ((o.scales.y.max ?? 0) - (o.scales.y.min ?? 0)) > 0.5);
    assert.deepEqual(dataRange([0, 20]), { yMin: 0, yMax: 22 }, 'never below 0; a margin of 10 % of the spread');
    assert.deepEqual(dataRange([7, 7]), { yMin: 6, yMax: 8 }, 'a flat curve still gets a range');
    assert.deepEqual(dataRange([]), {});
    assert.equal(options(THEME, 'task', 'tasks so far').scales.y.beginAtZero, true, 'the cumulative counts still start at 0');
  });
});
